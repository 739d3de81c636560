/*
 * units.c - parsing of values with units (sizes, times, frequencies,
 * bandwidths) and of plain numbers.
 *
 * Notes
 *  - One lexer (num_lex) splits "<number><spaces><unit>" and checks the shape
 *    of the number: optional sign, decimal digits with an optional fraction
 *    and exponent, or 0x hex digits. Words such as nan, inf, infinity and C's
 *    hex floats never reach strtod, so they cannot be accepted by accident.
 *  - Sizes are evaluated exactly from the decimal digits (mantissa x 10^e x
 *    2^k, with 5^d and 2^d divisibility checks), so "18446744073709551615B" is
 *    accepted and "18446744073709551616B", "16EiB" and "1e30B" are overflow
 *    errors, with no rounding through a double.
 *  - Times, frequencies and bandwidths are doubles: strtod with errno and
 *    endptr checks, finite results only.
 *  - Units: see units.h. Size units are case-insensitive; time, frequency and
 *    bandwidth units are matched as written in units.h (GHz, ns, GB/s ...).
 */
#include "sim/machine/units.h"
#include "models/base/errbuf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NUM_TEXT_MAX 128

/* The lexed shape of one number. */
typedef struct num {
    char text[NUM_TEXT_MAX]; /* the number as written, sign included, NUL-terminated */
    bool neg;
    bool hex;
    bool has_frac;   /* a '.' was written */
    bool has_exp;    /* an exponent was written */
    const char *end; /* first character after the number */
} num_t;

static int why_set(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int why_set(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Lex the number at the start of s (after leading blanks). */
static int num_lex(const char *s, num_t *n, char *why, size_t whylen)
{
    memset(n, 0, sizeof(*n));
    if (s == NULL)
        return why_set(why, whylen, "no value given");
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\0')
        return why_set(why, whylen, "empty value; expected a number");
    const char *p = s;
    if (*p == '+' || *p == '-') {
        n->neg = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        n->hex = true;
        p += 2;
        if (!isxdigit((unsigned char)*p))
            return why_set(why, whylen, "'%s' is not a number: no hex digits after 0x", s);
        while (isxdigit((unsigned char)*p))
            p++;
    } else {
        size_t digits = 0;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
        if (*p == '.') {
            n->has_frac = true;
            p++;
            while (isdigit((unsigned char)*p)) {
                p++;
                digits++;
            }
        }
        if (digits == 0)
            return why_set(why, whylen, "'%s' is not a number", s);
        if (*p == 'e' || *p == 'E') {
            const char *q = p + 1;
            if (*q == '+' || *q == '-')
                q++;
            if (isdigit((unsigned char)*q)) {
                n->has_exp = true;
                while (isdigit((unsigned char)*q))
                    q++;
                p = q;
            }
            /* else: the 'e' starts a unit (e.g. "5EiB"); leave it */
        }
    }
    size_t len = (size_t)(p - s);
    if (len >= sizeof(n->text))
        return why_set(why, whylen, "number too long (%zu characters)", len);
    memcpy(n->text, s, len);
    n->text[len] = '\0';
    n->end = p;
    return 0;
}

/* The unit after a number: skip blanks, strip trailing blanks. */
static void unit_text(const char *end, char *buf, size_t len)
{
    while (*end == ' ' || *end == '\t')
        end++;
    size_t n = strlen(end);
    while (n > 0 && (end[n - 1] == ' ' || end[n - 1] == '\t'))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(buf, end, n);
    buf[n] = '\0';
}

/* strtod on a lexed (decimal or hex-integer) number; finite only. */
static int num_to_double(const num_t *n, double *out, char *why, size_t whylen)
{
    if (n->hex) {
        const char *digits = n->text + (n->text[0] == '+' || n->text[0] == '-' ? 1 : 0);
        char *endp = NULL;
        errno = 0;
        unsigned long long v = strtoull(digits, &endp, 16);
        if (errno == ERANGE)
            return why_set(why, whylen, "%s is too large (more than 64 bits)", n->text);
        if (errno != 0 || endp == digits || *endp != '\0')
            return why_set(why, whylen, "'%s' is not a number", n->text);
        *out = n->neg ? -(double)v : (double)v;
        return 0;
    }
    char *endp = NULL;
    errno = 0;
    double v = strtod(n->text, &endp);
    if (endp == n->text || *endp != '\0')
        return why_set(why, whylen, "'%s' is not a number", n->text);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return why_set(why, whylen, "%s is out of range for a double", n->text);
    if (errno == ERANGE && v != 0.0 && fabs(v) < 2.2250738585072014e-308)
        return why_set(why, whylen, "%s is too small to represent", n->text);
    if (errno == ERANGE)
        return why_set(why, whylen, "%s is out of range for a double", n->text);
    if (!isfinite(v))
        return why_set(why, whylen, "%s is not a finite number", n->text);
    *out = v;
    return 0;
}

/* ---- sizes ---------------------------------------------------------------- */

typedef struct size_unit {
    const char *name;
    unsigned shift; /* value = number << shift */
} size_unit_t;

static const size_unit_t size_units[] = {
    {"B", 0},   {"KB", 10},  {"KiB", 10}, {"MB", 20},  {"MiB", 20}, {"GB", 30},  {"GiB", 30},
    {"TB", 40}, {"TiB", 40}, {"PB", 50},  {"PiB", 50}, {"EB", 60},  {"EiB", 60},
};

#define SIZE_UNITS_HELP "use B, KB/KiB, MB/MiB, GB/GiB, TB/TiB (binary) or no unit for bytes"

static int size_unit_find(const char *u, unsigned *shift)
{
    if (u[0] == '\0') {
        *shift = 0;
        return 0;
    }
    for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
        if (strcasecmp(u, size_units[i].name) == 0) {
            *shift = size_units[i].shift;
            return 0;
        }
    }
    return -1;
}

/* Exact value of a decimal number times 2^shift, as a uint64_t. */
static int size_exact(const num_t *n, unsigned shift, uint64_t *out, char *why, size_t whylen)
{
    const char *what = n->text;
    if (n->hex) {
        const char *digits = n->text + (n->text[0] == '+' ? 1 : 0);
        char *endp = NULL;
        errno = 0;
        unsigned long long v = strtoull(digits, &endp, 16);
        if (errno == ERANGE || (shift > 0 && v > (UINT64_MAX >> shift)))
            return why_set(why, whylen, "too large: sizes must be below 2^64 bytes");
        if (errno != 0 || endp == digits || *endp != '\0')
            return why_set(why, whylen, "'%s' is not a number", what);
        *out = (uint64_t)v << shift;
        return 0;
    }
    /* Collect the significant digits as an integer mantissa m and a decimal
     * exponent e, so the value is m * 10^e * 2^shift. */
    const char *p = n->text;
    if (*p == '+')
        p++;
    char digits[NUM_TEXT_MAX];
    size_t nd = 0;
    long e = 0;
    bool in_frac = false;
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            in_frac = true;
            continue;
        }
        digits[nd++] = *p;
        if (in_frac)
            e--;
    }
    if (*p == 'e' || *p == 'E') {
        char *endp = NULL;
        errno = 0;
        long x = strtol(p + 1, &endp, 10);
        if (errno == ERANGE || x > 100000 || x < -100000)
            return why_set(why, whylen, "exponent of %s is out of range", what);
        e += x;
    }
    /* strip trailing zeros into the exponent, then leading zeros */
    while (nd > 0 && digits[nd - 1] == '0') {
        nd--;
        e++;
    }
    size_t first = 0;
    while (first < nd && digits[first] == '0')
        first++;
    if (first == nd) {
        *out = 0;
        return 0;
    }
    uint64_t m = 0;
    for (size_t i = first; i < nd; i++) {
        unsigned d = (unsigned)(digits[i] - '0');
        if (m > (UINT64_MAX - d) / 10) {
            if (e >= 0)
                return why_set(why, whylen, "too large: sizes must be below 2^64 bytes");
            return why_set(why, whylen, "%s has too many significant digits", what);
        }
        m = m * 10 + d;
    }
    if (e >= 0) {
        for (long i = 0; i < e; i++) {
            if (m > UINT64_MAX / 10)
                return why_set(why, whylen, "too large: sizes must be below 2^64 bytes");
            m *= 10;
        }
        if (shift > 0 && m > (UINT64_MAX >> shift))
            return why_set(why, whylen, "too large: sizes must be below 2^64 bytes");
        *out = m << shift;
        return 0;
    }
    /* m * 2^shift / (5^d * 2^d), d = -e: needs 5^d | m and then the powers of two */
    long d = -e;
    for (long i = 0; i < d; i++) {
        if (m % 5 != 0)
            return why_set(why, whylen, "not a whole number of bytes");
        m /= 5;
    }
    if ((long)shift >= d) {
        unsigned s = (unsigned)((long)shift - d);
        if (s > 0 && m > (UINT64_MAX >> s))
            return why_set(why, whylen, "too large: sizes must be below 2^64 bytes");
        *out = m << s;
        return 0;
    }
    long s = d - (long)shift;
    if (s >= 64 || (m & ((UINT64_C(1) << s) - 1)) != 0)
        return why_set(why, whylen, "not a whole number of bytes");
    *out = m >> s;
    return 0;
}

int unit_parse_size(const char *s, uint64_t *out_bytes, char *why, size_t whylen)
{
    num_t n;
    if (num_lex(s, &n, why, whylen) < 0)
        return -1;
    if (n.neg)
        return why_set(why, whylen, "a size must not be negative");
    /* a hex size takes its unit after a blank, or none: in 0x100000B the B
     * would be a hex digit, and 0x10KB hides where the digits end */
    if (n.hex) {
        char last = n.end[-1];
        if (*n.end != '\0' && *n.end != ' ' && *n.end != '\t')
            return why_set(why, whylen,
                           "'%.64s': write a blank between a hex number and its unit (0x10 KB)", s);
        const char *rest = n.end;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        if ((last == 'b' || last == 'B') && *rest == '\0')
            return why_set(
                why, whylen,
                "'%.64s' is ambiguous: B is a hex digit; write 0x%.*s B for bytes, or the "
                "digits with a unit after a blank",
                s, (int)(strlen(n.text) - 3 - (n.text[0] == '+')), n.text + 2 + (n.text[0] == '+'));
    }
    char u[32];
    unit_text(n.end, u, sizeof(u));
    unsigned shift = 0;
    if (strlen(n.end) >= sizeof(u) || size_unit_find(u, &shift) < 0)
        return why_set(why, whylen, "unknown unit '%s'; " SIZE_UNITS_HELP, u);
    uint64_t v = 0;
    if (size_exact(&n, shift, &v, why, whylen) < 0)
        return -1;
    *out_bytes = v;
    return 0;
}

void unit_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const names[] = {"EiB", "PiB", "TiB", "GiB", "MiB", "KiB"};
    static const unsigned shifts[] = {60, 50, 40, 30, 20, 10};
    if (buf == NULL || len == 0)
        return;
    if (bytes != 0) {
        for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
            uint64_t unit = UINT64_C(1) << shifts[i];
            if (bytes % unit == 0) {
                snprintf(buf, len, "%" PRIu64 "%s", bytes / unit, names[i]);
                return;
            }
        }
    }
    snprintf(buf, len, "%" PRIu64 "B", bytes);
}

/* ---- doubles with units --------------------------------------------------- */

/* Parse "<number><unit>" with a finite, non-negative number. */
static int parse_with_unit(const char *s, double *v, char *u, size_t ulen, const char *what,
                           char *why, size_t whylen)
{
    num_t n;
    if (num_lex(s, &n, why, whylen) < 0)
        return -1;
    if (n.neg)
        return why_set(why, whylen, "a %s must not be negative", what);
    if (strlen(n.end) >= ulen)
        return why_set(why, whylen, "unexpected '%s' after the number", n.end);
    unit_text(n.end, u, ulen);
    return num_to_double(&n, v, why, whylen);
}

int unit_parse_time(const char *s, unit_time_t *out, char *why, size_t whylen)
{
    static const struct {
        const char *name;
        double to_ns; /* 0: cycles */
    } units[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"cycles", 0}, {"cycle", 0}};
    double v = 0;
    char u[32];
    if (parse_with_unit(s, &v, u, sizeof(u), "time", why, whylen) < 0)
        return -1;
    if (u[0] == '\0')
        return why_set(why, whylen, "missing unit; use ns, us, ms, s or cycles");
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(u, units[i].name) == 0) {
            out->cycles = units[i].to_ns == 0;
            out->value = out->cycles ? v : v * units[i].to_ns;
            if (!isfinite(out->value))
                return why_set(why, whylen, "time out of range");
            return 0;
        }
    }
    return why_set(why, whylen, "unknown unit '%s'; use ns, us, ms, s or cycles", u);
}

int unit_parse_freq(const char *s, double *out_ghz, char *why, size_t whylen)
{
    double v = 0;
    char u[32];
    if (parse_with_unit(s, &v, u, sizeof(u), "frequency", why, whylen) < 0)
        return -1;
    double ghz;
    if (strcmp(u, "GHz") == 0)
        ghz = v;
    else if (strcmp(u, "MHz") == 0)
        ghz = v / 1e3;
    else if (u[0] == '\0')
        return why_set(why, whylen, "missing unit; use GHz or MHz");
    else
        return why_set(why, whylen, "unknown unit '%s'; use GHz or MHz", u);
    if (!(ghz > 0))
        return why_set(why, whylen, "a frequency must be positive");
    *out_ghz = ghz;
    return 0;
}

int unit_parse_bw(const char *s, unit_bw_t *out, char *why, size_t whylen)
{
    double v = 0;
    char u[32];
    if (parse_with_unit(s, &v, u, sizeof(u), "bandwidth", why, whylen) < 0)
        return -1;
    if (strcmp(u, "B/cycle") == 0) {
        out->value = v;
        out->per_cycle = true;
        return 0;
    }
    size_t ul = strlen(u);
    if (ul > 2 && strcmp(u + ul - 2, "/s") == 0) {
        char pre[32];
        memcpy(pre, u, ul - 2);
        pre[ul - 2] = '\0';
        unsigned shift = 0;
        /* B/s, KB/s, KiB/s, MB/s, MiB/s, GB/s, GiB/s, TB/s, TiB/s (exact case) */
        static const size_unit_t bw_units[] = {{"B", 0},    {"KB", 10},  {"KiB", 10},
                                               {"MB", 20},  {"MiB", 20}, {"GB", 30},
                                               {"GiB", 30}, {"TB", 40},  {"TiB", 40}};
        for (size_t i = 0; i < sizeof(bw_units) / sizeof(bw_units[0]); i++) {
            if (strcmp(pre, bw_units[i].name) == 0) {
                shift = bw_units[i].shift;
                out->value = ldexp(v, (int)shift);
                out->per_cycle = false;
                if (!isfinite(out->value))
                    return why_set(why, whylen, "bandwidth out of range");
                return 0;
            }
        }
    }
    if (u[0] == '\0')
        return why_set(why, whylen, "missing unit; use GB/s (= GiB/s, binary), MB/s or B/cycle");
    return why_set(why, whylen, "unknown unit '%s'; use GB/s (= GiB/s, binary), MB/s or B/cycle",
                   u);
}

/* ---- plain numbers -------------------------------------------------------- */

int unit_parse_u64(const char *s, uint64_t *out, char *why, size_t whylen)
{
    num_t n;
    if (num_lex(s, &n, why, whylen) < 0)
        return -1;
    if (*n.end != '\0') {
        char u[32];
        unit_text(n.end, u, sizeof(u));
        if (u[0] != '\0' || strlen(n.end) >= sizeof(u))
            return why_set(why, whylen, "unexpected '%s' after the number", u);
    }
    if (n.neg)
        return why_set(why, whylen, "must not be negative");
    if (n.has_frac || n.has_exp)
        return why_set(why, whylen, "must be a whole number");
    const char *digits = n.text + (n.text[0] == '+' ? 1 : 0);
    char *endp = NULL;
    errno = 0;
    unsigned long long v = strtoull(digits, &endp, n.hex ? 16 : 10);
    if (errno == ERANGE)
        return why_set(why, whylen, "too large (more than 2^64-1)");
    if (errno != 0 || endp == digits || *endp != '\0')
        return why_set(why, whylen, "'%s' is not a whole number", n.text);
    *out = (uint64_t)v;
    return 0;
}

int unit_parse_double(const char *s, double *out, char *why, size_t whylen)
{
    num_t n;
    if (num_lex(s, &n, why, whylen) < 0)
        return -1;
    if (*n.end != '\0') {
        char u[32];
        unit_text(n.end, u, sizeof(u));
        if (u[0] != '\0' || strlen(n.end) >= sizeof(u))
            return why_set(why, whylen, "unexpected '%s' after the number", u);
    }
    return num_to_double(&n, out, why, whylen);
}
