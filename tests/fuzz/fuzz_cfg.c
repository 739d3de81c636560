/*
 * fuzz_cfg.c - libFuzzer target for the machine-file loader
 * (cfg_machine_load_string, sim/machine/cfg_load.c).
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
 *  - A machine that loads is then given small predictions, so that odd but
 *    accepted parameters reach the model too: a 16 KiB memset through the
 *    default function for its ISA, the same in 4 KiB chunks through a
 *    function picked by a hash of the input, and an 8 KiB mmap (page and
 *    extent callers). A run that fails must say why; one that succeeds must
 *    give finite numbers and clear exactly the bytes asked for.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "sim/machine/cfg.h"
#include "sim/cli/options.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"

static void check(int ok)
{
    if (!ok)
        abort();
}

static int pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static void check_cache(const machine_cache_t *c)
{
    check(pow2(c->line_bytes) && pow2(c->sets) && c->ways >= 1);
    check((uint64_t)c->sets * c->ways * c->line_bytes == c->size_bytes);
}

static void predict(const machine_t *m, wl_kind_t kind, const char *function, wl_caller_t caller,
                    uint64_t chunk_bytes, uint32_t loops)
{
    static run_result_t res;
    wl_spec_t s;
    run_opts_t o;
    char err[512] = "";
    wl_spec_init(&s);
    run_opts_init(&o);
    s.kind = kind;
    s.size_bytes = kind == WL_MMAP ? 8192 : 16384;
    s.chunk_bytes = chunk_bytes;
    s.loops = loops;
    snprintf(s.function, sizeof s.function, "%s", function);
    s.caller = caller;
    if (wl_validate(&s, m, err, sizeof err) != 0) {
        check(err[0] != '\0');
        return;
    }
    memset(&res, 0, sizeof res);
    if (run_predict(m, &s, &o, &res, err, sizeof err) != 0) {
        check(err[0] != '\0' && strchr(err, '\n') == NULL);
        return;
    }
    check(res.bytes == s.size_bytes * s.loops);
    check(isfinite(res.seconds) && res.seconds >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    memset(err, 0x55, sizeof err - 1); /* the loader must set it, not rely on us */
    machine_t *m = cfg_machine_load_string((const char *)data, size, "fuzz", err, sizeof err);
    if (!m) {
        check(memchr(err, '\0', sizeof err) != NULL);
        check(strncmp(err, "fuzz", 4) == 0);
        check(strchr(err, '\n') == NULL);
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
    /* a function picked by a hash of the input (FNV-1a) */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    const kern_info_t *kt = kern_table();
    size_t nk = 0;
    while (kt[nk].name)
        nk++;
    const char *dflt = point_default_function(m);
    predict(m, WL_MEMSET, dflt, WL_CALLER_CHUNKED, 0, 1);
    if (nk > 0)
        predict(m, WL_MEMSET, kt[h % nk].name, WL_CALLER_CHUNKED, 4096, 2);
    predict(m, WL_MMAP, dflt, WL_CALLER_PAGE, 0, 1);
    predict(m, WL_MMAP, dflt, WL_CALLER_EXTENT, 0, 1);
    cfg_machine_destroy(m);
    return 0;
}
