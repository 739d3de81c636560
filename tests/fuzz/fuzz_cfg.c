/*
 * fuzz_cfg.c - libFuzzer target for the machine-file loader
 * (cfg_machine_load_string, sim/cfg.c).
 *
 * Notes
 *  - The input is the YAML text. It is loaded under the name "fuzz", so a
 *    file that is to load must say `name: fuzz` (the corpus seeds do).
 *  - Besides crashes, hangs, leaks and UB (ASan + UBSan), it checks the
 *    contracts of cfg.h and aborts when one is broken:
 *      - a failure sets a non-empty, one-line message that starts with the
 *        file name;
 *      - a machine that loads has the geometry the cross-checks promise: a
 *        power-of-two line and set count, size = sets x ways x line, l2
 *        larger than l1, a positive frequency.
 *  - A machine that loads is then given one small prediction (a 16 KiB
 *    memset through the default function for its ISA; an 8 KiB-page mmap),
 *    so that odd but accepted parameters reach the model too. A run that
 *    fails must say why; one that succeeds must give finite numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/cli.h"
#include "sim/run.h"
#include "sim/workload.h"

static void check(int ok)
{
    if (!ok)
        abort();
}

static int pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static void check_cache(const cfg_cache_t *c)
{
    check(pow2(c->line_bytes) && pow2(c->sets) && c->ways >= 1);
    check((uint64_t)c->sets * c->ways * c->line_bytes == c->size_bytes);
}

static void predict(const cfg_machine_t *m, wl_kind_t kind)
{
    static run_result_t res;
    wl_spec_t s;
    run_opts_t o;
    char err[512] = "";
    wl_spec_init(&s);
    run_opts_init(&o);
    s.kind = kind;
    s.size_bytes = kind == WL_MMAP ? 8192 : 16384;
    snprintf(s.function, sizeof s.function, "%s", cli_default_function(m));
    s.caller = cli_default_caller(kind);
    if (wl_validate(&s, m, err, sizeof err) != 0) {
        check(err[0] != '\0');
        return;
    }
    memset(&res, 0, sizeof res);
    if (run_predict(m, &s, &o, &res, err, sizeof err) != 0) {
        check(err[0] != '\0' && strchr(err, '\n') == NULL);
        return;
    }
    check(res.bytes == s.size_bytes);
    check(isfinite(res.seconds) && res.seconds >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cfg_error_t err;
    memset(&err, 0x55, sizeof err); /* the loader must set it, not rely on us */
    cfg_machine_t *m = cfg_machine_load_string((const char *)data, size, "fuzz", &err);
    if (!m) {
        check(memchr(err.msg, '\0', sizeof err.msg) != NULL);
        check(strncmp(err.msg, "fuzz", 4) == 0);
        check(strchr(err.msg, '\n') == NULL);
        return 0;
    }
    check(strcmp(m->name, "fuzz") == 0);
    check(isfinite(m->freq_ghz) && m->freq_ghz > 0);
    check_cache(&m->l1);
    check_cache(&m->l2);
    check(m->l2.size_bytes > m->l1.size_bytes);
    if (m->l3.present) {
        check_cache(&m->l3);
        check(m->l3.size_bytes > m->l2.size_bytes);
    }
    predict(m, WL_MEMSET);
    predict(m, WL_MMAP);
    cfg_machine_destroy(m);
    return 0;
}
