/*
 * errbuf.c - formatted error messages into the caller's buffer (errbuf.h).
 */
#include "models/base/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void errbuf_vset(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    vsnprintf(err, errlen, fmt, ap);
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

int errbuf_set(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errbuf_vset(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int errbuf_set_rc(int rc, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errbuf_vset(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}
