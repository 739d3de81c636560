/*
 * test_cfg.c - sim/machine/cfg_load.c and sim/machine/cfg_keys.c: the bundled machine files, good
 * and bad fixtures (tests/fixtures/good and bad/) with their exact error
 * positions, inline strings, resolving and listing machines, the key table,
 * and configs/README.md's generated key reference.
 *
 * Notes
 *  - Every expected value and error position is worked out by hand from the
 *    fixture text (line:col are 1-based; col points at the value, or at the
 *    key for unknown/duplicate keys, or at the parent section for a missing
 *    key).
 *  - `test_cfg --update-readme` rewrites the generated part of
 *    configs/README.md from the key table and exits.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/stats.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"

#define SRC        CLEARSIM_SOURCE_DIR
#define FIX        SRC "/tests/fixtures"
#define README     SRC "/configs/README.md"
#define BEGIN_MARK "<!-- BEGIN GENERATED KEYS -->\n"
#define END_MARK   "<!-- END GENERATED KEYS -->\n"

static const machine_pmu_map_t *pmu_find(const machine_t *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_pmu; i++)
        if (strcmp(m->pmu[i].name, name) == 0)
            return &m->pmu[i];
    return NULL;
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static machine_t *load_ok(const char *path)
{
    char err[512] = "";
    machine_t *m = cfg_machine_load(path, err, sizeof err);
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    return m;
}

static void test_zen3(void **state)
{
    (void)state;
    machine_t *m = load_ok(SRC "/configs/zen3-epyc-7j13.yaml");
    assert_string_equal(m->name, "zen3-epyc-7j13");
    assert_int_equal(m->isa, MACHINE_ISA_X86_64);
    assert_string_equal(m->vendor, "amd");
    assert_int_equal(m->family, 0x19);
    assert_int_equal(m->model, 1);
    assert_string_equal(m->model_name, "AMD EPYC 7J13 64-Core Processor");
    assert_int_equal(m->features, MACHINE_FEAT_ERMS | MACHINE_FEAT_FSRM | MACHINE_FEAT_CLZERO |
                                      MACHINE_FEAT_AVX2 | MACHINE_FEAT_SSE2 |
                                      MACHINE_FEAT_REP_GOOD);
    assert_true(m->freq_ghz == 2.42);
    /* 32 KiB / (8 x 64) = 64 sets; 512 KiB / (8 x 64) = 1024; 32 MiB / (16 x 64) = 32768 */
    assert_true(m->l1.size_bytes == 32768);
    assert_int_equal(m->l1.ways, 8);
    assert_int_equal(m->l1.line_bytes, 64);
    assert_int_equal(m->l1.sets, 64);
    assert_int_equal(m->l2.sets, 1024);
    assert_true(m->l3.present);
    assert_int_equal(m->l3.sets, 32768);
    assert_int_equal(m->l3.incl, MACHINE_INCL_VICTIM);
    assert_true(m->l1.present && m->l2.present);
    /* elide: the threshold is derived from its fraction of L3 (a fitted value) */
    assert_true(m->elide_enabled);
    assert_int_equal(m->elide_mode, MACHINE_ELIDE_REMAINING);
    assert_true(m->elide_threshold_fraction > 0);
    assert_true(m->elide_threshold_bytes ==
                (uint64_t)floor(m->elide_threshold_fraction * (double)m->l3.size_bytes + 0.5));
    assert_int_equal(m->elide_threshold_level, 3);
    assert_true(m->string_bpc == 31.44); /* same silicon: the Zen 3 guest's detect files */
    /* the startup by length of the same silicon (the Zen 3 guest's detect files) */
    assert_int_equal(m->n_startup, 4);
    assert_true(m->startup[0].len_bytes == 64);
    assert_true(m->startup[3].len_bytes == 4096);
    assert_true(m->startup[3].cycles == 59.2);
    assert_int_equal(m->lz_policy, MACHINE_LZ_MEMORY);
    assert_int_equal(m->zva_block_bytes, 64);
    /* 17.09 GiB/s at 2.42 GHz = 17.09 * 2^30 / 2.42e9 B/cycle */
    assert_true(near(m->mem_write_bpc, 17.09 * 1073741824.0 / 2.42e9));
    assert_true(m->mem_latency_ns == 104.2);
    assert_true(m->fault_2m_ns > 0); /* fitted: data/calibration/zen3-epyc-7j13.yaml */
    assert_int_equal(m->max_order_pages, 1024);
    assert_int_equal(m->memset_vec_bytes, 32);
    assert_true(m->memset_stosb_bytes == 0);
    assert_false(m->ws_enabled);
    /* pmu */
    assert_int_equal(m->n_pmu, 7);
    const machine_pmu_map_t *p = pmu_find(m, "L1-dcache-load-misses");
    assert_non_null(p);
    assert_true(p->supported);
    assert_int_equal(p->n_terms, 4);
    assert_int_equal(p->terms[0].event, ST_L1_FILLS_DEMAND);
    assert_int_equal(p->terms[1].event, ST_L1_FILLS_RFO);
    assert_int_equal(p->terms[2].event, ST_L1_FILLS_NOREAD);
    assert_int_equal(p->terms[3].event, ST_L1_PREFETCH);
    assert_true(p->terms[0].coef == 1.0);
    p = pmu_find(m, "L1-dcache-loads");
    assert_non_null(p);
    assert_int_equal(p->n_terms, 1);
    assert_int_equal(p->terms[0].event, ST_L1_ACCESSES);
    p = pmu_find(m, "LLC-loads");
    assert_non_null(p);
    assert_false(p->supported);
    assert_int_equal(p->n_terms, 0);
    assert_non_null(strstr(m->path, "configs/zen3-epyc-7j13.yaml"));
    cfg_machine_destroy(m);
}

static void test_graviton3(void **state)
{
    (void)state;
    machine_t *m = load_ok(SRC "/configs/graviton3.yaml");
    assert_string_equal(m->name, "graviton3");
    assert_int_equal(m->isa, MACHINE_ISA_ARM64);
    assert_int_equal(m->family, 0x41);
    assert_int_equal(m->model, 0xd40);
    assert_int_equal(m->features, MACHINE_FEAT_DCZVA);
    assert_true(m->freq_ghz == 2.6);
    /* 64 KiB / (4 x 64) = 256 sets; 1 MiB / (8 x 64) = 2048; 32 MiB / (16 x 64) = 32768 */
    assert_int_equal(m->l1.sets, 256);
    assert_int_equal(m->l2.sets, 2048);
    assert_true(m->l3.present);
    assert_int_equal(m->l3.sets, 32768);
    assert_int_equal(m->l2.mshrs, 92);
    assert_true(m->l1.latency_cycles == 4);
    /* fitted by calibrate --microbench to lat-dram (120 ns): within a percent of it */
    assert_true(fabs(m->mem_latency_ns / 120 - 1) < 0.01);
    assert_int_equal(m->mb_boost, MACHINE_BOOST_OFF);
    assert_true(m->n_mb >= 3 && m->n_mb_fit >= 2);
    assert_string_equal(m->mb_fit[0].key, "l2.latency");
    assert_int_equal(m->mb_fit[0].stage, 1);
    assert_true(m->mb_fit[0].range == 16); /* the default */
    assert_string_equal(m->mb[2].id, "lat-dram");
    assert_int_equal(m->mb[2].stage, 2);
    assert_true(m->ws_enabled);
    assert_int_equal(m->ws_enter_lines, 64);    /* WS_THR_L2 4 KB / 64 B */
    assert_true(m->ws_l2_bytes == 16384);       /* WS_THR_L3 16 KB */
    assert_true(m->ws_l3_bytes == 1024 * 1024); /* WS_THR_DRAM 1 MB */
    assert_int_equal(m->lz_policy, MACHINE_LZ_ALLOCATE);
    assert_int_equal(m->zva_block_bytes, 64);
    assert_int_equal(m->n_startup, 0);
    assert_false(m->elide_enabled);
    assert_true(m->memset_zva_bytes == 256);
    assert_int_equal(m->memset_vec_bytes, 32);
    assert_false(m->memset_mops);
    const machine_pmu_map_t *p = pmu_find(m, "L1-dcache-load-misses");
    assert_non_null(p);
    assert_int_equal(p->n_terms, 2);
    assert_int_equal(p->terms[0].event, ST_L1_FILLS_DEMAND);
    assert_int_equal(p->terms[1].event, ST_L1_FILLS_RFO);
    p = pmu_find(m, "dTLB-load-misses");
    assert_non_null(p);
    assert_int_equal(p->n_terms, 2);
    assert_int_equal(p->terms[1].event, ST_TLB_STORE_MISSES);
    cfg_machine_destroy(m);
}

/* Every bundled machine loads (new files included). */
static void test_all_bundled(void **state)
{
    (void)state;
    char names[64][MACHINE_NAME_MAX];
    size_t n = 0;
    char err[512] = "";
    unsetenv("CLEARSIM_CONFIGS");
    assert_int_equal(cfg_machine_list(names, 64, &n, err, sizeof err), 0);
    assert_true(n >= 2);
    for (size_t i = 0; i + 1 < n; i++)
        assert_true(strcmp(names[i], names[i + 1]) < 0);
    bool zen3 = false, g3 = false;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        assert_int_equal(cfg_machine_resolve(names[i], path, sizeof(path), err, sizeof err), 0);
        machine_t *m = load_ok(path);
        assert_string_equal(m->name, names[i]);
        cfg_machine_destroy(m);
        zen3 |= strcmp(names[i], "zen3-epyc-7j13") == 0;
        g3 |= strcmp(names[i], "graviton3") == 0;
    }
    assert_true(zen3 && g3);
}

static void test_good_minimal(void **state)
{
    (void)state;
    machine_t *m = load_ok(FIX "/good/minimal.yaml");
    /* defaults */
    assert_string_equal(m->description, "");
    assert_int_equal(m->features, 0);
    assert_false(m->l3.present);
    assert_int_equal(m->l3.sets, 0);
    assert_int_equal(m->l1.repl, MACHINE_REPL_LRU);
    assert_false(m->l1.prefetch.enabled);
    assert_int_equal(m->l1.prefetch.train_lines, 2);
    assert_int_equal(m->l2.prefetch.distance_lines, 8);
    assert_true(m->l2.prefetch.boundary_bytes == 4096);
    assert_true(m->line_zero_cycles == 1);
    assert_int_equal(m->n_startup, 0);
    assert_true(m->string_bpc == 0);
    assert_true(m->string_rfo);
    assert_false(m->elide_enabled);
    assert_int_equal(m->elide_threshold_level, 3);
    assert_int_equal(m->nt_partial, MACHINE_NT_PARTIAL_MASKED);
    assert_int_equal(m->lz_policy, MACHINE_LZ_ALLOCATE);
    assert_int_equal(m->zva_block_bytes, 64);
    assert_true(m->mem_zero_write_fraction == 1);
    assert_int_equal(m->mem_write_queue, 1);
    assert_true(m->populate_fraction == 1);
    assert_int_equal(m->tlb_entries_1g, 0);
    assert_int_equal(m->max_order_pages, 1024);
    assert_int_equal(m->n_pmu, 0);
    /* given values */
    assert_int_equal(m->store_buffer_entries, 48);
    assert_int_equal(m->store_width_bytes, 32);
    assert_true(m->fault_4k_ns == 1000);
    assert_true(m->fault_1g_ns == 100000);
    /* 20 GiB/s at 2 GHz = 20 * 2^30 / 2e9 = 10.73741824 B/cycle */
    assert_true(near(m->mem_read_bpc, 10.73741824));
    cfg_machine_destroy(m);
}

/* A host's measured clock replaces core.freq: values given in GB/s convert at
 * it (hand-computed), values in ns and cycles keep their stored units. */
static void test_load_at_clock(void **state)
{
    (void)state;
    char err[512] = "";
    machine_t *m = cfg_machine_load_at_clock(FIX "/good/minimal.yaml", 4.0, err, sizeof err);
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    assert_true(m->freq_ghz == 4.0);
    /* 20 GiB/s at 4 GHz = 20 * 2^30 / 4e9 = 5.36870912 B/cycle (10.737 at the file's 2 GHz) */
    assert_true(near(m->mem_read_bpc, 5.36870912));
    assert_true(m->fault_4k_ns == 1000);
    assert_true(m->mem_latency_ns == 100);
    cfg_machine_destroy(m);
    m = cfg_machine_load_at_clock(FIX "/good/minimal.yaml", 0, err, sizeof err); /* 0: the file's */
    assert_non_null(m);
    assert_true(m->freq_ghz == 2.0);
    cfg_machine_destroy(m);
    /* an override outside the key's bounds is an error, not a silent clamp */
    assert_null(cfg_machine_load_at_clock(FIX "/good/minimal.yaml", 50.0, err, sizeof err));
    assert_non_null(strstr(err, "core.freq"));
    assert_non_null(strstr(err, "clock override"));
}

/* --set: an override passes through the key table as the file's own value
 * would (bounds, cross-checks, the clock's conversions), is located by the
 * option, and is kept on the machine for reloads. */
static void test_load_set(void **state)
{
    (void)state;
    char err[512] = "";
    const char *two[] = {"core.freq=4GHz", "l2.mshrs=7"};
    machine_t *m = cfg_machine_load_set(FIX "/good/minimal.yaml", 0, two, 2, err, sizeof err);
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    assert_true(m->freq_ghz == 4.0);
    assert_int_equal(m->l2.mshrs, 7);
    /* the file's 20 GiB/s at 4 GHz (as cfg_machine_load_at_clock): 5.36870912 B/cycle */
    assert_true(near(m->mem_read_bpc, 5.36870912));
    assert_int_equal(m->n_set, 2);
    assert_string_equal(m->set[1], "l2.mshrs=7");
    /* a reload keeps the overrides; its clock wins over the override's */
    machine_t *r = cfg_machine_reload(m, 2.0, err, sizeof err);
    assert_non_null(r);
    assert_true(r->freq_ghz == 2.0);
    assert_int_equal(r->l2.mshrs, 7);
    assert_true(near(r->mem_read_bpc, 10.73741824));
    cfg_machine_destroy(r);
    /* apply: replaces the machine; n 0 keeps it */
    machine_t *keep = m;
    assert_int_equal(cfg_machine_apply_set(&m, two, 0, err, sizeof err), 0);
    assert_ptr_equal(m, keep);
    const char *one[] = {"l2.mshrs=9"};
    assert_int_equal(cfg_machine_apply_set(&m, one, 1, err, sizeof err), 0);
    assert_int_equal(m->l2.mshrs, 9);
    assert_true(m->freq_ghz == 2.0); /* the file's clock: the old overrides are gone */
    cfg_machine_destroy(m);

    /* bound at threshold-1 and at the threshold (l2.mshrs is 1..1024) */
    const char *lo[] = {"l2.mshrs=0"}, *ok[] = {"l2.mshrs=1"};
    assert_null(cfg_machine_load_set(FIX "/good/minimal.yaml", 0, lo, 1, err, sizeof err));
    assert_non_null(strstr(err, "--set l2.mshrs=0: l2.mshrs: 0: must be between 1 and 1024"));
    m = cfg_machine_load_set(FIX "/good/minimal.yaml", 0, ok, 1, err, sizeof err);
    assert_non_null(m);
    cfg_machine_destroy(m);
    /* a cross-check against the file's values names the option too */
    const char *small[] = {"l2.size=1KiB"};
    assert_null(cfg_machine_load_set(FIX "/good/minimal.yaml", 0, small, 1, err, sizeof err));
    assert_non_null(strstr(err, "--set l2.size=1KiB: "));
    /* the form: unknown keys (with a suggestion), sections, no '=' */
    assert_int_equal(cfg_set_check("l2.mshr=3", err, sizeof err), -1);
    assert_non_null(strstr(err, "did you mean 'l2.mshrs'"));
    assert_int_equal(cfg_set_check("features=erms", err, sizeof err), -1);
    assert_non_null(strstr(err, "a list or a section"));
    assert_int_equal(cfg_set_check("l2.mshrs", err, sizeof err), -1);
    assert_int_equal(cfg_set_check("=3", err, sizeof err), -1);
    assert_int_equal(cfg_set_check("l2.mshrs=", err, sizeof err), -1);
    assert_int_equal(cfg_set_check("l2.mshrs=3", err, sizeof err), 0);
}

static void test_good_converted(void **state)
{
    (void)state;
    machine_t *m = load_ok(FIX "/good/converted.yaml");
    assert_string_equal(m->description, "converted: units, hex and expressions");
    assert_int_equal(m->features, MACHINE_FEAT_ERMS | MACHINE_FEAT_FSRM | MACHINE_FEAT_CLZERO |
                                      MACHINE_FEAT_SSE2);
    assert_int_equal(m->store_buffer_entries, 48); /* "0x30" */
    /* 2 ns at 2 GHz = 4 cycles; 400 cycles at 2 GHz = 200 ns; 20 ns = 40 cycles */
    assert_true(m->l1.latency_cycles == 4);
    assert_true(m->mem_latency_ns == 200);
    assert_true(m->l3.latency_cycles == 40);
    /* 2 GiB/s at 2 GHz = 2^31 / 2e9 B/cycle; 1024 MiB/s = 2^30 / 2e9 */
    assert_true(near(m->mem_read_bpc, 1.073741824));
    assert_true(near(m->mem_write_bpc, 0.536870912));
    /* startup: 10 ns = 20 cycles; 0x1000 = 4 KiB */
    assert_int_equal(m->n_startup, 3);
    assert_true(m->startup[0].len_bytes == 0 && m->startup[0].cycles == 20);
    assert_true(m->startup[1].len_bytes == 1024 && m->startup[1].cycles == 40);
    assert_true(m->startup[2].len_bytes == 4096 && m->startup[2].cycles == 50);
    assert_true(m->string_bpc == 32);
    /* elide: 0.5 x L2 (512 KiB) = 256 KiB */
    assert_true(m->elide_enabled);
    assert_int_equal(m->elide_mode, MACHINE_ELIDE_REMAINING);
    assert_true(m->elide_threshold_bytes == 262144);
    /* l3: 16 MiB / (16 x 64) = 16384 sets */
    assert_true(m->l3.present);
    assert_int_equal(m->l3.sets, 16384);
    assert_int_equal(m->l3.repl, MACHINE_REPL_RANDOM);
    assert_int_equal(m->l3.incl, MACHINE_INCL_VICTIM);
    assert_true(m->l3.prefetch.enabled && m->l3.prefetch.next_page);
    assert_int_equal(m->l3.prefetch.train_lines, 3);
    assert_int_equal(m->l3.prefetch.degree_lines, 2);
    assert_int_equal(m->l3.prefetch.distance_lines, 12);
    assert_true(m->l3.prefetch.boundary_bytes == 2097152);
    assert_int_equal(m->lz_policy, MACHINE_LZ_MEMORY);
    assert_int_equal(m->zva_block_bytes, 64);
    /* pmu expressions */
    assert_int_equal(m->n_pmu, 6);
    const machine_pmu_map_t *p = pmu_find(m, "L1-dcache-load-misses");
    assert_non_null(p);
    assert_int_equal(p->n_terms, 2);
    assert_int_equal(p->terms[0].event, ST_L1_FILLS_RFO);
    assert_true(p->terms[0].coef == 2);
    assert_int_equal(p->terms[1].event, ST_L1_FILLS_DEMAND);
    assert_true(p->terms[1].coef == 1);
    p = pmu_find(m, "LLC-loads");
    assert_int_equal(p->n_terms, 1);
    assert_int_equal(p->terms[0].event, ST_L2_MISSES);
    assert_true(p->terms[0].coef == 0.5);
    assert_false(pmu_find(m, "LLC-load-misses")->supported);
    assert_false(pmu_find(m, "dTLB-load-misses")->supported);
    /* l1.misses - l1.noalloc + l1.misses*2: repeated events are merged (3, -1) */
    p = pmu_find(m, "l1-net");
    assert_int_equal(p->n_terms, 2);
    assert_int_equal(p->terms[0].event, ST_L1_MISSES);
    assert_true(p->terms[0].coef == 3);
    assert_int_equal(p->terms[1].event, ST_L1_NOALLOC);
    assert_true(p->terms[1].coef == -1);
    cfg_machine_destroy(m);
}

/* Bad fixture files: the expected message, from the file name on. */
typedef struct bad_file {
    const char *file; /* tests/fixtures/bad/<file>.yaml */
    const char *want; /* substring of err after "<dir>/bad/" */
} bad_file_t;

static const bad_file_t bad_files[] = {
    {"unknown-key", "unknown-key.yaml:15:20: l2.wayz: 8: unknown key 'l2.wayz' (did you mean "
                    "'l2.ways'?)"},
    {"duplicate-key", "duplicate-key.yaml:10:3: core.store_width: 16B: duplicate key (first "
                      "given at line 8:3)"},
    {"wrong-type", "wrong-type.yaml:14:25: l1.ways: (mapping): expected a whole number, got a "
                   "mapping"},
    {"scalar-section", "scalar-section.yaml:13:5: wc: 8: expected a mapping of keys under 'wc', "
                       "got a scalar"},
    {"missing-required", "missing-required.yaml:15:1: l2.ways: (missing): required key not given"},
    {"missing-section", "missing-section.yaml:2:1: tlb.entries_4k: (missing): required key not "
                        "given"},
    {"l3-no-inclusion", "l3-no-inclusion.yaml:20:1: l3.inclusion: (missing): required key not "
                        "given"},
    {"null-value", "null-value.yaml:14:25: l1.ways: ~: a value is required"},
    {"sets-not-pow2", "sets-not-pow2.yaml:15:12: l2.size: 384KiB: gives 768 sets"},
    {"ways-gt-lines", "ways-gt-lines.yaml:14:24: l1.ways: 32: more ways than lines (1KiB holds 16 "
                      "lines of 64 B)"},
    {"ways-zero", "ways-zero.yaml:14:25: l1.ways: 0: must be between 1 and 64"},
    {"negative-size", "negative-size.yaml:14:12: l1.size: -32KiB: a size must not be negative"},
    {"absurd-size", "absurd-size.yaml:15:12: l2.size: 1EB: must be between 1KiB and 1TiB"},
    {"size-overflow", "size-overflow.yaml:15:12: l2.size: 18446744073709551617B: too large"},
    {"bad-unit", "bad-unit.yaml:14:12: l1.size: 32KX: unknown unit 'KX'"},
    {"time-no-unit", "time-no-unit.yaml:14:48: l1.latency: 4: missing unit"},
    {"ns-range", "ns-range.yaml:14:48: l1.latency: 2000ns: 4000 cycles at 2 GHz; must be between "
                 "0.5 cycles and 2000 cycles"},
    {"freq-range", "freq-range.yaml:6:9: core.freq: 20GHz: must be between 0.1 GHz and 10 GHz"},
    {"bool-yes", "bool-yes.yaml:20:15: string.rfo: yes: must be true or false"},
    {"enum-bad", "enum-bad.yaml:14:52: l1.replacement: fifo: must be one of: lru,plru,random"},
    {"hex-fraction", "hex-fraction.yaml:9:17: core.store_buffer: 0x30.5: unexpected '.5'"},
    {"int-overflow", "int-overflow.yaml:13:15: wc.buffers: 18446744073709551616: too large"},
    {"startup-unsorted", "startup-unsorted.yaml:25:13: string.startup[1].len: 1KiB: entries must "
                         "be sorted by len"},
    {"startup-unknown-key", "startup-unknown-key.yaml:22:8: string.startup[0].lenn: 0: unknown key "
                            "'lenn'"},
    {"unknown-feature", "unknown-feature.yaml:4:18: features: avx1024: unknown feature 'avx1024'"},
    {"feature-wrong-isa", "feature-wrong-isa.yaml:4:18: features: dczva: an arm64 feature on an "
                          "x86_64 machine"},
    {"unknown-pmu-event", "unknown-pmu-event.yaml:22:20: pmu.L1-dcache-loads: l1.acesses: unknown "
                          "internal event 'l1.acesses'; did you mean 'l1.accesses'? the names are "
                          "stats_event_name() in models/stats.c"},
    {"pmu-bad-expr", "pmu-bad-expr.yaml:21:26: pmu.L1-dcache-load-misses: l1.fills_rfo +: expected "
                     "an internal event name at the end"},
    {"threshold-fraction", "threshold-fraction.yaml:21:46: string.elide.threshold_fraction: 20: "
                           "must be between 0 and 16"},
    {"elide-both", "elide-both.yaml:21:63: string.elide.threshold_fraction: 0.5: give "
                   "string.elide.threshold or string.elide.threshold_fraction, not both"},
    {"elide-no-l3", "elide-no-l3.yaml:21:3: string.elide.threshold_level: 3 (default): names l3, "
                    "which is not present"},
    {"line-mismatch", "line-mismatch.yaml:15:35: l2.line: 128B: must equal l1.line (64 B)"},
    {"size-order", "size-order.yaml:15:12: l2.size: 16KiB: must be larger than l1.size (32KiB)"},
    {"memory-faster-than-l2", "memory-faster-than-l2.yaml:16:19: memory.latency: 10ns: = 20 cycles "
                              "at 2 GHz; must be larger than the last cache level's latency (30 "
                              "cycles)"},
    {"erms-no-string", "erms-no-string.yaml:2:1: string.bytes_per_cycle: 0B/cycle (default): "
                       "required (> 0) when features include erms"},
    {"memset-vector", "memset-vector.yaml:19:25: libc.memset.vector: 24B: must be 16, 32 or 64"},
    {"ws-no-enter", "ws-no-enter.yaml:20:1: write_streaming.enter_lines: 0 (default): must be at "
                    "least 1"},
    {"name-mismatch", "name-mismatch.yaml:2:7: name: other: must equal the file's base name "
                      "'name-mismatch'"},
    {"multi-doc", "multi-doc.yaml:20:1: (top level): ---: more than one YAML document"},
    {"empty", "empty.yaml:1:1: (top level): (empty): empty file"},
    {"comment-only", "comment-only.yaml:1:1: (top level): (empty): empty file"},
    {"scalar-top", "scalar-top.yaml:1:1: (top level): just a sentence: expected a mapping of "
                   "machine keys, got a scalar"},
    {"sequence-top", "sequence-top.yaml:1:1: (top level): (sequence): expected a mapping of "
                     "machine keys, got a sequence"},
    {"not-yaml", "not-yaml.yaml:2:4: (yaml): (not YAML): did not find expected ',' or ']'"},
    {"tab-indent", "tab-indent.yaml:2:1: (yaml): (not YAML): found character that cannot start "
                   "any token"},
};

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/bad/%s.yaml", FIX, bad_files[i].file);
        char err[512] = "";
        machine_t *m = cfg_machine_load(path, err, sizeof err);
        const char *rel = strstr(err, "/bad/");
        bool ok = m == NULL && rel && strncmp(err, path, strlen(path)) == 0 &&
                  strstr(rel + 5, bad_files[i].want) == rel + 5;
        if (!ok)
            print_error("%s:\n  got  '%s'\n  want '.../bad/%s'\n", bad_files[i].file,
                        m ? "(loaded)" : err, bad_files[i].want);
        assert_null(m);
        assert_true(ok);
        /* one line */
        assert_null(strchr(err, '\n'));
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    char err[512] = "";
    assert_null(cfg_machine_load(FIX "/bad/does-not-exist.yaml", err, sizeof err));
    assert_string_equal(err, FIX "/bad/does-not-exist.yaml: cannot read: No such file or "
                                 "directory");
    assert_null(cfg_machine_load(FIX, err, sizeof err)); /* a directory */
    assert_non_null(strstr(err, "cannot read"));
}

/* Inline strings through cfg_machine_load_string. */
static const char inline_base[] =
    "name: inline\n"
    "isa: arm64\n"
    "identity: {vendor: arm, family: 0x41, model: 0xd40, model_name: V1}\n"
    "core: {freq: 2.5GHz, stores_per_cycle: 2, store_width: 16B, store_buffer: 64,\n"
    "       nt_store_cycles: 1cycles, insns_per_cycle: 4, call_cycles: 10cycles}\n"
    "wc: {buffers: 8}\n"
    "l1: {size: 64KiB, ways: 4, line: 64B, latency: 4cycles, mshrs: 16, bandwidth: 64B/cycle}\n"
    "l2: {size: 1MiB, ways: 8, line: 64B, latency: 12cycles, mshrs: 32, bandwidth: 32B/cycle}\n"
    "memory: {latency: 120ns, read_bandwidth: 20GB/s, write_bandwidth: 20GB/s,\n"
    "         combined_bandwidth: 20GB/s}\n"
    "tlb: {entries_4k: 2048, entries_2m: 2048, walk: 30cycles}\n"
    "os: {fault_4k: 1us, fault_2m: 5us, fault_1g: 100us}\n"
    "libc: {memset: {vector: 16}}\n";

typedef struct inline_case {
    const char *extra; /* appended to inline_base (line 14 on) */
    const char *want;  /* substring of err; NULL: must load */
} inline_case_t;

static const inline_case_t inline_cases[] = {
    {"", NULL},
    {"features: [dczva]\nwrite_streaming: {enabled: true, enter_lines: 4, l2: 4KiB}\n", NULL},
    {"features: [mops]\nstring: {startup: [{len: 0, cost: 20cycles}], bytes_per_cycle: "
     "64B/cycle}\n",
     NULL},
    {"features: [mops]\n", "inline.yaml:1:1: string.bytes_per_cycle: 0B/cycle (default): required"},
    {"features: [erms]\n", "inline.yaml:14:12: features: erms: an x86_64 feature on an arm64 "
                           "machine (isa: arm64)"},
    {"features: [dczva, dczva]\n", "inline.yaml:14:19: features: dczva: feature listed twice"},
    {"features: dczva\n", "inline.yaml:14:11: features: dczva: expected a sequence"},
    {"features: [dzcva]\n", "inline.yaml:14:12: features: dzcva: unknown feature 'dzcva'; did you "
                            "mean 'dczva'?"},
    {"pmu: [cycles]\n", "inline.yaml:14:6: pmu: (sequence): expected a mapping"},
    {"pmu: {cycles: cycles, cycles: instructions}\n",
     "inline.yaml:14:23: pmu.cycles: instructions: duplicate key"},
    {"pmu: {x: 0 * cycles}\n", "inline.yaml:14:10: pmu.x: 0 * cycles: coefficient of 'cycles' is "
                               "zero"},
    {"pmu: {x: cycles cycles}\n", "inline.yaml:14:10: pmu.x: cycles cycles: expected '+' or '-' "
                                  "before 'cycles'"},
    {"pmu: {x: [cycles]}\n", "inline.yaml:14:10: pmu.x: (sequence): expected null or an "
                             "expression"},
    {"pmu: {x: a+b+c+d+e+f+g}\n", "unknown internal event 'a'"},
    {"pmu: {x: cycles+loads+stores+rfo+fences+calls+faults}\n", "more than 6 terms"},
    {"libc: {memset: {vector: 16, rep_stosb_threshold: 2KiB}}\n",
     "inline.yaml:14:1: libc: (mapping): duplicate key (first given at line 13:1)"},
    {"string: {startup: [{len: 0}]}\n",
     "inline.yaml:14:20: string.startup[0].cost: (missing): required key not given"},
    {"string: {startup: [5]}\n",
     "inline.yaml:14:20: string.startup[0]: 5: each entry must be a mapping"},
    {"string: {startup: [{len: 0, cost: 5}]}\n",
     "inline.yaml:14:35: string.startup[0].cost: 5: missing unit"},
    {"string: {startup: [{len: 0, cost: 1ns, cost: 2ns}]}\n",
     "inline.yaml:14:40: string.startup[0].cost: 2ns: duplicate key"},
    {"write_streaming: {enabled: True}\n",
     "inline.yaml:14:28: write_streaming.enabled: True: must be true or false"},
    {"l3: {size: 8MiB, ways: 16, line: 64B, latency: 40cycles, mshrs: 64, bandwidth: 16B/cycle,\n"
     "     inclusion: exclusive}\n",
     "inline.yaml:15:17: l3.inclusion: exclusive: must be one of: inclusive,nine,victim"},
    {"l3: {size: 512KiB, ways: 16, line: 64B, latency: 40cycles, mshrs: 64,\n"
     "     bandwidth: 16B/cycle, inclusion: nine}\n",
     "inline.yaml:14:12: l3.size: 512KiB: must be larger than l2.size (1MiB)"},
    {"l3: {size: 8MiB, ways: 16, line: 64B, latency: 10cycles, mshrs: 64,\n"
     "     bandwidth: 16B/cycle, inclusion: nine}\n",
     "inline.yaml:14:48: l3.latency: 10cycles: must be larger than l2.latency (12 cycles)"},
    {"l4: {size: 1GiB}\n",
     "inline.yaml:14:1: l4: (mapping): unknown key 'l4' (did you mean 'l1'?)"},
    {"core.freq: 2GHz\n", "inline.yaml:14:1: core.freq: 2GHz: unknown key 'core.freq'; keys are "
                          "single names (write nested mappings)"},
    {"? [a, b]\n: 1\n", "inline.yaml:14:3: (top level): (sequence): keys must be plain names"},
    {"string: {elide: {enabled: true, threshold: 1KiB}}\n",
     "inline.yaml:14:44: string.elide.threshold: 1KiB: gives an elide threshold of 1KiB; below one "
     "4KiB page is not plausible"},
    {"tlb2: {walk: 1us}\n", "inline.yaml:14:1: tlb2: (mapping): unknown key 'tlb2' (did you mean "
                            "'tlb'?)"},
    /* microbenchmark figures; Little's law: 10 GiB/s at 120 ns needs 20 lines in flight, which
     * the 32 L2 miss slots carry; 40 GiB/s needs 80.5 (81), which they cannot (15.9 GiB/s at most)
     */
    {"microbench: {figures: [\n"
     "  {id: lat, workload: latency, size: 64MiB, ns_per_load: 120, source: measured},\n"
     "  {id: bw, workload: load, size: 64MiB, gbps: 10, source: measured}]}\n",
     NULL},
    {"microbench: {figures: [\n"
     "  {id: lat, workload: latency, size: 64MiB, ns_per_load: 120, source: measured},\n"
     "  {id: bw, workload: load, size: 64MiB, gbps: 40, source: measured}]}\n",
     "inline.yaml:8:64: l2.mshrs: 32: 32 L2 miss slots carry at most 15.9 GiB/s at the 120.0 ns "
     "of figure 'lat' (Little's law: lines in flight = bandwidth x latency / 64 B), but figure "
     "'bw' gives 40.0 GiB/s, which needs 81 lines in flight"},
    /* a figure below 4 x the last cache is not a DRAM figure: no check */
    {"microbench: {figures: [\n"
     "  {id: lat, workload: latency, size: 2MiB, ns_per_load: 120, source: measured},\n"
     "  {id: bw, workload: load, size: 2MiB, gbps: 40, source: measured}]}\n",
     NULL},
    {"microbench: {figures: [{id: a, workload: load, size: 64KiB, gbps: 10}]}\n",
     "inline.yaml:14:24: microbench.figures[0].source: (missing): required key not given"},
    {"microbench: {figures: [{id: a, workload: load, size: 64KiB, gbps: 1, ns_per_load: 2,\n"
     "  source: x}]}\n",
     "microbench.figures[0].gbps: (both): give exactly one of gbps and ns_per_load"},
    {"microbench: {figures: [{id: a, workload: load, size: 64KiB, gbps: 1, source: x, sizes: "
     "1}]}\n",
     "microbench.figures[0].sizes: 1: unknown key 'sizes' (did you mean 'size'?)"},
    {"microbench: {figures: [{id: a, workload: load, size: 64KiB, gbps: 1, source: x},\n"
     "  {id: a, workload: load, size: 1MiB, gbps: 1, source: x}]}\n",
     "microbench.figures[1].id: a: duplicate id (first at line 14)"},
    /* calibrate --microbench: fit keys and stages */
    {"microbench: {boost: on, fit: [{key: memory.latency, stage: 1}], figures: [\n"
     "  {id: lat, workload: latency, size: 64MiB, ns_per_load: 120, stage: 1, source: x}]}\n",
     NULL},
    {"microbench: {boost: sometimes}\n", "microbench.boost: sometimes"},
    {"microbench: {fit: [{key: memory.latncy, stage: 1}]}\n",
     "inline.yaml:14:26: microbench.fit[0].key: memory.latncy: unknown key"},
    {"microbench: {fit: [{key: l1.size, stage: 1}]}\n",
     "microbench.fit[0].key: l1.size: not a fittable key"},
    {"microbench: {fit: [{key: memory.latency, stage: 13}]}\n",
     "microbench.fit[0].stage: 13: must be between 1 and 12"},
    {"microbench: {fit: [{key: memory.latency, stage: 1.5}]}\n",
     "microbench.fit[0].stage: 1.5: expected a whole number"},
    {"microbench: {fit: [{key: memory.latency}]}\n",
     "microbench.fit[0].stage: (missing): required key not given"},
    {"microbench: {fit: [{key: memory.latency, stage: 1, rnage: 2}]}\n",
     "microbench.fit[0].rnage: 2: unknown key 'rnage'"},
    {"microbench: {fit: [{key: memory.latency, stage: 1}, {key: memory.latency, stage: 2}]}\n",
     "microbench.fit[1].key: memory.latency: duplicate key (first at line 14)"},
    /* a key whose stage no figure has, and a figure whose stage fits no key */
    {"microbench: {fit: [{key: memory.latency, stage: 2}], figures: [\n"
     "  {id: lat, workload: latency, size: 64MiB, ns_per_load: 120, stage: 1, source: x}]}\n",
     "inline.yaml:14:19: microbench.fit: (sequence): key 'memory.latency' (line 14) is fitted in "
     "stage 2, but no figure has stage: 2"},
    {"microbench: {fit: [{key: memory.latency, stage: 1}, {key: l2.latency, stage: 3}],\n"
     "  figures: [{id: lat, workload: latency, size: 64MiB, ns_per_load: 120, stage: 1,\n"
     "  source: x}]}\n",
     "key 'l2.latency' (line 14) is fitted in stage 3, but no figure has stage: 3"},
    {"microbench: {fit: [{key: memory.latency, stage: 1}], figures: [\n"
     "  {id: lat, workload: latency, size: 64MiB, ns_per_load: 120, stage: 1, source: x},\n"
     "  {id: l2, workload: latency, size: 512KiB, ns_per_load: 5, stage: 2, source: x}]}\n",
     "figure 'l2' (line 16) has stage: 2, but microbench.fit fits no key in stage 2"},
};

static void test_inline(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(inline_cases) / sizeof(inline_cases[0]); i++) {
        char text[4096];
        snprintf(text, sizeof(text), "%s%s", inline_base, inline_cases[i].extra);
        char err[512] = "";
        machine_t *m = cfg_machine_load_string(text, strlen(text), "inline.yaml", err, sizeof err);
        const char *want = inline_cases[i].want;
        bool ok = want ? (m == NULL && strstr(err, want) != NULL) : m != NULL;
        if (!ok)
            print_error("case %zu: got '%s', want '%s'\n", i, m ? "(loaded)" : err,
                        want ? want : "(loads)");
        assert_true(ok);
        if (m) {
            assert_string_equal(m->path, "inline.yaml");
            assert_false(m->l3.present);
        }
        cfg_machine_destroy(m);
    }
}

/* Marks of derived-value errors inside files with other layouts; and the ns <-> cycles
 * conversions of every time key through a non-integer clock. */
static void test_inline_values(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof(text), "%s%s", inline_base,
             "write_streaming: {enabled: true, enter_lines: 0x10, l2: 4KiB, l3: 0.5MiB}\n"
             "features: [dczva, mops]\n"
             "string: {startup: [{len: 0, cost: 20cycles}], bytes_per_cycle: 40GB/s}\n"
             "os: {fault_4k: 1us, fault_2m: 5us, fault_1g: 100us, resched: 250cycles}\n");
    /* os appears twice: fix by building without the base's os line */
    char *os = strstr(text, "os: {fault_4k: 1us, fault_2m: 5us, fault_1g: 100us}\n");
    assert_non_null(os);
    memmove(os, os + strlen("os: {fault_4k: 1us, fault_2m: 5us, fault_1g: 100us}\n"),
            strlen(os + strlen("os: {fault_4k: 1us, fault_2m: 5us, fault_1g: 100us}\n")) + 1);
    char err[512] = "";
    machine_t *m = cfg_machine_load_string(text, strlen(text), "dir/inline.yml", err, sizeof err);
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    assert_int_equal(m->ws_enter_lines, 16);
    assert_true(m->ws_l3_bytes == 524288);
    /* 40 GiB/s at 2.5 GHz = 40 * 2^30 / 2.5e9 B/cycle; 250 cycles at 2.5 GHz = 100 ns */
    assert_true(near(m->string_bpc, 40.0 * 1073741824.0 / 2.5e9));
    assert_true(near(m->resched_ns, 100.0));
    assert_int_equal(m->features, MACHINE_FEAT_DCZVA | MACHINE_FEAT_MOPS);
    cfg_machine_destroy(m);
}

/* description: 255 characters load, 256 do not (message shows the first 48 and "..."). */
static void test_string_length(void **state)
{
    (void)state;
    for (int len = 255; len <= 256; len++) {
        char text[4096], desc[300];
        for (int i = 0; i < len; i++)
            desc[i] = (char)('0' + i % 10);
        desc[len] = '\0';
        snprintf(text, sizeof(text), "%sdescription: \"%s\"\n", inline_base, desc);
        char err[512] = "";
        machine_t *m = cfg_machine_load_string(text, strlen(text), "inline.yaml", err, sizeof err);
        if (len == 255) {
            assert_non_null(m);
            assert_int_equal(strlen(m->description), 255);
        } else {
            assert_null(m);
            assert_string_equal(err, "inline.yaml:14:14: description: "
                                     "012345678901234567890123456789012345678901234567...: "
                                     "longer than 255 characters");
        }
        cfg_machine_destroy(m);
    }
}

static void test_resolve(void **state)
{
    (void)state;
    char path[512];
    char err[512] = "";
    unsetenv("CLEARSIM_CONFIGS");
    assert_string_equal(cfg_configs_dir(), SRC "/configs");
    assert_int_equal(cfg_machine_resolve("zen3-epyc-7j13", path, sizeof(path), err, sizeof err), 0);
    assert_string_equal(path, SRC "/configs/zen3-epyc-7j13.yaml");
    assert_int_equal(cfg_machine_resolve("nope", path, sizeof(path), err, sizeof err), -1);
    assert_non_null(strstr(err, "--machine nope: no machine named 'nope'"));
    assert_non_null(strstr(err, "; nearest names: "));
    assert_non_null(strstr(err, "clearsim machines"));
    assert_int_equal(cfg_machine_resolve("host", path, sizeof(path), err, sizeof err), -1);
    assert_non_null(strstr(err, "not a machine file name here"));
    assert_int_equal(cfg_machine_resolve("./my/box.yaml", path, sizeof(path), err, sizeof err), 0);
    assert_string_equal(path, "./my/box.yaml");
    assert_int_equal(cfg_machine_resolve("box.yml", path, sizeof(path), err, sizeof err), 0);
    assert_string_equal(path, "box.yml");
    assert_int_equal(cfg_machine_resolve("", path, sizeof(path), err, sizeof err), -1);
    assert_int_equal(cfg_machine_resolve("a b", path, sizeof(path), err, sizeof err), -1);
    assert_non_null(strstr(err, "not a machine name"));
    char tiny[8];
    assert_int_equal(cfg_machine_resolve("./long/path.yaml", tiny, sizeof(tiny), err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "too long"));

    /* $CLEARSIM_CONFIGS */
    setenv("CLEARSIM_CONFIGS", FIX "/good", 1);
    assert_string_equal(cfg_configs_dir(), FIX "/good");
    char names[8][MACHINE_NAME_MAX];
    size_t n = 0;
    assert_int_equal(cfg_machine_list(names, 8, &n, err, sizeof err), 0);
    assert_true(n >= 2); /* sorted: converted, minimal, then any others */
    assert_string_equal(names[0], "converted");
    assert_string_equal(names[1], "minimal");
    assert_int_equal(cfg_machine_list(names, 1, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1 machine files"));
    assert_int_equal(cfg_machine_resolve("minimal", path, sizeof(path), err, sizeof err), 0);
    assert_string_equal(path, FIX "/good/minimal.yaml");
    setenv("CLEARSIM_CONFIGS", FIX "/no-such-dir", 1);
    assert_int_equal(cfg_machine_list(names, 4, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot list machine files"));
    unsetenv("CLEARSIM_CONFIGS");
}

/* The key table: every path unique, every field covered once, docs present. */
static void test_key_table(void **state)
{
    (void)state;
    size_t n = 0;
    const cfg_key_t *k = cfg_keys(&n);
    machine_t *m = load_ok(SRC "/configs/zen3-epyc-7j13.yaml");
    assert_true(n > 80);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(k[i].doc);
        assert_true(strlen(k[i].doc) > 10);
        assert_false(k[i].required && k[i].deflt);
        assert_true(k[i].offset + k[i].size <= sizeof(machine_t));
        assert_ptr_equal(cfg_key_find(k[i].path), &k[i]);
        for (size_t j = i + 1; j < n; j++) {
            assert_true(strcmp(k[i].path, k[j].path) != 0);
            /* no two keys write overlapping bytes */
            assert_true(k[i].offset + k[i].size <= k[j].offset ||
                        k[j].offset + k[j].size <= k[i].offset);
        }
        if (k[i].type == CFG_T_ENUM)
            assert_non_null(k[i].enums);
        if (k[i].fittable) {
            assert_true(k[i].type != CFG_T_STRING && k[i].type != CFG_T_ENUM &&
                        k[i].type != CFG_T_BOOL && k[i].type != CFG_T_FEATURES);
            /* calibrate reads and writes a fitted key as one number */
            double v = -1;
            assert_int_equal(cfg_key_get(m, &k[i], &v), 0);
        }
    }
    assert_null(cfg_key_find("l2.wayz"));
    /* geometry and identity are not fittable; timing is */
    assert_false(cfg_key_find("l2.size")->fittable);
    assert_false(cfg_key_find("l2.ways")->fittable);
    assert_false(cfg_key_find("name")->fittable);
    assert_false(cfg_key_find("features")->fittable);
    assert_true(cfg_key_find("l2.latency")->fittable);
    assert_true(cfg_key_find("l1.mshrs")->fittable);
    assert_true(cfg_key_find("wc.buffers")->fittable);
    assert_true(cfg_key_find("memory.write_bandwidth")->fittable);
    /* a table: calibrate fits numbers only (cfg_key_get / cfg_key_set) */
    assert_false(cfg_key_find("string.startup")->fittable);
    assert_true(cfg_key_find("os.fault_2m")->fittable);
    assert_true(cfg_key_find("l2.prefetch.distance")->fittable);
    assert_true(cfg_key_find("string.elide.threshold_fraction")->fittable);
    assert_string_equal(cfg_feature_name(0), "erms");
    assert_string_equal(cfg_feature_name(7), "dczva");
    assert_null(cfg_feature_name(11));
    cfg_machine_destroy(m);
}

/* cfg_key_format: the unit of each key type, with and without the space of
 * messages; the YAML form is what a machine file takes back. */
static void test_key_format(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        double v;
        const char *text, *yaml;
    } cases[] = {
        {"l1.size", 49152, "48KiB", "49152B"},
        {"l2.latency", 14.5, "14.5 cycles", "14.5cycles"},
        {"memory.latency", 193.66, "193.66 ns", "193.7ns"},
        {"l2.bandwidth", 15.3456, "15.3456 B/cycle", "15.35B/cycle"},
        {"core.freq", 3.05, "3.05 GHz", "3.05GHz"},
        {"l2.mshrs", 36, "36", "36"},
        {"core.insns_per_cycle", 1.2345678, "1.23457", "1.23457"},
        /* enums and bools by name: the first, a later one, a bool each way */
        {"core.rfo_window", 0, "store_buffer", "store_buffer"},
        {"core.rfo_window", 1, "fill_buffers", "fill_buffers"},
        {"l3.inclusion", 2, "victim", "victim"},
        {"string.rfo", 1, "true", "true"},
        {"string.rfo", 0, "false", "false"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cfg_key_t *k = cfg_key_find(cases[i].key);
        assert_non_null(k);
        assert_string_equal(cfg_key_format(k, cases[i].v, CFG_FMT_TEXT, buf, sizeof buf),
                            cases[i].text);
        assert_string_equal(cfg_key_format(k, cases[i].v, CFG_FMT_YAML, buf, sizeof buf),
                            cases[i].yaml);
    }
}

static void test_key_get_set(void **state)
{
    (void)state;
    machine_t *m = load_ok(SRC "/configs/zen3-epyc-7j13.yaml");
    char err[512] = "";
    double v = 0;
    const cfg_key_t *lat = cfg_key_find("l2.latency");
    assert_int_equal(cfg_key_get(m, lat, &v), 0);
    assert_true(near(v, 10.01));
    assert_int_equal(cfg_key_set(m, lat, 14.5, err, sizeof err), 0);
    assert_true(m->l2.latency_cycles == 14.5);
    assert_int_equal(cfg_key_set(m, lat, 5000, err, sizeof err), -1);
    assert_non_null(strstr(err, "l2.latency"));
    const cfg_key_t *mshrs = cfg_key_find("l1.mshrs");
    assert_int_equal(cfg_key_set(m, mshrs, 9.6, err, sizeof err), 0);
    assert_int_equal(m->l1.mshrs, 10);
    assert_int_equal(cfg_key_get(m, cfg_key_find("l3.size"), &v), 0);
    assert_true(v == 33554432.0);
    /* the elide threshold follows its fraction: 0.5 x 32 MiB */
    assert_int_equal(
        cfg_key_set(m, cfg_key_find("string.elide.threshold_fraction"), 0.5, err, sizeof err), 0);
    assert_true(m->elide_threshold_bytes == 16777216);
    assert_int_equal(cfg_key_get(m, cfg_key_find("name"), &v), -1);
    assert_int_equal(cfg_key_set(m, cfg_key_find("pmu"), 0, err, sizeof err), -1);
    cfg_machine_destroy(m);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

static char *generated_keys(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    int rc = cfg_keys_markdown(f);
    fclose(f);
    if (rc < 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* configs/README.md's key reference equals cfg_keys_markdown() (docs cannot drift). */
static void test_readme_in_sync(void **state)
{
    (void)state;
    size_t len = 0;
    char *doc = read_all(README, &len);
    assert_non_null(doc);
    char *gen = generated_keys();
    assert_non_null(gen);
    char *b = strstr(doc, BEGIN_MARK);
    char *e = b ? strstr(b, END_MARK) : NULL;
    assert_non_null(b);
    assert_non_null(e);
    b += strlen(BEGIN_MARK);
    bool same = (size_t)(e - b) == strlen(gen) && memcmp(b, gen, strlen(gen)) == 0;
    if (!same)
        print_error("configs/README.md key reference is stale; run `test_cfg --update-readme`\n");
    assert_true(same);
    /* every key is documented */
    size_t n = 0;
    const cfg_key_t *k = cfg_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char needle[200];
        snprintf(needle, sizeof(needle), "| `%s` |", k[i].path);
        assert_non_null(strstr(doc, needle));
    }
    free(gen);
    free(doc);
}

static int update_readme(void)
{
    size_t len = 0;
    char *doc = read_all(README, &len);
    char *gen = generated_keys();
    if (!doc || !gen) {
        fprintf(stderr, "%s: cannot read\n", README);
        return 1;
    }
    char *b = strstr(doc, BEGIN_MARK);
    char *e = b ? strstr(b, END_MARK) : NULL;
    if (!b || !e) {
        fprintf(stderr, "%s: markers %s / %s not found\n", README, BEGIN_MARK, END_MARK);
        return 1;
    }
    FILE *f = fopen(README, "wb");
    if (!f)
        return 1;
    b += strlen(BEGIN_MARK);
    fwrite(doc, 1, (size_t)(b - doc), f);
    fputs(gen, f);
    fputs(e, f);
    fclose(f);
    free(gen);
    free(doc);
    printf("updated %s\n", README);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--update-readme") == 0)
        return update_readme();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zen3),           cmocka_unit_test(test_graviton3),
        cmocka_unit_test(test_all_bundled),    cmocka_unit_test(test_good_minimal),
        cmocka_unit_test(test_good_converted), cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_missing_file),   cmocka_unit_test(test_inline),
        cmocka_unit_test(test_inline_values),  cmocka_unit_test(test_string_length),
        cmocka_unit_test(test_resolve),        cmocka_unit_test(test_key_table),
        cmocka_unit_test(test_key_get_set),    cmocka_unit_test(test_key_format),
        cmocka_unit_test(test_readme_in_sync), cmocka_unit_test(test_load_at_clock),
        cmocka_unit_test(test_load_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
