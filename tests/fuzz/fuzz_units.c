/*
 * fuzz_units.c - libFuzzer target for the value parsers of sim/machine/units.c.
 *
 * Notes
 *  - The input, cut at its first NUL, goes through every unit_parse_*
 *    function. Besides crashes, leaks and UB (ASan + UBSan), it checks the
 *    contracts of units.h and aborts when one is broken:
 *      - a failure sets a non-empty reason; a success leaves a finite value;
 *      - a size formats (unit_format_size) and parses back to itself;
 *      - a whole number that unit_parse_u64 accepts is the same number of
 *        bytes for unit_parse_size (a bare number is bytes), except a hex
 *        number whose last digit is B, which a size refuses as ambiguous
 *        (0x100000B: bytes, or the digit B?);
 *      - a time, a frequency or a bandwidth is never negative; a frequency
 *        is positive.
 *  - Inputs longer than 4 KiB are ignored: the parsers see option values and
 *    YAML scalars, and longer inputs only slow the fuzzer down.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/machine/units.h"

#define WHY_LEN 256

static void check(int ok)
{
    if (!ok)
        abort();
}

/* A failure must say why. */
static void check_why(int rc, const char *why)
{
    if (rc != 0)
        check(rc == -1 && why[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    char why[WHY_LEN];
    uint64_t bytes = 0;
    why[0] = '\0';
    int rc_size = unit_parse_size(s, &bytes, why, sizeof why);
    check_why(rc_size, why);
    char why_size[WHY_LEN];
    memcpy(why_size, why, sizeof why_size);
    if (rc_size == 0) {
        char buf[64], why2[WHY_LEN] = "";
        uint64_t back = 0;
        unit_format_size(bytes, buf, sizeof buf);
        check(unit_parse_size(buf, &back, why2, sizeof why2) == 0 && back == bytes);
    }

    uint64_t u = 0;
    why[0] = '\0';
    int rc = unit_parse_u64(s, &u, why, sizeof why);
    check_why(rc, why);
    if (rc == 0)
        check((rc_size == 0 && bytes == u) || (rc_size != 0 && strstr(why_size, "ambiguous")));

    double d = 0;
    why[0] = '\0';
    rc = unit_parse_double(s, &d, why, sizeof why);
    check_why(rc, why);
    if (rc == 0)
        check(isfinite(d));

    unit_time_t t = {0, false};
    why[0] = '\0';
    rc = unit_parse_time(s, &t, why, sizeof why);
    check_why(rc, why);
    if (rc == 0)
        check(isfinite(t.value) && t.value >= 0);

    double ghz = 0;
    why[0] = '\0';
    rc = unit_parse_freq(s, &ghz, why, sizeof why);
    check_why(rc, why);
    if (rc == 0)
        check(isfinite(ghz) && ghz > 0);

    unit_bw_t bw = {0, false};
    why[0] = '\0';
    rc = unit_parse_bw(s, &bw, why, sizeof why);
    check_why(rc, why);
    if (rc == 0)
        check(isfinite(bw.value) && bw.value >= 0);

    /* tiny buffers: the formatter must truncate, not overflow */
    char tiny[3];
    unit_format_size(bytes, tiny, sizeof tiny);
    check(strlen(tiny) < sizeof tiny);
    unit_format_size(bytes, tiny, 1);

    free(s);
    return 0;
}
