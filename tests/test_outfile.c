/*
 * test_outfile.c - atomic output files (sim/output/outfile.c).
 *
 * Notes
 *  - Every case works in its own fresh directory under $TMPDIR (or /tmp) and
 *    checks the directory's exact contents afterwards: the target as
 *    expected, and no temporary left behind.
 *  - The interrupt path is tested by calling outfile_cleanup_signal()
 *    directly (what sim/cli/main.c's handler does); tests/cli/output.sh sends a
 *    real SIGTERM to a running clearsim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/output/outfile.h"

typedef struct tdir {
    char path[PATH_MAX];
} tdir_t;

static char err[512];

static int setup(void **state)
{
    tdir_t *d = malloc(sizeof *d);
    if (!d)
        return -1;
    const char *t = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/test_outfile.XXXXXX", t && t[0] ? t : "/tmp");
    if (!mkdtemp(d->path)) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    tdir_t *d = *state;
    DIR *dir = opendir(d->path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            char p[PATH_MAX + 256];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", d->path, e->d_name);
            unlink(p);
        }
        closedir(dir);
    }
    rmdir(d->path);
    free(d);
    return 0;
}

static const char *in(const tdir_t *d, const char *name)
{
    static char buf[4][PATH_MAX + 64];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", d->path, name);
    return buf[i];
}

/* The names in the directory, sorted, joined by spaces ("" when empty). */
static const char *listing(const tdir_t *d)
{
    static char out[1024];
    char names[16][256];
    size_t n = 0;
    DIR *dir = opendir(d->path);
    assert_non_null(dir);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < 16) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(dir);
    for (size_t i = 1; i < n; i++) /* insertion sort */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strcat(out, i ? " " : "");
        strcat(out, names[i]);
    }
    return out;
}

static const char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_commit_creates_target(void **state)
{
    tdir_t *d = *state;
    outfile_t *of = outfile_open(in(d, "out.csv"), err, sizeof err);
    assert_non_null(of);
    assert_string_equal(outfile_path(of), in(d, "out.csv"));
    fputs("a,b\n1,2\n", outfile_fp(of));
    /* before the commit the target does not exist; one hidden temporary does */
    assert_null(slurp(in(d, "out.csv")));
    assert_int_equal(strncmp(listing(d), ".out.csv.", 9), 0);
    assert_int_equal(outfile_commit(of, err, sizeof err), 0);
    assert_string_equal(listing(d), "out.csv");
    assert_string_equal(slurp(in(d, "out.csv")), "a,b\n1,2\n");
    /* the mode fopen(path, "w") would give: 0666 & ~umask */
    mode_t u = umask(022);
    umask(u);
    struct stat st;
    assert_int_equal(stat(in(d, "out.csv"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0666 & ~u);
}

static void test_commit_replaces_and_keeps_mode(void **state)
{
    tdir_t *d = *state;
    spit(in(d, "out.txt"), "old\n");
    assert_int_equal(chmod(in(d, "out.txt"), 0640), 0);
    outfile_t *of = outfile_open(in(d, "out.txt"), err, sizeof err);
    assert_non_null(of);
    fputs("new\n", outfile_fp(of));
    assert_string_equal(slurp(in(d, "out.txt")), "old\n");
    assert_int_equal(outfile_commit(of, err, sizeof err), 0);
    assert_string_equal(slurp(in(d, "out.txt")), "new\n");
    assert_string_equal(listing(d), "out.txt");
    struct stat st;
    assert_int_equal(stat(in(d, "out.txt"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
}

static void test_abort_leaves_target(void **state)
{
    tdir_t *d = *state;
    spit(in(d, "out.json"), "{\"old\": 1}\n");
    outfile_t *of = outfile_open(in(d, "out.json"), err, sizeof err);
    assert_non_null(of);
    fputs("{\"new\": ", outfile_fp(of));
    assert_int_equal(outfile_flush(of, err, sizeof err), 0);
    outfile_abort(of);
    assert_string_equal(listing(d), "out.json");
    assert_string_equal(slurp(in(d, "out.json")), "{\"old\": 1}\n");
    outfile_abort(NULL); /* a no-op */
}

static void test_open_errors(void **state)
{
    tdir_t *d = *state;
    err[0] = '\0';
    assert_null(outfile_open(in(d, "nodir/out.csv"), err, sizeof err));
    assert_non_null(strstr(err, "nodir/out.csv"));
    assert_non_null(strstr(err, "No such file or directory"));
    assert_null(outfile_open(d->path, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
    assert_null(outfile_open(in(d, "x/"), err, sizeof err));
    assert_null(outfile_open("", err, sizeof err));
    assert_string_equal(err, "no output file given");
    spit(in(d, "file"), "x");
    assert_null(outfile_open(in(d, "file/out.csv"), err, sizeof err));
    assert_non_null(strstr(err, "Not a directory"));
    assert_string_equal(listing(d), "file");
}

static void test_symlink_followed(void **state)
{
    tdir_t *d = *state;
    spit(in(d, "real.csv"), "old\n");
    assert_int_equal(symlink("real.csv", in(d, "link.csv")), 0);
    outfile_t *of = outfile_open(in(d, "link.csv"), err, sizeof err);
    assert_non_null(of);
    fputs("new\n", outfile_fp(of));
    assert_int_equal(outfile_commit(of, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(in(d, "link.csv"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(slurp(in(d, "real.csv")), "new\n");
    assert_string_equal(listing(d), "link.csv real.csv");
}

static void test_direct_and_stdout(void **state)
{
    (void)state;
    outfile_t *of = outfile_open("/dev/null", err, sizeof err);
    assert_non_null(of);
    fputs("discarded\n", outfile_fp(of));
    assert_int_equal(outfile_commit(of, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    of = outfile_open("-", err, sizeof err);
    assert_non_null(of);
    assert_ptr_equal(outfile_fp(of), stdout);
    assert_int_equal(outfile_commit(of, err, sizeof err), 0);
    of = outfile_open("-", err, sizeof err);
    assert_non_null(of);
    outfile_abort(of);
}

static void test_cleanup_signal(void **state)
{
    tdir_t *d = *state;
    spit(in(d, "a.csv"), "old a\n");
    outfile_t *a = outfile_open(in(d, "a.csv"), err, sizeof err);
    outfile_t *b = outfile_open(in(d, "b.csv"), err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    fputs("new a\n", outfile_fp(a));
    fputs("new b\n", outfile_fp(b));
    assert_int_equal(outfile_flush(a, err, sizeof err), 0);
    assert_int_equal(outfile_flush(b, err, sizeof err), 0);
    outfile_cleanup_signal();
    /* both temporaries are gone; a.csv is the old one, b.csv was never made */
    assert_string_equal(listing(d), "a.csv");
    assert_string_equal(slurp(in(d, "a.csv")), "old a\n");
    /* the objects are still valid; aborting them changes nothing more */
    outfile_abort(a);
    outfile_abort(b);
    assert_string_equal(listing(d), "a.csv");
}

static void test_open_limit(void **state)
{
    tdir_t *d = *state;
    outfile_t *of[OUTFILE_OPEN_MAX];
    for (int i = 0; i < OUTFILE_OPEN_MAX; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%02d", i);
        of[i] = outfile_open(in(d, name), err, sizeof err);
        assert_non_null(of[i]);
    }
    assert_null(outfile_open(in(d, "one-more"), err, sizeof err));
    assert_non_null(strstr(err, "more than 16 output files open"));
    for (int i = 0; i < OUTFILE_OPEN_MAX; i++)
        outfile_abort(of[i]);
    assert_string_equal(listing(d), "");
    /* the slots are free again */
    outfile_t *again = outfile_open(in(d, "again"), err, sizeof err);
    assert_non_null(again);
    assert_int_equal(outfile_commit(again, err, sizeof err), 0);
    assert_string_equal(listing(d), "again");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_creates_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_replaces_and_keeps_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_direct_and_stdout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_signal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
