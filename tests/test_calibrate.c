/*
 * test_calibrate.c - the fit recovers known parameter values, stage by stage,
 * and the data loader rejects malformed stages.
 *
 * The "measurements" are the model's own predictions with chosen values
 * (l2.bandwidth 16 B/cycle, os.fault_4k 3000 ns) on the minimal fixture
 * machine; the fit starts elsewhere (32 B/cycle, 1000 ns) and must come back
 * within 2%. Stage 1 fits l2.bandwidth on L2-resident repeat clears, stage 2
 * os.fault_4k on demand faults. Stage 3 has a 4 KiB fault case whose
 * "measurement" is 30% off and a key (os.fault_2m) that case does not depend
 * on: a fit of every key on every case would pull os.fault_4k towards it; the
 * staged fit lets stage 3 move only os.fault_2m, which it leaves alone, so
 * os.fault_4k still comes back within 2%.
 * A data file's clock: key is parsed and its errors located; a case with a
 * clock of its own is predicted on the machine file loaded at that clock,
 * carrying the fitted keys' values (a per-second rate per second).
 * calibrate --microbench: a machine file's own figures become the cases (a
 * figure with a stage a fitting case, one without a validation case at the
 * section's tolerance) and microbench.fit its keys, bounded start / range ..
 * start x range within the key's own bounds; a chase over 8 MiB (16 x the
 * fixture's L2) whose "measurement" is the model's own at 150 ns brings
 * memory.latency back from 100 ns.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/study/calibrate.h"
#include "sim/machine/cfg.h"
#include "sim/engine/run.h"
#include "sim/study/microbench.h"

static const char *const CASES =
    "cases:\n"
    "  - {id: l2-rep, set: fit, stage: 1, value: 1, args: -s 256KiB -l 16 --caller repeat -f "
    "rep_stosb}\n"
    "  - {id: l2-unrolled, set: fit, stage: 1, value: 1, args: -s 128KiB -l 16 --caller repeat "
    "-f unrolled}\n"
    "  - {id: fault, set: fit, stage: 2, value: 1, args: --workload mmap -p 4KiB -s 2MiB "
    "--caller page -f rep_stosb}\n"
    "  - {id: l2-check, set: validate, value: 1, args: -s 192KiB -l 16 --caller repeat -f "
    "rep_stosb}\n"
    "  - {id: fault-trap, set: fit, stage: 3, value: 1, args: --workload mmap -p 4KiB -s 1MiB "
    "--caller page -f rep_stosb}\n";

static machine_t *minimal(void)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/fixtures/good/minimal.yaml", CLEARSIM_SOURCE_DIR);
    char e[512] = "";
    machine_t *m = cfg_machine_load(path, e, sizeof e);
    if (!m)
        fail_msg("%s", e);
    return m;
}

/* Write text to a temporary data file; its path in path. */
static void write_data(char *path, size_t len, const char *text)
{
    snprintf(path, len, "/tmp/clearsim-test-calibrate-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Load a data text that must load (the test fails with the loader's reason). */
static cal_data_t *load_ok(const machine_t *m, const char *text)
{
    char path[64], err[512] = "";
    write_data(path, sizeof(path), text);
    cal_data_t *d = cal_load(path, m, err, sizeof(err));
    unlink(path);
    if (!d)
        fail_msg("%s", err);
    return d;
}

static void set_key(machine_t *m, const char *path, double v)
{
    char e[512] = "";
    const cfg_key_t *k = cfg_key_find(path);
    assert_non_null(k);
    if (cfg_key_set(m, k, v, e, sizeof e))
        fail_msg("%s", e);
}

static double get_key(const machine_t *m, const char *path)
{
    double v = 0;
    assert_int_equal(cfg_key_get(m, cfg_key_find(path), &v), 0);
    return v;
}

static void test_staged_fit_recovers(void **state)
{
    (void)state;
    machine_t *m = minimal();
    char text[2048], err[512];
    snprintf(text, sizeof(text),
             "machine: minimal\n"
             "fit:\n"
             "  l2.bandwidth: [4, 64, 1]\n"
             "  os.fault_4k: [200, 20000, 2]\n"
             "  os.fault_2m: [200, 2000000, 3]\n"
             "%s",
             CASES);
    cal_data_t *d = load_ok(m, text);
    assert_int_equal(d->n_keys, 3);
    assert_int_equal(d->keys[0].stage, 1);
    assert_int_equal(d->keys[1].stage, 2);
    assert_int_equal(d->cases[2].stage, 2);
    assert_int_equal(d->cases[3].stage, 1); /* default */

    /* the measurements: predictions with the true values */
    set_key(m, "l2.bandwidth", 16);
    set_key(m, "os.fault_4k", 3000);
    static double truth[CAL_CASES_MAX];
    if (cal_predict_all(m, d, false, 2, truth, err, sizeof(err)))
        fail_msg("%s", err);
    for (size_t i = 0; i < d->n_cases; i++)
        d->cases[i].value = truth[i];
    assert_string_equal(d->cases[4].id, "fault-trap");
    d->cases[4].value = 0.7 * truth[4];

    set_key(m, "l2.bandwidth", 32);
    set_key(m, "os.fault_4k", 1000);
    static cal_result_t res;
    if (cal_fit(m, d, 2, false, 20, &res, err, sizeof(err)))
        fail_msg("%s", err);
    assert_true(fabs(get_key(m, "l2.bandwidth") / 16 - 1) < 0.02);
    assert_true(fabs(get_key(m, "os.fault_4k") / 3000 - 1) < 0.02);
    assert_true(res.start[0] == 32 && res.start[1] == 1000);
    assert_true(res.chisq < res.chisq0);
    assert_true(res.evaluations > 2);
    for (size_t i = 0; i < d->n_cases; i++)
        assert_true(fabs(res.pred[i] / truth[i] - 1) < 0.02);
    assert_true(res.start[2] == get_key(m, "os.fault_2m")); /* no case moves it */
    assert_true(res.value[0] == get_key(m, "l2.bandwidth"));
    assert_true(res.value[1] == get_key(m, "os.fault_4k"));
    assert_true(res.sigma[0] > 0 && res.sigma[1] > 0);
    assert_true(isnan(res.sigma[2])); /* no case moves os.fault_2m: no interval, not +- 0 */
    cal_destroy(d);
    cfg_machine_destroy(m);
}

/* Each text must fail to load (or to fit) with `want` in the reason. */
static void expect_fail(const char *fit, const char *cases, const char *want, bool at_fit)
{
    machine_t *m = minimal();
    char path[64], text[2048], err[512] = "";
    snprintf(text, sizeof(text), "machine: minimal\nfit:\n%s%s", fit, cases);
    write_data(path, sizeof(path), text);
    cal_data_t *d = cal_load(path, m, err, sizeof(err));
    unlink(path);
    if (at_fit) {
        if (!d)
            fail_msg("%s", err);
        static cal_result_t res;
        assert_int_equal(cal_fit(m, d, 1, false, 1, &res, err, sizeof(err)), -1);
        cal_destroy(d);
    } else {
        assert_null(d);
    }
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
    cfg_machine_destroy(m);
}

static void test_bad_stages(void **state)
{
    (void)state;
    expect_fail("  l2.bandwidth: [4, 64, 0]\n", CASES, "stage must be an integer 1..12", false);
    expect_fail("  l2.bandwidth: [4, 64, 1.5]\n", CASES, "stage must be an integer 1..12", false);
    expect_fail("  l2.bandwidth: [4, 64, 1, 2]\n", CASES, "[min, max, stage]", false);
    expect_fail("  l2.bandwidth: [4, 64]\n",
                "cases:\n  - {id: a, stage: 13, value: 1, args: -s 64KiB}\n",
                "must be an integer 1..12", false);
    /* stage 2 has a fitting case but no key */
    expect_fail("  l2.bandwidth: [4, 64, 1]\n", CASES, "stage 2 has 1 fitting cases but no keys",
                true);
    /* stage 4 has a key but no fitting case */
    expect_fail("  l2.bandwidth: [4, 64, 1]\n  os.fault_4k: [200, 20000, 2]\n"
                "  os.fault_2m: [200, 2000000, 3]\n  os.fault_1g: [200, 2000000, 4]\n",
                CASES, "stage 4: 0 fitting cases cannot determine 1 parameters", true);
}

/* A data file's clock: parsed, checked, and the unit's errors located. */
static void test_data_clock(void **state)
{
    (void)state;
    machine_t *m = minimal();
    char path[64], text[2048], err[512] = "";
    snprintf(text, sizeof(text), "machine: minimal\nclock: 2.5GHz\n%s", CASES);
    cal_data_t *d = load_ok(m, text);
    assert_true(d->clock_ghz == 2.5);
    cal_destroy(d);
    const char *bad[][2] = {
        {"99GHz", "must be between 0.1GHz and 10GHz"}, {"fast", "'fast'"}, {"[1, 2]", "clock"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof(text), "machine: minimal\nclock: %s\n%s", bad[i][0], CASES);
        write_data(path, sizeof(path), text);
        d = cal_load(path, m, err, sizeof(err));
        unlink(path);
        assert_null(d);
        if (!strstr(err, ":2:") || !strstr(err, bad[i][1]))
            fail_msg("clock %s: '%s' does not give line 2 and '%s'", bad[i][0], err, bad[i][1]);
    }
    cfg_machine_destroy(m);
}

/* A case at a clock of its own is predicted as the machine file loaded at
 * that clock with the machine's values of the fitted keys: memory.latency in
 * ns as it is, memory.read_bandwidth (20GB/s in the file: a per-second rate)
 * per second, so 0.536870912 B/cycle at minimal's 2 GHz (1 GiB/s, low
 * enough to bound the clear) is 0.268435456 B/cycle at 4 GHz. The same case
 * without a clock is predicted on the machine itself. Both clears run at the
 * 1 GiB/s read rate (carried per cycle, the 4 GHz one would run at 2), and a
 * case clock's errors are located. */
static void test_case_clock(void **state)
{
    (void)state;
    machine_t *m = minimal();
    char text[2048], err[512] = "";
    snprintf(text, sizeof(text),
             "machine: minimal\nfit:\n  memory.read_bandwidth: [0.1, 64]\n"
             "  memory.latency: [10, 1000]\ncases:\n"
             "  - {id: a, value: 1, args: -s 8MiB -f unrolled}\n"
             "  - {id: b, value: 1, clock: 4GHz, args: -s 8MiB -f unrolled}\n");
    cal_data_t *d = load_ok(m, text);
    assert_true(d->cases[0].clock_ghz == 0 && d->cases[1].clock_ghz == 4);
    set_key(m, "memory.latency", 150);
    set_key(m, "memory.read_bandwidth", 0.536870912);
    static double pred[CAL_CASES_MAX];
    if (cal_predict_all(m, d, true, 1, pred, err, sizeof(err)))
        fail_msg("%s", err);

    char e[512] = "";
    machine_t *m4 = cfg_machine_load_at_clock(m->path, 4, e, sizeof e);
    if (!m4)
        fail_msg("%s", e);
    set_key(m4, "memory.latency", 150);
    set_key(m4, "memory.read_bandwidth", 0.268435456);
    run_opts_t o;
    run_opts_init(&o);
    o.exact = true;
    static run_result_t r;
    const machine_t *on[2] = {m, m4};
    for (int i = 0; i < 2; i++) {
        if (run_predict(on[i], &d->cases[i].spec, &o, &r, err, sizeof(err)))
            fail_msg("%s", err);
        double want = r.bytes_per_sec / (1024.0 * 1024.0 * 1024.0);
        if (pred[i] != want)
            fail_msg("case %d: predicted %.9g, want %.9g", i, pred[i], want);
    }
    /* bound by the read rate, which the clock does not change */
    if (fabs(pred[0] - 1) > 0.05 || fabs(pred[1] - 1) > 0.05)
        fail_msg("not bound by the 1 GiB/s read rate: %.9g, %.9g GB/s", pred[0], pred[1]);
    cfg_machine_destroy(m4);
    cal_destroy(d);

    char path[64];
    snprintf(text, sizeof(text),
             "machine: minimal\ncases:\n  - {id: a, value: 1, args: -s 1MiB}\n"
             "  - {id: b, value: 1, clock: 0.01GHz, args: -s 1MiB}\n");
    write_data(path, sizeof(path), text);
    d = cal_load(path, m, err, sizeof(err));
    unlink(path);
    assert_null(d);
    if (!strstr(err, ":4:") || !strstr(err, "cases.clock") || !strstr(err, "0.1GHz and 10GHz"))
        fail_msg("'%s' does not locate the case's clock", err);
    cfg_machine_destroy(m);
}

/* An empty temporary file for a writer to replace; its path in path. */
static void tmp_out(char *path, size_t len)
{
    snprintf(path, len, "/tmp/clearsim-test-calibrate-out-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

/* The text of a file, in one of two static buffers. */
static const char *slurp(const char *path, int slot)
{
    static char buf[2][65536];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf[slot], 1, sizeof(buf[slot]) - 1, f);
    buf[slot][n] = 0;
    fclose(f);
    return buf[slot];
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Calibrating a calibrated file again replaces its header (command, data,
 * fit, one line per key) instead of stacking a second one on it; what
 * follows the header, the fixture's own first comment included, is the
 * same in both files. */
static void test_write_replaces_header(void **state)
{
    (void)state;
    machine_t *m = minimal();
    char text[2048], err[512] = "";
    snprintf(text, sizeof(text), "machine: minimal\nfit:\n  os.fault_4k: [200, 20000]\n%s", CASES);
    cal_data_t *d = load_ok(m, text);
    static cal_result_t res;
    char in[1024], out[2][64];
    snprintf(in, sizeof(in), "%s/tests/fixtures/good/minimal.yaml", CLEARSIM_SOURCE_DIR);
    for (int i = 0; i < 2; i++) {
        tmp_out(out[i], sizeof(out[i]));
        if (cal_write_yaml(i ? out[0] : in, out[i], m, d, &res, i ? "second" : "first", err,
                           sizeof(err)))
            fail_msg("%s", err);
    }
    const char *a = slurp(out[0], 0), *b = slurp(out[1], 1);
    unlink(out[0]);
    unlink(out[1]);
    assert_int_equal(count_of(b, "# Calibrated by `"), 1);
    assert_non_null(strstr(b, "# Calibrated by `second`"));
    assert_null(strstr(b, "`first`"));
    const char *body_a = strstr(a, "# test fixture:"), *body_b = strstr(b, "# test fixture:");
    if (!body_a || !body_b || strcmp(body_a, body_b) != 0)
        fail_msg("the text after the header differs:\n%s\n---\n%s", a, b);
    cal_destroy(d);
    cfg_machine_destroy(m);
}

/* The calibrated file keeps a per-second bandwidth per second (a bus rate does
 * not follow the core clock): 5.36870912 B/cycle at minimal's 2 GHz is
 * 10 GiB/s; a key given in cycles is written in cycles. */
static void test_write_keeps_units(void **state)
{
    (void)state;
    machine_t *m = minimal();
    char text[2048], err[512] = "";
    snprintf(text, sizeof(text),
             "machine: minimal\nfit:\n  memory.read_bandwidth: [1, 64]\n  os.fault_4k: [200, "
             "20000]\n%s",
             CASES);
    cal_data_t *d = load_ok(m, text);
    set_key(m, "memory.read_bandwidth", 5.36870912);
    set_key(m, "os.fault_4k", 2500);
    static cal_result_t res;
    char in[1024], out[64];
    snprintf(in, sizeof(in), "%s/tests/fixtures/good/minimal.yaml", CLEARSIM_SOURCE_DIR);
    tmp_out(out, sizeof(out));
    if (cal_write_yaml(in, out, m, d, &res, "test", err, sizeof(err)))
        fail_msg("%s", err);
    const char *got = slurp(out, 0);
    unlink(out);
    if (!strstr(got, "read_bandwidth: 10GB/s"))
        fail_msg("no 'read_bandwidth: 10GB/s' in:\n%s", got);
    if (!strstr(got, "fault_4k: 2500ns"))
        fail_msg("no 'fault_4k: 2500ns' in:\n%s", got);
    cal_destroy(d);
    cfg_machine_destroy(m);
}

/* The minimal fixture with a microbench: section appended; NULL with the
 * loader's message in e when it does not load. */
static machine_t *minimal_try(const char *section, char *e, size_t elen)
{
    char path[1024], text[8192];
    snprintf(path, sizeof(path), "%s/tests/fixtures/good/minimal.yaml", CLEARSIM_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = 0;
    strncat(text, section, sizeof(text) - strlen(text) - 1);
    return cfg_machine_load_string(text, strlen(text), "minimal.yaml", e, elen);
}

/* The minimal fixture with a microbench: section appended. */
static machine_t *minimal_with(const char *section)
{
    char e[512] = "";
    machine_t *m = minimal_try(section, e, sizeof e);
    if (!m)
        fail_msg("%s", e);
    return m;
}

/* microbench.adds_per_cycle: the core's share the figures ran at, 0.05..16
 * (not given: 0, not measured). */
static void test_microbench_share(void **state)
{
    (void)state;
    static const char fig[] =
        "  figures:\n"
        "    - {id: lat-l1, workload: latency, function: chase, size: 16KiB,\n"
        "       ns_per_load: 2, source: test}\n";
    char sec[512], e[512] = "";
    static const struct {
        const char *line;
        double want;
    } ok[] = {{"  adds_per_cycle: 3.9\n", 3.9}, {"", 0}, {"  adds_per_cycle: 0.05\n", 0.05}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) { /* given, absent, at the floor */
        snprintf(sec, sizeof sec, "microbench:\n%s%s", ok[i].line, fig);
        machine_t *m = minimal_with(sec);
        assert_true(m->mb_adds_per_cycle == ok[i].want);
        cfg_machine_destroy(m);
    }
    /* just under the floor */
    snprintf(sec, sizeof sec, "microbench:\n  adds_per_cycle: 0.049\n%s", fig);
    assert_null(minimal_try(sec, e, sizeof e));
    if (!strstr(e, "microbench.adds_per_cycle") || !strstr(e, "0.049"))
        fail_msg("the error names neither the key nor the value: %s", e);
}

static void test_microbench_data(void **state)
{
    (void)state;
    machine_t *m = minimal_with(
        "microbench:\n"
        "  tolerance: 0.05\n"
        "  fit:\n"
        "    - {key: memory.latency, stage: 1}\n"
        "    - {key: l2.latency, stage: 2, range: 2}\n"
        "  figures:\n"
        "    - {id: lat-dram, workload: latency, function: chase, size: 8MiB, loops: 1,\n"
        "       ns_per_load: 150, stage: 1, source: test}\n"
        "    - {id: lat-l2, workload: latency, function: chase, size: 256KiB, ns_per_load: 7,\n"
        "       stage: 2, source: test}\n"
        "    - {id: lat-l1, workload: latency, function: chase, size: 16KiB, ns_per_load: 2,\n"
        "       tolerance: 0.2, source: test}\n");
    static cal_data_t d;
    char err[512] = "";
    if (mb_cal_data(m, &d, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(d.n_cases, 3);
    assert_true(d.cases[0].fit && d.cases[0].stage == 1);
    assert_true(d.cases[1].fit && d.cases[1].stage == 2);
    assert_false(d.cases[2].fit); /* no stage: validation */
    assert_string_equal(d.cases[0].metric, "ns_per_load");
    assert_true(d.cases[0].tolerance == 0.05 && d.cases[2].tolerance == 0.2);
    assert_int_equal(d.n_keys, 2);
    /* memory.latency 100 ns: 100 / 16 is below the key's 10 ns floor */
    assert_true(d.keys[0].lo == 10 && d.keys[0].hi == 1600 && d.keys[0].stage == 1);
    /* l2.latency 12 cycles, range 2 */
    assert_true(d.keys[1].lo == 6 && d.keys[1].hi == 24 && d.keys[1].stage == 2);

    /* the figures: the model's own with memory.latency 150 ns, l2.latency 16 cycles */
    set_key(m, "memory.latency", 150);
    set_key(m, "l2.latency", 16);
    static double truth[CAL_CASES_MAX];
    if (cal_predict_all(m, &d, false, 2, truth, err, sizeof(err)))
        fail_msg("%s", err);
    for (size_t i = 0; i < d.n_cases; i++)
        d.cases[i].value = truth[i];
    set_key(m, "memory.latency", 100);
    set_key(m, "l2.latency", 12);
    static cal_result_t res;
    if (cal_fit(m, &d, 2, false, 20, &res, err, sizeof(err)))
        fail_msg("%s", err);
    assert_true(fabs(get_key(m, "memory.latency") / 150 - 1) < 0.01);
    assert_true(fabs(get_key(m, "l2.latency") / 16 - 1) < 0.01);
    cfg_machine_destroy(m);

    /* no key to fit */
    m = minimal_with("microbench: {figures: [{id: a, workload: latency, size: 8MiB, ns_per_load: "
                     "150, source: x}]}\n");
    assert_int_equal(mb_cal_data(m, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "microbench.fit names no key to fit"));
    cfg_machine_destroy(m);

    /* a key left at 0 (memory.write_latency's default, off) has no start to fit from */
    m = minimal_with("microbench: {fit: [{key: memory.write_latency, stage: 1}], figures: [\n"
                     "  {id: a, workload: latency, size: 8MiB, ns_per_load: 150, stage: 1,\n"
                     "   source: x}]}\n");
    assert_int_equal(mb_cal_data(m, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "'memory.write_latency' is 0 (its default: off)"));
    cfg_machine_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staged_fit_recovers), cmocka_unit_test(test_bad_stages),
        cmocka_unit_test(test_microbench_data),     cmocka_unit_test(test_microbench_share),
        cmocka_unit_test(test_data_clock),          cmocka_unit_test(test_case_clock),
        cmocka_unit_test(test_write_keeps_units),   cmocka_unit_test(test_write_replaces_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
