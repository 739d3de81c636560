/*
 * test_xc_gains.c - `clearsim crosscheck --gains` without a host or a model
 * run (sim/study/xc_gains.c, sim/study/link_shares.c): the zero-line
 * shares and the bus it takes from a pass's probes, each gain's native
 * range, model mean and verdict over a study filled in by hand, and the
 * cases xcg_build makes for a host stub (the widest vector NT store; a
 * study too small for them fails, at its size - 1, and holds them at it).
 *
 * Notes
 *  - Expectations are written out by hand. The verdict's edge is the native
 *    range widened by XCG_TOLERANCE (15%) each way: a model mean a hair
 *    under hi x 1.15 is within, one a hair above it is not.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/study/host_miss.h"
#include "sim/study/link_shares.h"
#include "sim/study/xc_gains.h"
#include "kernels/kernels.h"
#include "tiny_machine.h"

/* the data probe over the zero probe, at most 1; 1 when a probe is unknown */
static void test_zero_data_share(void **state)
{
    (void)state;
    assert_true(fabs(lshare_zero_data(22.0, 24.0) - 22.0 / 24.0) < 1e-12);
    assert_true(fabs(lshare_zero_data(30.0, 60.0) - 0.5) < 1e-12);
    assert_true(lshare_zero_data(24.0, 24.0) == 1.0);
    assert_true(lshare_zero_data(25.0, 24.0) == 1.0); /* zeros slower: no discount */
    assert_true(lshare_zero_data(0.0, 24.0) == 1.0);
    assert_true(lshare_zero_data(22.0, 0.0) == 1.0);
    assert_true(lshare_zero_data(22.0, NAN) == 1.0);
}

/* the read and data probes together, or twice the data fill when that is
 * less; 0 (the file's bus) when the read or the data probe is unknown */
static void test_bus(void **state)
{
    (void)state;
    assert_true(fabs(lshare_bus_gib(30.25, 31.33, 0) - 61.58) < 1e-12);
    assert_true(fabs(lshare_bus_gib(22.0, 17.5, NAN) - 39.5) < 1e-12);
    assert_true(lshare_bus_gib(0.0, 17.5, 10) == 0.0);
    assert_true(lshare_bus_gib(22.0, 0.0, 10) == 0.0);
    assert_true(lshare_bus_gib(NAN, 17.5, 10) == 0.0);
    assert_true(lshare_bus_gib(22.0, NAN, 10) == 0.0);
    /* the Zen 5 guest's fill_bus.sh pass 0: reads 32.45, NT data 35.02, the
     * AVX-512 fill 23.51: 47.02, under the links' 67.47 */
    assert_true(fabs(lshare_bus_gib(32.45, 35.02, 23.51) - 47.02) < 1e-12);
    /* at the threshold: a fill of half the links' sum gives their sum; a hair
     * under, twice itself */
    assert_true(fabs(lshare_bus_gib(30.0, 34.0, 32.0) - 64.0) < 1e-12);
    assert_true(fabs(lshare_bus_gib(30.0, 34.0, 31.99) - 63.98) < 1e-12);
    assert_true(fabs(lshare_bus_gib(30.0, 34.0, 40.0) - 64.0) < 1e-12);
}

/* a written-back line of zeros from the fills, each a line read and one
 * written back on one bus: 2 x data / zeros - 1, within 0.02..1; the NT
 * probes' share when a fill is unknown */
static void test_zero_writeback_share(void **state)
{
    (void)state;
    /* the Zen 5 guest's fill_bus.sh: data 25, zeros 31: 50 / 31 - 1 */
    assert_true(fabs(lshare_zero_writeback(25.0, 31.0, 0.5) - (50.0 / 31.0 - 1)) < 1e-12);
    /* the Zen 3 guest's: data 13.5, zeros 13.9: about 1 */
    assert_true(fabs(lshare_zero_writeback(13.5, 13.9, 0.45) - (27.0 / 13.9 - 1)) < 1e-12);
    /* fills alike: as data (1); zeros slower: no discount */
    assert_true(lshare_zero_writeback(20.0, 20.0, 0.5) == 1.0);
    assert_true(lshare_zero_writeback(20.0, 19.0, 0.5) == 1.0);
    /* the key's floor: at zeros = 2 x data / 1.02 it is 0.02; past it, held */
    assert_true(fabs(lshare_zero_writeback(10.2, 20.0, 0.5) - 0.02) < 1e-12);
    assert_true(lshare_zero_writeback(10.0, 20.0, 0.5) == 0.02);
    /* a fill unknown: the NT probes' share */
    assert_true(lshare_zero_writeback(0.0, 31.0, 0.7) == 0.7);
    assert_true(lshare_zero_writeback(25.0, 0.0, 0.7) == 0.7);
    assert_true(lshare_zero_writeback(25.0, NAN, 0.7) == 0.7);
}

/* The host page's miss: a 4 KiB page at 32 GiB/s takes 4096 / 32 GiB/s =
 * 119.209 ns, at 64 GiB/s 59.605; less 18.8 ns of issue, 100.409 ns. A plain
 * probe within XCG_HOST_NOISE (5%) of its twin paid none (4% slower: 0; 6%
 * slower: its page time less the issue), and issue longer than the page
 * time leaves none. */
static void test_host_miss(void **state)
{
    (void)state;
    assert_true(fabs(hostmiss_ns(32, 64, 18.8) - (4096.0 / 32 / 1073741824 * 1e9 - 18.8)) < 1e-9);
    assert_true(fabs(hostmiss_ns(32, 64, 18.8) - 100.409) < 1e-3);
    assert_true(fabs(hostmiss_page_ns(32) - 119.209) < 1e-3);
    assert_true(hostmiss_page_ns(0) == 0 && hostmiss_page_ns(-1) == 0);
    assert_true(hostmiss_ns(64 / 1.04, 64, 18.8) == 0);
    assert_true(fabs(hostmiss_ns(64 / 1.06, 64, 18.8) - (59.6046 * 1.06 - 18.8)) < 1e-3);
    assert_true(hostmiss_ns(32, 64, 200) == 0);
    assert_true(hostmiss_ns(0, 64, 18.8) == 0);
    assert_true(hostmiss_ns(32, NAN, 18.8) == 0);
    /* the data probes deny it when the plain one runs more than 5% faster
     * than its twin (a page 4% shorter: not denied; 6%: denied), never when
     * slower or tied; the Zen 3 guest's 20:55 pass 2: 20.61 against 18.92 */
    assert_false(hostmiss_denied(18.0 * 1.04, 18.0));
    assert_true(hostmiss_denied(18.0 * 1.06, 18.0));
    assert_false(hostmiss_denied(18.0, 18.0));
    assert_false(hostmiss_denied(17.0, 34.75)); /* the Zen 5 guest: plain data under its twin */
    assert_true(hostmiss_denied(20.61, 18.92));
    assert_false(hostmiss_denied(0, 18.0));
    assert_false(hostmiss_denied(20.0, NAN));
}

static xcg_case_t *put(xcg_study_t *st, xcg_role_t role, const char *id, const char *fn,
                       uint32_t fill)
{
    xcg_case_t *c = &st->cs[st->n++];
    memset(c, 0, sizeof *c);
    c->role = role;
    snprintf(c->id, sizeof c->id, "%s", id);
    wl_spec_init(&c->spec);
    snprintf(c->spec.function, sizeof c->spec.function, "%s", fn);
    c->spec.fill = fill;
    return c;
}

static void test_gains(void **state)
{
    (void)state;
    static xcg_study_t st;
    memset(&st, 0, sizeof st);
    st.passes = 2;
    put(&st, XCG_PROBE_READ, "probe-read", "load64", 0);
    put(&st, XCG_PROBE_WRITE, "probe-write", "avx512_nt", 0x5a);
    put(&st, XCG_PROBE_ZERO, "probe-zero", "avx512_nt", 0);
    xcg_case_t *base = put(&st, XCG_BASE, "page-rep_stosb", "rep_stosb", 0);
    xcg_case_t *a = put(&st, XCG_WAY, "extent-clzero", "clzero", 0);
    xcg_case_t *b = put(&st, XCG_WAY, "extent-movnti", "movnti", 0);
    xcg_case_t *nt = put(&st, XCG_WAY, "extent-avx512_nt", "avx512_nt", 0);
    /* native base 20 and 16; the model's 20 and 20 */
    base->native_gib[0] = 20, base->native_gib[1] = 16;
    base->model_gib[0] = 20, base->model_gib[1] = 20;
    base->model_file_gib = 25;
    /* clzero: native gains 2.0 and 2.5 -> range 2.0..2.5; the model's 2.5 and 3.248 -> mean
     * 2.874, a thousandth under the edge 2.5 x 1.15 = 2.875: within */
    a->native_gib[0] = 40, a->native_gib[1] = 40;
    a->model_gib[0] = 50, a->model_gib[1] = 64.96;
    a->model_file_gib = 100;
    /* movnti: native 1.0 and 1.25 -> 1.0..1.25; model 1.4375 and 1.4376 -> mean 1.43755, a
     * hair over the edge 1.25 x 1.15 = 1.4375: outside */
    b->native_gib[0] = 20, b->native_gib[1] = 20;
    b->model_gib[0] = 28.75, b->model_gib[1] = 28.752;
    b->model_file_gib = 50;
    /* avx512_nt: the zero probe's kernel and fill: not judged, whatever its verdict */
    nt->native_gib[0] = 24, nt->native_gib[1] = 24;
    nt->model_gib[0] = 24, nt->model_gib[1] = 24;
    nt->model_file_gib = 75;

    xcg_gain_t g[XCG_CASES_MAX];
    size_t n = xcg_gains(&st, g, XCG_CASES_MAX);
    assert_int_equal(n, 3);
    assert_ptr_equal(g[0].way, a);
    assert_true(fabs(g[0].native_lo - 2.0) < 1e-12 && fabs(g[0].native_hi - 2.5) < 1e-12);
    assert_true(fabs(g[0].model_lo - 2.5) < 1e-12 && fabs(g[0].model_hi - 3.248) < 1e-12);
    assert_true(fabs(g[0].model_mean - 2.874) < 1e-12);
    assert_true(fabs(g[0].model_file - 4.0) < 1e-12);
    assert_true(g[0].within);
    assert_false(g[0].probe_set);
    assert_ptr_equal(g[1].way, b);
    assert_true(fabs(g[1].native_lo - 1.0) < 1e-12 && fabs(g[1].native_hi - 1.25) < 1e-12);
    assert_false(g[1].within);
    assert_false(g[1].probe_set);
    assert_ptr_equal(g[2].way, nt);
    assert_true(g[2].probe_set);
    assert_true(fabs(g[2].native_lo - 1.2) < 1e-12 && fabs(g[2].native_hi - 1.5) < 1e-12);
    assert_true(fabs(g[2].model_mean - 1.2) < 1e-12);
    assert_true(g[2].within);

    /* the same kernel with data is not the zero probe's way */
    nt->spec.fill = 0x5a;
    n = xcg_gains(&st, g, XCG_CASES_MAX);
    assert_int_equal(n, 3);
    assert_false(g[2].probe_set);
    /* room for fewer gains than there are ways */
    assert_int_equal(xcg_gains(&st, g, 1), 1);
}

/* ------------------------------------------------------------ the cases */

/* A host stub: an x86-64 KVM guest with THP on madvise and the given
 * features, so that the cases depend on them and not on this machine (but
 * for CLZERO, whose native kernel asks the running CPU for its line). */
static void stub_host(host_info_t *h, uint32_t features)
{
    memset(h, 0, sizeof *h);
    h->isa = MACHINE_ISA_X86_64;
    strcpy(h->vendor, "amd");
    strcpy(h->model_name, "a stub host");
    h->features = features;
    h->ncpus = 2;
    h->hypervisor = true;
    strcpy(h->thp_mode, "madvise");
}

static const xcg_case_t *find_case(const xcg_study_t *st, const char *id)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->cs[i].id, id) == 0)
            return &st->cs[i];
    return NULL;
}

#define X86_ALL                                                                                    \
    (MACHINE_FEAT_ERMS | MACHINE_FEAT_REP_GOOD | MACHINE_FEAT_AVX2 | MACHINE_FEAT_AVX512 |         \
     MACHINE_FEAT_SSE2 | MACHINE_FEAT_CLZERO)

/* Of the vector non-temporal stores (32 B or more a store), the probes and
 * the ways take the widest both the host and the machine run: avx512_nt
 * where both have AVX-512, else avx2_nt; never both. MOVNTI stays a way. */
static void test_build_widest_nt(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip(); /* the cases are x86-64 kernels, built natively only there */
#else
    static xcg_study_t st;
    host_info_t h;
    machine_t m;
    char why[256] = "";
    const bool clzero = kern_native_block_bytes() == 64; /* the running CPU's */
    static const struct {
        uint32_t host, machine;
        const char *nt, *other, *fill;
    } rows[] = {
        {X86_ALL, X86_ALL, "avx512_nt", "avx2_nt", "avx512"},
        {X86_ALL & ~MACHINE_FEAT_AVX512, X86_ALL & ~MACHINE_FEAT_AVX512, "avx2_nt", "avx512_nt",
         "avx2"},
        /* the host has AVX-512, the machine not: both must run it */
        {X86_ALL, X86_ALL & ~MACHINE_FEAT_AVX512, "avx2_nt", "avx512_nt", "avx2"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        stub_host(&h, rows[r].host);
        tiny_machine(&m);
        m.features = rows[r].machine;
        size_t n = xcg_build(&st, &m, &h, 64ull << 20, why, sizeof why);
        assert_true(n > 0);
        assert_int_equal(n, st.n);
        char id[48];
        snprintf(id, sizeof id, "extent-%s", rows[r].nt);
        assert_non_null(find_case(&st, id));
        snprintf(id, sizeof id, "extent-%s", rows[r].other);
        assert_null(find_case(&st, id));
        assert_non_null(find_case(&st, "extent-movnti"));
        assert_true((find_case(&st, "extent-clzero") != NULL) == clzero);
        assert_string_equal(find_case(&st, "probe-write")->spec.function, rows[r].nt);
        assert_string_equal(find_case(&st, "probe-zero-ahead")->spec.function,
                            r == 0 ? "avx512_nt_ahead" : "avx2_nt_ahead");
        assert_string_equal(find_case(&st, "probe-fill")->spec.function, rows[r].fill);
        assert_string_equal(find_case(&st, "probe-fill-zero")->spec.function, rows[r].fill);
        assert_string_equal(find_case(&st, "page-rep_stosb")->spec.function, "rep_stosb");
        /* 8 probes, 2 page-at-a-time, the base's extent, movnti, the vector NT (clzero) */
        assert_int_equal(n, 13 + (clzero ? 1 : 0));
    }
#endif
}

/* The study holds what it is built for, and says so when a case does not
 * fit: with room for exactly the host's cases they are all there; with one
 * less, none (0 and a reason), never one dropped. */
static void test_build_cap(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#else
    static xcg_study_t st;
    host_info_t h;
    machine_t m;
    char why[256] = "";
    stub_host(&h, X86_ALL);
    tiny_machine(&m);
    m.features = X86_ALL;
    size_t n = xcg_build(&st, &m, &h, 64ull << 20, why, sizeof why);
    assert_true(n >= 13 && n <= XCG_CASES_MAX); /* the most an x86-64 host makes fits */
    assert_int_equal(xcg_build_cap(&st, &m, &h, 64ull << 20, n, why, sizeof why), n);
    assert_false(st.full);
    why[0] = '\0';
    assert_int_equal(xcg_build_cap(&st, &m, &h, 64ull << 20, n - 1, why, sizeof why), 0);
    assert_int_equal(st.n, 0);
    char want[64];
    snprintf(want, sizeof want, "more cases than the study holds (%zu)", n - 1);
    assert_string_equal(why, want);
    assert_int_equal(xcg_build_cap(&st, &m, &h, 64ull << 20, 0, why, sizeof why), 0);
    assert_int_equal(xcg_build_cap(&st, &m, &h, 64ull << 20, XCG_CASES_MAX + 1, why, sizeof why),
                     0);
    /* a size not a whole number of folios, and no 2 MiB pages: reasons */
    assert_int_equal(xcg_build(&st, &m, &h, (64ull << 20) + 4096, why, sizeof why), 0);
    assert_non_null(strstr(why, "multiple of 2 MiB"));
    strcpy(h.thp_mode, "never");
    assert_int_equal(xcg_build(&st, &m, &h, 64ull << 20, why, sizeof why), 0);
    assert_non_null(strstr(why, "2 MiB pages"));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_data_share),
        cmocka_unit_test(test_bus),
        cmocka_unit_test(test_zero_writeback_share),
        cmocka_unit_test(test_host_miss),
        cmocka_unit_test(test_gains),
        cmocka_unit_test(test_build_widest_nt),
        cmocka_unit_test(test_build_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
