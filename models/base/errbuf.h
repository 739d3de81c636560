/*
 * errbuf.h - the one way library code reports an error: a formatted message
 * in the caller's buffer, and a return code.
 *
 * Notes
 *  - The message is made one printable line: control bytes (from file names,
 *    parsers, a quoted "\r") become '?', so a caller can print it after its
 *    own prefix and trust it to end the line.
 *  - A NULL buffer or a zero length is allowed: the code is still returned.
 */
#ifndef CLEARSIM_ERRBUF_H
#define CLEARSIM_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* Format into err[0..errlen) and return -1. */
int errbuf_set(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same from a va_list (for a module's own wrapper, e.g. cfg.c's). */
void errbuf_vset(char *err, size_t errlen, const char *fmt, va_list ap);

/* The same, returning rc (for callers whose failures carry a code). */
int errbuf_set_rc(int rc, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
