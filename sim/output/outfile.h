/*
 * outfile.h - atomic output files: write a temporary file next to the
 * target, then fsync it and rename it over the target.
 *
 * Notes
 *  - outfile_open(path) creates "<dir>/.<name>.XXXXXX" with mkstemp(3) in the
 *    target's own directory, so that the final rename(2) stays on one file
 *    system and is atomic. The target is not touched before
 *    outfile_commit(): whoever reads it sees the old file (or none) or the
 *    complete new one, never a part.
 *  - outfile_commit(): fflush, fsync, fclose, rename over the target, fsync
 *    of the directory. Any failure removes the temporary, leaves the target
 *    as it was and returns -1 with a reason. outfile_abort() removes the
 *    temporary; the target is untouched. Both free the outfile_t.
 *  - Interrupts: every open temporary is listed in a process-wide table.
 *    outfile_cleanup_signal() removes them all using only async-signal-safe
 *    calls (unlink(2)); sim/cli/main.c calls it from its handler of every signal of
 *    outfile_signals[]. At most OUTFILE_OPEN_MAX outfiles are open at once.
 *    Signals are blocked only in the calling thread: a program with worker
 *    threads should block them in the workers (outfile_block_signals before
 *    creating them, as sim/output/pool.c does), so that the handler runs on
 *    the thread that opens and commits.
 *  - Thread safety: different outfiles may be used from different threads;
 *    one outfile from one thread at a time.
 *  - "-" is standard output: no temporary; commit flushes it, abort does
 *    nothing. A target that exists and is not a regular file (a FIFO, a
 *    terminal, /dev/null) is written directly, since there is nothing to
 *    replace atomically. A directory is an error. A symbolic link is
 *    followed: the file it names is replaced, the link stays.
 *  - The new file gets the mode of the file it replaces, else 0666 & ~umask
 *    (what fopen(path, "w") would give).
 *  - Library code: every function returns 0 / a pointer, or -1 / NULL with a
 *    one-line reason that names the path; nothing is printed.
 */
#ifndef CLEARSIM_OUTFILE_H
#define CLEARSIM_OUTFILE_H

#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#define OUTFILE_OPEN_MAX 16

typedef struct outfile outfile_t;

/* Start writing `path` ("-" for standard output). Returns NULL with a reason
 * when the temporary cannot be created (no such directory, no permission,
 * the target is a directory, more than OUTFILE_OPEN_MAX open). */
outfile_t *outfile_open(const char *path, char *err, size_t errlen);
/* The stream to write to. */
FILE *outfile_fp(outfile_t *of);
/* True when of replaces its target atomically (a regular file or a new one);
 * false for standard output and for targets written directly (a FIFO, a
 * device). */
bool outfile_is_atomic(const outfile_t *of);
/* The target path as given to outfile_open. */
const char *outfile_path(const outfile_t *of);
/* fflush the stream, so that a write error shows now rather than at commit.
 * Returns 0, or -1 with a reason (a write error). */
int outfile_flush(outfile_t *of, char *err, size_t errlen);
/* Make the output the target: see Notes. Frees of. Returns 0, or -1 with a
 * reason (the target is then untouched). */
int outfile_commit(outfile_t *of, char *err, size_t errlen);
/* Drop the output: the temporary is removed. Frees of. NULL is a no-op. */
void outfile_abort(outfile_t *of);
/* Async-signal-safe: remove every open temporary. The
 * outfile_t objects stay allocated; the process is expected to exit. */
void outfile_cleanup_signal(void);
/* The terminating signals after which no temporary may be left: SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGXFSZ,
 * SIGXCPU, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS and SIGSTKFLT: the
 * standard catchable ones whose default action ends the process. Left out:
 * SIGTRAP (a debugger's) and the real-time signals, which clearsim does not
 * expect. */
extern const int outfile_signals[];
extern const size_t outfile_n_signals;
/* Block them all in the calling thread; *old gets the previous mask. */
void outfile_block_signals(sigset_t *old);

#endif
