/*
 * progress.h - progress and ETA on stderr for long work.
 *
 * Notes
 *  - Prints only when stderr is a terminal (isatty), at most a few times per
 *    second, as one line rewritten in place; stays silent otherwise, so logs
 *    and CI output stay clean.
 */
#ifndef CLEARSIM_PROGRESS_H
#define CLEARSIM_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress progress_t;

/* enabled=false makes every call a no-op; label is copied. */
progress_t *progress_create(const char *label, uint64_t total, bool enabled);
void progress_update(progress_t *p, uint64_t done);
void progress_destroy(progress_t *p); /* clears the line */
/* True when stderr is a terminal. */
bool progress_tty(void);

#endif
