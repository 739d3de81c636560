/*
 * test_cli.c - option parsing of `clearsim run`, `machines` and `functions`
 * (sim/cli/options.c), without running anything.
 *
 * Notes
 *  - Each case builds an argv by hand and checks the parsed fields or the
 *    one-line error, which must name the option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cli/options.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static cli_run_t parsed;
static char err[512];

static int parse(int argc, char **argv)
{
    err[0] = '\0';
    return cli_parse_run(argc, argv, &parsed, err, sizeof err);
}

static void assert_one_line_naming(const char *opt)
{
    assert_non_null(strstr(err, opt));
    assert_null(strchr(err, '\n'));
}

static void test_defaults_and_values(void **state)
{
    (void)state;
    char *argv[] = {"run",        "--machine", "zen3-epyc-7j13",
                    "--workload", "mmap",      "-s",
                    "64MB",       "-l",        "3",
                    "-p",         "2MB",       "--caller",
                    "extent",     "--preempt", "lazy",
                    "--fault",    "populate",  "--extent-cap",
                    "16MB",       "--format",  "json",
                    "--exact",    "--seed",    "0x10",
                    "-f",         "memset",    NULL};
    assert_int_equal(parse(ARGC(argv), argv), CLI_OK);
    assert_string_equal(parsed.point.machine, "zen3-epyc-7j13");
    assert_int_equal(parsed.point.spec.kind, WL_MMAP);
    assert_int_equal(parsed.point.spec.size_bytes, 64ull << 20);
    assert_int_equal(parsed.point.spec.loops, 3);
    assert_int_equal(parsed.point.spec.page_bytes, 2ull << 20);
    assert_int_equal(parsed.point.spec.caller, WL_CALLER_EXTENT);
    assert_true(parsed.point.caller_given);
    assert_int_equal(parsed.point.spec.preempt, CALLER_PREEMPT_LAZY);
    assert_int_equal(parsed.point.spec.fault, WL_FAULT_POPULATE);
    assert_int_equal(parsed.point.spec.extent_cap_bytes, 16ull << 20);
    assert_int_equal(parsed.format, REPORT_FMT_JSON);
    assert_true(parsed.point.opts.exact);
    assert_int_equal(parsed.point.opts.seed, 16);
    assert_string_equal(parsed.point.spec.function, "memset");
    assert_true(parsed.point.function_given);
}

static void test_later_option_wins(void **state)
{
    (void)state;
    char *argv[] = {"run",      "--machine", "a",        "--size",      "1MB",       "-s",
                    "2MB",      "--fill",    "7",        "--fill=0x2a", "--machine", "b",
                    "--format", "csv",       "--format", "text",        NULL};
    assert_int_equal(parse(ARGC(argv), argv), CLI_OK);
    assert_int_equal(parsed.point.spec.size_bytes, 2ull << 20);
    assert_int_equal(parsed.point.spec.fill, 42);
    assert_string_equal(parsed.point.machine, "b");
    assert_int_equal(parsed.format, REPORT_FMT_TEXT);
}

static void test_bad_values(void **state)
{
    (void)state;
    struct {
        const char *opt, *val, *named;
    } cases[] = {
        {"--fill", "256", "--fill"},
        {"--fill", "-1", "--fill"},
        {"--loops", "0", "--loops"},
        {"-l", "4294967296", "--loops"},
        {"--size", "1EB", "--size"},
        {"--size", "0", "--size"},
        {"--size", "1025GB", "--size"},
        {"--size", "18446744073709551616", "--size"},
        {"--extent-cap", "2TB", "--extent-cap"},
        {"-s", "", "--size"},
        {"--chunk", "12QB", "--chunk"},
        {"--page", "3MB", "--page"},
        {"--workload", "triad", "--workload"},
        {"--caller", "bulk", "--caller"},
        {"--preempt", "rt", "--preempt"},
        {"--fault", "lazy", "--fault"},
        {"--format", "xml", "--format"},
        {"--seed", "x", "--seed"},
        {"--function", "no_such_kernel", "--function"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[] = {"run", "--machine", "m", (char *)cases[i].opt, (char *)cases[i].val, NULL};
        int rc = parse(ARGC(argv), argv);
        if (rc != CLI_USAGE)
            print_error("%s %s: parsed (%d)\n", cases[i].opt, cases[i].val, rc);
        assert_int_equal(rc, CLI_USAGE);
        assert_one_line_naming(cases[i].named);
    }
}

static void test_chunk_larger_than_size(void **state)
{
    (void)state;
    char *argv[] = {"run", "--machine", "m", "-s", "1MB", "-k", "2MB", NULL};
    assert_int_equal(parse(ARGC(argv), argv), CLI_USAGE);
    assert_one_line_naming("--chunk");
    /* equal is fine; the order of the options does not matter */
    char *ok[] = {"run", "-k", "2MB", "--machine", "m", "-s", "2MB", NULL};
    assert_int_equal(parse(ARGC(ok), ok), CLI_OK);
    assert_int_equal(parsed.point.spec.chunk_bytes, 2ull << 20);
    /* the size limit itself is accepted */
    char *big[] = {"run", "--machine", "m", "-s", "1TB", NULL};
    assert_int_equal(parse(ARGC(big), big), CLI_OK);
    assert_int_equal(parsed.point.spec.size_bytes, 1ull << 40);
}

static void test_machine_required(void **state)
{
    (void)state;
    char *argv[] = {"run", "-s", "1MB", NULL};
    assert_int_equal(parse(ARGC(argv), argv), CLI_USAGE);
    assert_string_equal(err, "--machine is required; see 'clearsim machines'");
}

static void test_getopt_failures(void **state)
{
    (void)state;
    char *a[] = {"run", "--machine", "m", "--bogus=3", NULL};
    assert_int_equal(parse(ARGC(a), a), CLI_USAGE);
    assert_string_equal(err, "unrecognized option '--bogus'");
    char *b[] = {"run", "--machine", "m", "-x", NULL};
    assert_int_equal(parse(ARGC(b), b), CLI_USAGE);
    assert_string_equal(err, "unrecognized option '-x'");
    char *c[] = {"run", "--machine", "m", "--size", NULL};
    assert_int_equal(parse(ARGC(c), c), CLI_USAGE);
    assert_string_equal(err, "option '--size' needs a value");
    char *d[] = {"run", "--machine", "m", "-s", NULL};
    assert_int_equal(parse(ARGC(d), d), CLI_USAGE);
    assert_string_equal(err, "option '--size' needs a value");
    char *e[] = {"run", "--machine", "m", "--exact=yes", NULL};
    assert_int_equal(parse(ARGC(e), e), CLI_USAGE);
    assert_string_equal(err, "option '--exact' takes no value");
    char *f[] = {"run", "--machine", "m", "stray", NULL};
    assert_int_equal(parse(ARGC(f), f), CLI_USAGE);
    assert_string_equal(err, "unexpected argument 'stray'");
    /* control characters never reach the message */
    char *g[] = {"run", "--machine", "m", "--fill", "1\n2", NULL};
    assert_int_equal(parse(ARGC(g), g), CLI_USAGE);
    assert_one_line_naming("--fill");
}

static void test_help(void **state)
{
    (void)state;
    char *a[] = {"run", "--help", NULL};
    assert_int_equal(parse(ARGC(a), a), CLI_HELP);
    char *b[] = {"run", "-s", "1MB", "-h", NULL}; /* no --machine needed for help */
    assert_int_equal(parse(ARGC(b), b), CLI_HELP);
}

static void test_list(void **state)
{
    (void)state;
    report_format_t fmt;
    char *a[] = {"functions", "--format", "json", NULL};
    assert_int_equal(cli_parse_list(ARGC(a), a, &fmt, err, sizeof err), CLI_OK);
    assert_int_equal(fmt, REPORT_FMT_JSON);
    char *b[] = {"machines", NULL};
    assert_int_equal(cli_parse_list(ARGC(b), b, &fmt, err, sizeof err), CLI_OK);
    assert_int_equal(fmt, REPORT_FMT_TEXT);
    char *c[] = {"machines", "--format", "csv", NULL};
    assert_int_equal(cli_parse_list(ARGC(c), c, &fmt, err, sizeof err), CLI_USAGE);
    assert_one_line_naming("--format");
    char *d[] = {"functions", "-h", NULL};
    assert_int_equal(cli_parse_list(ARGC(d), d, &fmt, err, sizeof err), CLI_HELP);
    char *e[] = {"functions", "--size", "1", NULL};
    assert_int_equal(cli_parse_list(ARGC(e), e, &fmt, err, sizeof err), CLI_USAGE);
    assert_string_equal(err, "unrecognized option '--size'");
}

static void test_machine_defaults(void **state)
{
    (void)state;
    static machine_t m;
    memset(&m, 0, sizeof m);
    m.isa = MACHINE_ISA_X86_64;
    m.features = MACHINE_FEAT_ERMS | MACHINE_FEAT_REP_GOOD;
    assert_string_equal(point_default_function(&m), "rep_stosb");
    m.features = MACHINE_FEAT_REP_GOOD;
    assert_string_equal(point_default_function(&m), "rep_stosq");
    m.features = 0;
    assert_string_equal(point_default_function(&m), "unrolled");
    m.isa = MACHINE_ISA_ARM64;
    m.features = MACHINE_FEAT_ERMS; /* meaningless on arm64; ignored */
    assert_string_equal(point_default_function(&m), "memset");

    char *argv[] = {"run", "--machine", "m", "--workload", "mmap", NULL};
    assert_int_equal(parse(ARGC(argv), argv), CLI_OK);
    point_apply_defaults(&parsed.point, &m);
    assert_string_equal(parsed.point.spec.function, "memset");
    assert_int_equal(parsed.point.spec.caller, WL_CALLER_PAGE);

    char *argv2[] = {"run", "--machine", "m", "-f", "rep_stosb", "--caller", "extent", NULL};
    assert_int_equal(parse(ARGC(argv2), argv2), CLI_OK);
    point_apply_defaults(&parsed.point, &m);
    assert_string_equal(parsed.point.spec.function, "rep_stosb"); /* given: kept */
    assert_int_equal(parsed.point.spec.caller, WL_CALLER_EXTENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_values),
        cmocka_unit_test(test_later_option_wins),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_chunk_larger_than_size),
        cmocka_unit_test(test_machine_required),
        cmocka_unit_test(test_getopt_failures),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_machine_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
