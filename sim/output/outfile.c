/*
 * outfile.c - atomic output files (temporary + fsync + rename); a sweep's
 * FILE.partial is its own plain file (sim/cli/cmd_sweep.c).
 *
 * Notes
 *  - See outfile.h for the contract. The temporaries of open outfiles are
 *    listed in a fixed table of slots (no allocation), which the signal
 *    handler path (outfile_cleanup_signal) walks with unlink/rename only.
 *    The signals of outfile_signals[] are blocked while a slot is being filled
 *    or emptied, so the handler never sees a half-written path.
 *  - Deliberately ignored: SIGKILL (it cannot be caught; a temporary left by
 *    it is a hidden ".<name>.XXXXXX" file next to the target), a crash, and
 *    file systems where rename is not atomic.
 *  - The mode of a new file is computed once from the umask (read by
 *    setting and restoring it, under pthread_once).
 */
#include "sim/output/outfile.h"
#include "models/base/errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define TMP_BASE_MAX 200 /* bytes of the target's name kept in the temporary's name */

typedef struct slot {
    atomic_int armed;   /* 1: tmp names a live temporary */
    char tmp[PATH_MAX]; /* the temporary */
} slot_t;

static slot_t slots[OUTFILE_OPEN_MAX];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

typedef enum of_kind { OF_ATOMIC = 0, OF_STDOUT, OF_DIRECT } of_kind_t;

struct outfile {
    of_kind_t kind;
    FILE *fp;
    slot_t *slot;          /* OF_ATOMIC */
    mode_t mode;           /* OF_ATOMIC: mode of the new file */
    char path[PATH_MAX];   /* as given */
    char target[PATH_MAX]; /* the file replaced (symbolic links followed) */
    char dir[PATH_MAX];    /* target's directory */
};

/* ---- signals ------------------------------------------------------------- */

const int outfile_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,  SIGUSR1,   SIGUSR2,
                               SIGPIPE, SIGALRM, SIGXFSZ, SIGXCPU,  SIGVTALRM, SIGPROF,
                               SIGIO,   SIGPWR,  SIGSYS,  SIGSTKFLT};
const size_t outfile_n_signals = sizeof outfile_signals / sizeof outfile_signals[0];

void outfile_block_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (size_t i = 0; i < outfile_n_signals; i++)
        sigaddset(&s, outfile_signals[i]);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

static void block_signals(sigset_t *old)
{
    outfile_block_signals(old);
}

static void restore_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void outfile_cleanup_signal(void)
{
    for (size_t i = 0; i < OUTFILE_OPEN_MAX; i++) {
        slot_t *s = &slots[i];
        if (!atomic_load(&s->armed))
            continue;
        unlink(s->tmp);
        atomic_store(&s->armed, 0);
    }
}

/* Drop the slot's temporary (when remove_tmp) and free the slot. */
static void slot_release(slot_t *s, bool remove_tmp)
{
    sigset_t old;
    block_signals(&old);
    if (remove_tmp)
        unlink(s->tmp);
    pthread_mutex_lock(&slots_lock);
    atomic_store(&s->armed, 0);
    s->tmp[0] = '\0';
    pthread_mutex_unlock(&slots_lock);
    restore_signals(&old);
}

/* ---- paths and modes ------------------------------------------------------ */

static mode_t new_file_mode;
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

static void read_umask(void)
{
    mode_t u = umask(022);
    umask(u);
    new_file_mode = 0666 & ~u;
}

/* Split path into its directory (".", "/" or the part before the last '/')
 * and its last component. Returns -1 when the path names a directory. */
static int split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dirlen, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
    if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0)
        return -1;
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

outfile_t *outfile_open(const char *path, char *err, size_t errlen)
{
    if (!path || !path[0]) {
        errbuf_set(err, errlen, "no output file given");
        return NULL;
    }
    size_t plen = strlen(path);
    if (plen >= PATH_MAX) {
        errbuf_set(err, errlen, "%.64s...: path longer than %d characters", path, PATH_MAX - 1);
        return NULL;
    }
    outfile_t *of = calloc(1, sizeof *of);
    if (!of) {
        errbuf_set(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    memcpy(of->path, path, plen + 1);
    if (strcmp(path, "-") == 0) {
        of->kind = OF_STDOUT;
        of->fp = stdout;
        return of;
    }

    /* what is there now: follow a symbolic link to the file it names */
    struct stat st;
    memcpy(of->target, path, plen + 1);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) {
            errbuf_set(err, errlen, "%s: cannot follow the symbolic link: %s", path,
                       strerror(errno));
            free(of);
            return NULL;
        }
        snprintf(of->target, sizeof of->target, "%s", real);
        free(real);
    }
    bool exists = stat(of->target, &st) == 0;
    if (!exists && errno != ENOENT) {
        errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
        free(of);
        return NULL;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        errbuf_set(err, errlen, "%s: is a directory", path);
        free(of);
        return NULL;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a FIFO, a terminal, /dev/null: nothing to replace atomically */
        of->kind = OF_DIRECT;
        of->fp = fopen(of->target, "w");
        if (!of->fp) {
            errbuf_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            free(of);
            return NULL;
        }
        return of;
    }
    const char *base = NULL;
    if (split_path(of->target, of->dir, sizeof of->dir, &base) != 0) {
        errbuf_set(err, errlen, "%s: is a directory", path);
        free(of);
        return NULL;
    }
    if (exists) {
        of->mode = st.st_mode & 07777;
    } else {
        pthread_once(&mode_once, read_umask);
        of->mode = new_file_mode;
    }

    /* a free slot, then the temporary, with the interrupt signals blocked */
    sigset_t old;
    block_signals(&old);
    pthread_mutex_lock(&slots_lock);
    for (size_t i = 0; i < OUTFILE_OPEN_MAX && !of->slot; i++) {
        if (!atomic_load(&slots[i].armed) && slots[i].tmp[0] == '\0') {
            of->slot = &slots[i];
            snprintf(of->slot->tmp, sizeof of->slot->tmp, "x"); /* reserved */
        }
    }
    pthread_mutex_unlock(&slots_lock);
    if (!of->slot) {
        restore_signals(&old);
        errbuf_set(err, errlen, "%s: more than %d output files open", path, OUTFILE_OPEN_MAX);
        free(of);
        return NULL;
    }
    slot_t *s = of->slot;
    int w = snprintf(s->tmp, sizeof s->tmp, "%s/.%.*s.XXXXXX", of->dir, TMP_BASE_MAX, base);
    int fd = -1;
    if (w > 0 && (size_t)w < sizeof s->tmp)
        fd = mkstemp(s->tmp);
    else
        errno = ENAMETOOLONG;
    int saved = errno;
    if (fd >= 0)
        atomic_store(&s->armed, 1);
    restore_signals(&old);
    if (fd < 0) {
        errbuf_set(err, errlen, "%s: cannot create a temporary file in %s: %s", path, of->dir,
                   strerror(saved));
        slot_release(s, false);
        free(of);
        return NULL;
    }
    of->fp = fdopen(fd, "w");
    if (!of->fp) {
        errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        slot_release(s, true);
        free(of);
        return NULL;
    }
    return of;
}

bool outfile_is_atomic(const outfile_t *of)
{
    return of && of->kind == OF_ATOMIC;
}

FILE *outfile_fp(outfile_t *of)
{
    return of->fp;
}

const char *outfile_path(const outfile_t *of)
{
    return of->path;
}

int outfile_flush(outfile_t *of, char *err, size_t errlen)
{
    if (fflush(of->fp) != 0 || ferror(of->fp))
        return errbuf_set(err, errlen, "%s: cannot write: %s", of->path,
                          errno ? strerror(errno) : "write error");
    return 0;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: the rename is done either way */
        close(fd);
    }
}

int outfile_commit(outfile_t *of, char *err, size_t errlen)
{
    int rc = 0;
    if (of->kind == OF_STDOUT) {
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = errbuf_set(err, errlen, "cannot write to standard output");
        free(of);
        return rc;
    }
    if (of->kind == OF_DIRECT) {
        bool bad = fflush(of->fp) != 0 || ferror(of->fp);
        int e = errno;
        if (fclose(of->fp) != 0 && !bad) {
            bad = true;
            e = errno;
        }
        if (bad)
            rc = errbuf_set(err, errlen, "%s: cannot write: %s", of->path, strerror(e));
        free(of);
        return rc;
    }

    slot_t *s = of->slot;
    int fd = fileno(of->fp);
    const char *what = NULL;
    int e = 0;
    if (fflush(of->fp) != 0 || ferror(of->fp))
        what = "cannot write";
    else if (fsync(fd) != 0)
        what = "cannot sync";
    else if (fchmod(fd, of->mode) != 0)
        what = "cannot set the mode";
    e = errno;
    if (fclose(of->fp) != 0 && !what) {
        what = "cannot write";
        e = errno;
    }
    of->fp = NULL;
    if (!what && rename(s->tmp, of->target) != 0) {
        what = "cannot replace the file";
        e = errno;
    }
    if (what) {
        rc = errbuf_set(err, errlen, "%s: %s: %s", of->path, what, e ? strerror(e) : "I/O error");
        slot_release(s, true);
        free(of);
        return rc;
    }
    slot_release(s, false);
    sync_dir(of->dir);
    free(of);
    return 0;
}

void outfile_abort(outfile_t *of)
{
    if (!of)
        return;
    if (of->kind == OF_STDOUT) {
        fflush(stdout);
    } else if (of->kind == OF_DIRECT) {
        fclose(of->fp);
    } else {
        if (of->fp)
            fclose(of->fp);
        slot_release(of->slot, true);
    }
    free(of);
}
