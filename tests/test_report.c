/*
 * test_report.c - the text, csv and json printers on hand-made results.
 *
 * Notes
 *  - Every expectation is written out by hand from the values put into the
 *    run_result_t; nothing is computed by the code under test and compared
 *    with itself.
 *  - The JSON contract (docs/JSON.md) is checked key by key, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "kernels/kernels.h"
#include "sim/output/report.h"
#include "sim/engine/run.h"
#include "sim/host/native_run.h"
#include "sim/engine/workload.h"

/* ---- helpers ---- */

static void set_counter(run_result_t *r, const char *name, bool supported, uint64_t v)
{
    run_counter_t *c = &r->counters[r->n_counters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->supported = supported;
    c->value = v;
}

/* A memset result on a Zen 3 machine, with the numbers of the calibration
 * note's page-at-a-time run and a few traffic counts. */
static void make_result(run_result_t *r)
{
    memset(r, 0, sizeof *r);
    wl_spec_init(&r->spec);
    r->spec.kind = WL_MEMSET;
    snprintf(r->spec.function, sizeof r->spec.function, "rep_stosb");
    r->spec.size_bytes = 64ull << 30;
    r->spec.chunk_bytes = 2ull << 20;
    r->spec.loops = 5;
    r->spec.fill = 0xff;
    r->spec.caller = WL_CALLER_CHUNKED;
    snprintf(r->machine, sizeof r->machine, "zen3-epyc-7j13");
    snprintf(r->machine_file_sha256, sizeof r->machine_file_sha256, "0123abcd");
    r->bytes = 5ull * (64ull << 30);
    r->cycles = 44513459667ull;
    r->seconds = 18.5;
    r->bytes_per_sec = 12.5 * 1073741824.0; /* 12.5 GB/sec, binary */
    r->extrapolated = true;
    r->error_bound = 0.005;
    set_counter(r, "cycles", true, 44513459667ull);
    set_counter(r, "instructions", true, 1378032592ull);
    set_counter(r, "L1-dcache-loads", true, 11224288082ull);
    set_counter(r, "L1-dcache-load-misses", true, 5373473118ull);
    set_counter(r, "LLC-loads", false, 0);
    /* LLC-load-misses and dTLB-load-misses are not in the result at all */
    set_counter(r, "ls_dmnd_fills.mem", true, 42); /* an extra mapped event */
    r->stats.count[ST_L1_HITS] = 11;
    r->stats.count[ST_L1_MISSES] = 12;
    r->stats.count[ST_L1_WRITEBACKS] = 13;
    r->stats.count[ST_L2_HITS] = 21;
    r->stats.count[ST_L2_MISSES] = 22;
    r->stats.count[ST_L2_WRITEBACKS] = 23;
    r->stats.count[ST_L3_HITS] = 31;
    r->stats.count[ST_L3_MISSES] = 32;
    r->stats.count[ST_L3_WRITEBACKS] = 33;
    r->stats.count[ST_DRAM_READS] = 2;
    r->stats.bytes[ST_DRAM_READS] = 128;
    r->stats.count[ST_DRAM_WRITES] = 3;
    r->stats.bytes[ST_DRAM_WRITES] = 192;
}

/* Print with fmt into a malloc'd string (through a temporary file). */
static char *print_to_string(report_format_t fmt, const run_result_t *r, int *rc)
{
    char err[256] = "";
    FILE *f = tmpfile();
    assert_non_null(f);
    *rc = report_run(f, fmt, r, err, sizeof err);
    long len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* ---- helpers under test ---- */

static void test_group_digits(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(report_group_digits(0, b, sizeof b), "0");
    assert_string_equal(report_group_digits(999, b, sizeof b), "999");
    assert_string_equal(report_group_digits(1000, b, sizeof b), "1,000");
    assert_string_equal(report_group_digits(100000, b, sizeof b), "100,000");
    assert_string_equal(report_group_digits(1000000, b, sizeof b), "1,000,000");
    assert_string_equal(report_group_digits(44513459667ull, b, sizeof b), "44,513,459,667");
    assert_string_equal(report_group_digits(UINT64_MAX, b, sizeof b), "18,446,744,073,709,551,615");
    /* 9 characters need 10 bytes: too small a buffer gives "", not a cut number */
    char s[9];
    assert_string_equal(report_group_digits(123456789ull, s, sizeof s), "");
}

static void test_format_parse(void **state)
{
    (void)state;
    report_format_t f;
    assert_int_equal(report_format_parse("text", &f), 0);
    assert_int_equal(f, REPORT_FMT_TEXT);
    assert_int_equal(report_format_parse("csv", &f), 0);
    assert_int_equal(f, REPORT_FMT_CSV);
    assert_int_equal(report_format_parse("json", &f), 0);
    assert_int_equal(f, REPORT_FMT_JSON);
    assert_int_equal(report_format_parse("JSON", &f), -1);
    assert_int_equal(report_format_parse("", &f), -1);
}

/* ---- json ---- */

static void test_json_contract(void **state)
{
    (void)state;
    run_result_t r;
    char err[256] = "";
    make_result(&r);
    json_t *root = report_run_json(&r, err, sizeof err);
    assert_non_null(root);

    /* top-level keys, in order */
    static const char *const keys[] = {
        "machine",
        "set",
        "machine_file_sha256",
        "clearsim_version",
        "workload",
        "function",
        "caller",
        "fault",
        "preempt",
        "page_bytes",
        "base_page_bytes",
        "thp",
        "size_bytes",
        "chunk_bytes",
        "extent_cap_bytes",
        "loops",
        "fill",
        "bytes",
        "cycles",
        "seconds",
        "bytes_per_sec",
        "extrapolated",
        "error_bound",
        "bulk_lines",
        "counters",
        "traffic",
    };
    size_t nkeys = sizeof keys / sizeof keys[0];
    assert_int_equal(json_object_size(root), nkeys);
    size_t i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        assert_string_equal(key, keys[i]);
        i++;
    }

    assert_string_equal(json_string_value(json_object_get(root, "machine")), "zen3-epyc-7j13");
    assert_string_equal(json_string_value(json_object_get(root, "workload")), "memset");
    assert_string_equal(json_string_value(json_object_get(root, "function")), "rep_stosb");
    assert_string_equal(json_string_value(json_object_get(root, "caller")), "chunked");
    assert_int_equal(json_integer_value(json_object_get(root, "size_bytes")), 68719476736ll);
    assert_int_equal(json_integer_value(json_object_get(root, "chunk_bytes")), 2097152);
    assert_int_equal(json_integer_value(json_object_get(root, "loops")), 5);
    assert_int_equal(json_integer_value(json_object_get(root, "fill")), 255);
    assert_int_equal(json_integer_value(json_object_get(root, "bytes")), 343597383680ll);
    assert_int_equal(json_integer_value(json_object_get(root, "cycles")), 44513459667ll);
    assert_true(json_is_real(json_object_get(root, "seconds")));
    assert_true(json_real_value(json_object_get(root, "seconds")) == 18.5);
    assert_true(json_real_value(json_object_get(root, "bytes_per_sec")) == 13421772800.0);
    assert_true(json_is_true(json_object_get(root, "extrapolated")));
    assert_true(json_real_value(json_object_get(root, "error_bound")) == 0.005);

    /* counters: the standard set in order, then the extra event */
    json_t *c = json_object_get(root, "counters");
    assert_true(json_is_object(c));
    static const char *const cnames[] = {
        "cycles",    "instructions",    "L1-dcache-loads",  "L1-dcache-load-misses",
        "LLC-loads", "LLC-load-misses", "dTLB-load-misses", "ls_dmnd_fills.mem",
    };
    for (size_t k = 0; k < sizeof cnames / sizeof cnames[0]; k++)
        assert_non_null(json_object_get(c, cnames[k]));
    assert_int_equal(json_integer_value(json_object_get(c, "cycles")), 44513459667ll);
    assert_int_equal(json_integer_value(json_object_get(c, "instructions")), 1378032592ll);
    assert_int_equal(json_integer_value(json_object_get(c, "L1-dcache-loads")), 11224288082ll);
    assert_int_equal(json_integer_value(json_object_get(c, "L1-dcache-load-misses")), 5373473118ll);
    assert_true(json_is_null(json_object_get(c, "LLC-loads")));       /* unsupported */
    assert_true(json_is_null(json_object_get(c, "LLC-load-misses"))); /* not mapped */
    assert_true(json_is_null(json_object_get(c, "dTLB-load-misses")));
    assert_int_equal(json_integer_value(json_object_get(c, "ls_dmnd_fills.mem")), 42);
    /* the extra event comes last */
    const char *last = NULL;
    json_object_foreach(c, key, v) last = key;
    assert_string_equal(last, "ls_dmnd_fills.mem");

    /* traffic */
    json_t *t = json_object_get(root, "traffic");
    assert_true(json_is_object(t));
    static const char *const lv[] = {"l1", "l2", "l3"};
    for (int l = 0; l < 3; l++) {
        json_t *o = json_object_get(t, lv[l]);
        assert_true(json_is_object(o));
        assert_int_equal(json_object_size(o), 3);
        assert_int_equal(json_integer_value(json_object_get(o, "hits")), 10 * (l + 1) + 1);
        assert_int_equal(json_integer_value(json_object_get(o, "misses")), 10 * (l + 1) + 2);
        assert_int_equal(json_integer_value(json_object_get(o, "writebacks")), 10 * (l + 1) + 3);
    }
    assert_int_equal(json_integer_value(json_object_get(t, "dram_read_bytes")), 128);
    assert_int_equal(json_integer_value(json_object_get(t, "dram_write_bytes")), 192);
    json_decref(root);
}

static void test_json_text_is_one_document(void **state)
{
    (void)state;
    run_result_t r;
    int rc;
    make_result(&r);
    char *s = print_to_string(REPORT_FMT_JSON, &r, &rc);
    assert_int_equal(rc, 0);
    /* the printed document parses back whole, with nothing after it */
    json_error_t je;
    json_t *root = json_loads(s, 0, &je);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "machine")), "zen3-epyc-7j13");
    /* keys appear in contract order in the text */
    const char *pm = strstr(s, "\"machine\"");
    const char *pc = strstr(s, "\"counters\"");
    const char *pt = strstr(s, "\"traffic\"");
    assert_non_null(pm);
    assert_non_null(pc);
    assert_non_null(pt);
    assert_true(pm < pc && pc < pt);
    assert_int_equal(s[strlen(s) - 1], '\n');
    json_decref(root);
    free(s);
}

static void test_json_overflow_is_an_error(void **state)
{
    (void)state;
    run_result_t r;
    char err[256] = "";
    make_result(&r);
    r.counters[0].value = (uint64_t)INT64_MAX + 1; /* "cycles" counter */
    assert_null(report_run_json(&r, err, sizeof err));
    assert_non_null(strstr(err, "counters.cycles"));
    assert_non_null(strstr(err, "9223372036854775808"));

    /* INT64_MAX itself fits */
    r.counters[0].value = (uint64_t)INT64_MAX;
    json_t *root = report_run_json(&r, err, sizeof err);
    assert_non_null(root);
    json_decref(root);
}

static void test_json_nonfinite_is_null(void **state)
{
    (void)state;
    run_result_t r;
    char err[256] = "";
    make_result(&r);
    r.seconds = 0.0;
    r.bytes_per_sec = 1.0 / r.seconds; /* +inf */
    json_t *root = report_run_json(&r, err, sizeof err);
    assert_non_null(root);
    assert_true(json_is_real(json_object_get(root, "seconds")));
    assert_true(json_is_null(json_object_get(root, "bytes_per_sec")));
    json_decref(root);
}

/* ---- csv ---- */

static size_t count_char(const char *s, char ch)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == ch;
    return n;
}

static void test_csv(void **state)
{
    (void)state;
    run_result_t r;
    int rc;
    make_result(&r);
    char *s = print_to_string(REPORT_FMT_CSV, &r, &rc);
    assert_int_equal(rc, 0);
    char *nl = strchr(s, '\n');
    assert_non_null(nl);
    *nl = '\0';
    const char *header = s, *row = nl + 1;
    /* exactly two lines */
    assert_int_equal(count_char(row, '\n'), 1);
    static const char head[] = "machine,set,machine_file_sha256,clearsim_version,workload,function,"
                               "caller,fault,preempt,page_bytes,base_page_bytes,thp,";
    assert_true(strncmp(header, head, strlen(head)) == 0);
    assert_non_null(strstr(header, ",counters.cycles,counters.instructions,"));
    assert_non_null(strstr(header, ",counters.LLC-loads,counters.LLC-load-misses,"));
    assert_non_null(strstr(header, ",traffic.l1.hits,traffic.l1.misses,traffic.l1.writebacks,"));
    assert_non_null(strstr(header, ",traffic.dram_read_bytes,traffic.dram_write_bytes"));
    /* one value per column */
    assert_int_equal(count_char(header, ','), count_char(row, ','));
    static const char start[] =
        "zen3-epyc-7j13,,0123abcd," CLEARSIM_VERSION ",memset,rep_stosb,chunked,";
    assert_true(strncmp(row, start, strlen(start)) == 0);
    /* counters: cycles .. L1-dcache-load-misses, then three unsupported (empty),
     * then the extra one, then traffic l1 */
    assert_non_null(strstr(row, ",44513459667,1378032592,11224288082,5373473118,,,,42,11,12,13,"
                                "21,22,23,31,32,33,128,192\n"));
    assert_non_null(strstr(row, ",true,0.0050000000000000001,"));
    free(s);
}

/* ---- text ---- */

static void test_text(void **state)
{
    (void)state;
    run_result_t r;
    int rc;
    make_result(&r);
    char *s = print_to_string(REPORT_FMT_TEXT, &r, &rc);
    assert_int_equal(rc, 0);
    assert_true(strncmp(s, "# Running 'mem/memset' benchmark:\n", 34) == 0);
    assert_non_null(strstr(s, "# function 'rep_stosb'"));
    assert_non_null(strstr(s, "# machine 'zen3-epyc-7j13'"));
    assert_non_null(strstr(s, "# Clearing 64GiB bytes in 2MiB chunks, 5 loops, fill 0xff"));
    assert_non_null(strstr(s, "\n      12.500000 GB/sec"));
    assert_non_null(strstr(s, "\n    13421772800 bytes/sec\n"));
    assert_non_null(strstr(s, "\n    44,513,459,667      cycles\n"));
    /* 1378032592 / 44513459667 = 0.0309... */
    assert_non_null(strstr(s, "\n     1,378,032,592      instructions              #      0.03  "
                              "insn per cycle\n"));
    /* 5373473118 / 11224288082 = 47.873...% */
    assert_non_null(strstr(s, "5,373,473,118      L1-dcache-load-misses     #    47.87%  of all "
                              "L1-dcache accesses\n"));
    assert_non_null(strstr(s, "\n   <not supported>      LLC-loads\n"));
    assert_non_null(strstr(s, "\n   <not supported>      LLC-load-misses\n"));
    assert_non_null(strstr(s, "\n   <not supported>      dTLB-load-misses\n"));
    assert_non_null(strstr(s, "\n                42      ls_dmnd_fills.mem\n"));
    /* 44513459667 cycles / 18.5 s = 2.406 GHz */
    assert_non_null(strstr(s, "#     2.406 GHz"));
    assert_non_null(
        strstr(s, "\n  L1                    11                  12                  13\n"));
    assert_non_null(strstr(s, "\n  DRAM                 128  bytes read\n"));
    assert_non_null(strstr(s, "\n  DRAM                 192  bytes written\n"));
    assert_non_null(strstr(s, "error bound 0.5%"));
    free(s);
}

static void test_text_zero_denominator(void **state)
{
    (void)state;
    run_result_t r;
    int rc;
    make_result(&r);
    r.counters[2].value = 0; /* L1-dcache-loads */
    r.counters[0].value = 0; /* cycles */
    r.seconds = 0.0;
    char *s = print_to_string(REPORT_FMT_TEXT, &r, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, "instructions              #         -  insn per cycle\n"));
    assert_non_null(
        strstr(s, "L1-dcache-load-misses     #         -  of all L1-dcache accesses\n"));
    assert_non_null(strstr(s, "#         - GHz"));
    free(s);
}

static void test_text_mmap(void **state)
{
    (void)state;
    run_result_t r;
    int rc;
    make_result(&r);
    r.spec.kind = WL_MMAP;
    r.spec.caller = WL_CALLER_EXTENT;
    r.spec.page_bytes = 1ull << 30;
    r.spec.fault = WL_FAULT_DEMAND;
    r.spec.preempt = CALLER_PREEMPT_FULL;
    r.spec.extent_cap_bytes = 8ull << 20;
    r.extrapolated = false;
    char *s = print_to_string(REPORT_FMT_TEXT, &r, &rc);
    assert_int_equal(rc, 0);
    assert_true(strncmp(s, "# Running 'mem/mmap' benchmark:\n", 32) == 0);
    assert_non_null(strstr(s, "# Mapping 64GiB bytes in 1GiB pages, demand faults, 5 loops"));
    assert_non_null(strstr(s, "# caller 'extent', preempt 'full', extent cap 8MiB\n"));
    assert_non_null(strstr(s, "# simulated exactly"));
    free(s);
}

/* native text: perf's "<not supported>" for a counter it could not count, and a
 * warning when the 95% interval is more than a fifth of the mean (here: larger than it) */
static char *native_text(double mean, double ci95)
{
    static native_result_t n;
    memset(&n, 0, sizeof n);
    make_result(&n.run);
    snprintf(n.run.machine, sizeof n.run.machine, "host");
    n.repeat = 3;
    n.bytes_per_sec = (native_stat_t){.mean = mean, .stddev = ci95 / 2, .ci95 = ci95};
    n.seconds = (native_stat_t){.mean = 1, .stddev = 0, .ci95 = 0};
    snprintf(n.counters_reason, sizeof n.counters_reason, "no PMU in this guest");
    for (uint32_t i = 0; i < n.run.n_counters; i++)
        n.run.counters[i].supported = false;
    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(report_native(f, REPORT_FMT_TEXT, &n, err, sizeof err), 0);
    fclose(f);
    return buf;
}

static void test_native_text(void **state)
{
    (void)state;
    char *s = native_text(10e9, 12e9);
    assert_non_null(strstr(s, "<not supported>      cycles\n"));
    assert_null(strstr(s, "<not counted>"));
    assert_non_null(strstr(s, "# warning: the 95% interval is larger than the mean (120%)"));
    free(s);
    /* at a fifth of the mean: no warning; just above it: a warning */
    s = native_text(10e9, 2e9);
    assert_null(strstr(s, "# warning"));
    free(s);
    s = native_text(10e9, 2.001e9);
    assert_non_null(strstr(s, "# warning: the 95% interval is a large part of the mean (20%)"));
    free(s);
}

/* ---- listings ---- */

static void test_functions_json(void **state)
{
    (void)state;
    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(report_functions(f, REPORT_FMT_JSON, err, sizeof err), 0);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    assert_non_null(root);
    json_t *list = json_object_get(root, "functions");
    assert_true(json_is_array(list));
    size_t n = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++, n++) {
        json_t *o = json_array_get(list, n);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(o, "name")), k->name);
        const char *isa = json_string_value(json_object_get(o, "isa"));
        assert_non_null(isa);
        const char *want = k->isa == KERN_ISA_X86_64  ? "x86_64"
                           : k->isa == KERN_ISA_ARM64 ? "arm64"
                                                      : "any";
        assert_string_equal(isa, want);
        assert_true(json_is_array(json_object_get(o, "needs")));
    }
    assert_int_equal(json_array_size(list), n);
    json_decref(root);
    free(buf);
}

static void test_machines(void **state)
{
    (void)state;
    static machine_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    snprintf(a.name, sizeof a.name, "graviton3");
    a.isa = MACHINE_ISA_ARM64;
    snprintf(a.model_name, sizeof a.model_name, "Neoverse-V1");
    snprintf(a.description, sizeof a.description, "AWS Graviton3");
    snprintf(b.name, sizeof b.name, "zen3-epyc-7j13");
    b.isa = MACHINE_ISA_X86_64;
    snprintf(b.vendor, sizeof b.vendor, "amd");
    b.freq_ghz = 2.42;
    const machine_t *ms[] = {&a, &b};

    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(report_machines(f, REPORT_FMT_TEXT, ms, 2, err, sizeof err), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\ngraviton3 "));
    assert_non_null(strstr(buf, " arm64 "));
    assert_non_null(strstr(buf, "Neoverse-V1"));
    assert_non_null(strstr(buf, "\nzen3-epyc-7j13 "));
    assert_non_null(strstr(buf, " x86_64 "));
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(report_machines(f, REPORT_FMT_JSON, ms, 2, err, sizeof err), 0);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    assert_non_null(root);
    json_t *list = json_object_get(root, "machines");
    assert_int_equal(json_array_size(list), 2);
    json_t *m0 = json_array_get(list, 0), *m1 = json_array_get(list, 1);
    assert_string_equal(json_string_value(json_object_get(m0, "name")), "graviton3");
    assert_string_equal(json_string_value(json_object_get(m0, "isa")), "arm64");
    assert_string_equal(json_string_value(json_object_get(m1, "isa")), "x86_64");
    assert_string_equal(json_string_value(json_object_get(m1, "vendor")), "amd");
    assert_true(json_real_value(json_object_get(m1, "freq_ghz")) == 2.42);
    json_decref(root);
    free(buf);

    /* csv is not a listing format */
    f = open_memstream(&buf, &len);
    assert_int_equal(report_machines(f, REPORT_FMT_CSV, ms, 2, err, sizeof err), -1);
    fclose(f);
    free(buf);
    assert_non_null(strstr(err, "csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_digits),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_json_contract),
        cmocka_unit_test(test_json_text_is_one_document),
        cmocka_unit_test(test_json_overflow_is_an_error),
        cmocka_unit_test(test_json_nonfinite_is_null),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_text_zero_denominator),
        cmocka_unit_test(test_text_mmap),
        cmocka_unit_test(test_native_text),
        cmocka_unit_test(test_functions_json),
        cmocka_unit_test(test_machines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
