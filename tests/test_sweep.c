/*
 * test_sweep.c - axis syntax and point numbering of `clearsim sweep`
 * (sim/study/sweep.c), shard arithmetic, the thread pool, `clearsim tune`'s size
 * distributions (sim/study/tune.c) and point_set (sim/cli/options.c), without running
 * the model.
 *
 * Notes
 *  - Expectations are written out by hand: the values each SPEC expands to,
 *    the value of each axis at a given point number, the one-line errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/output/pool.h"
#include "sim/engine/point.h"
#include "sim/study/sweep.h"
#include "sim/study/tune.h"

static char err[512];

static void expect_values(const char *key, const char *spec, const char *const *want, size_t n)
{
    char **v = NULL;
    size_t got = 0;
    err[0] = '\0';
    assert_int_equal(sweep_spec_expand(key, spec, &v, &got, err, sizeof err), 0);
    assert_int_equal(got, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    sweep_values_free(v, got);
}

static void expect_spec_error(const char *key, const char *spec, const char *needle)
{
    char **v = NULL;
    size_t got = 0;
    err[0] = '\0';
    assert_int_equal(sweep_spec_expand(key, spec, &v, &got, err, sizeof err), -1);
    assert_null(v);
    assert_non_null(strstr(err, needle));
    assert_null(strchr(err, '\n'));
}

static void test_spec_forms(void **state)
{
    (void)state;
    const char *list[] = {"rep_stosb", "movnti", "clzero"};
    expect_values("function", "rep_stosb,movnti,clzero", list, 3);
    const char *geo[] = {"4KiB", "16KiB", "64KiB", "256KiB", "1MiB"};
    expect_values("size", "4KB..1MB:x4", geo, 5);
    /* the upper bound need not be on the progression */
    const char *geo2[] = {"4KiB", "8KiB", "16KiB"};
    expect_values("chunk", "4KB..30KB:x2", geo2, 3);
    const char *ar[] = {"0", "51", "102", "153", "204", "255"};
    expect_values("fill", "0..255:+51", ar, 6);
    const char *one[] = {"7"};
    expect_values("loops", "7..7:+1", one, 1);
    /* names are lists only: a path with ".." is one value */
    const char *path[] = {"../configs/x.yaml"};
    expect_values("machine", "../configs/x.yaml", path, 1);
}

static void test_spec_errors(void **state)
{
    (void)state;
    expect_spec_error("size", "4KB..1MB", "needs a step");
    expect_spec_error("size", "1MB..4KB:x2", "empty");
    expect_spec_error("size", "4KB..1MB:x1", "factor of at least 2");
    expect_spec_error("fill", "0..255:+0", "at least 1");
    expect_spec_error("size", "4QB..1MB:x2", "4QB");
    expect_spec_error("size", "4KB,,8KB", "empty value");
    expect_spec_error("colour", "red", "unknown key");
    expect_spec_error("format", "csv", "unknown key");
    expect_spec_error("size", "", "no values");
}

static void test_points_and_shards(void **state)
{
    (void)state;
    run_point_t base;
    point_init(&base);
    sweep_t *s = sweep_create(&base);
    assert_non_null(s);
    assert_int_equal(sweep_add_axis(s, "function=rep_stosb,movnti", err, sizeof err), 0);
    assert_int_equal(sweep_add_axis(s, "size=4KB..16KB:x2", err, sizeof err), 0);
    assert_int_equal(sweep_n_points(s), 6);
    /* the first axis varies slowest */
    assert_string_equal(sweep_value(s, 0, 0), "rep_stosb");
    assert_string_equal(sweep_value(s, 2, 1), "16KiB");
    assert_string_equal(sweep_value(s, 3, 0), "movnti");
    assert_string_equal(sweep_value(s, 3, 1), "4KiB");
    assert_null(sweep_value(s, 6, 0));
    assert_int_equal(sweep_add_axis(s, "size=4KB", err, sizeof err), -1);
    assert_non_null(strstr(err, "given twice"));
    assert_int_equal(sweep_add_axis(s, "size", err, sizeof err), -1);
    assert_non_null(strstr(err, "KEY=VALUES"));
    sweep_destroy(s);

    uint32_t i, n;
    assert_int_equal(sweep_parse_shard("2/3", &i, &n, err, sizeof err), 0);
    assert_int_equal(i, 1);
    assert_int_equal(n, 3);
    assert_true(sweep_in_shard(4, 1, 3));
    assert_false(sweep_in_shard(5, 1, 3));
    assert_int_equal(sweep_parse_shard("0/3", &i, &n, err, sizeof err), -1);
    assert_int_equal(sweep_parse_shard("4/3", &i, &n, err, sizeof err), -1);
    assert_int_equal(sweep_parse_shard("3", &i, &n, err, sizeof err), -1);
}

static void set_slot(void *ctx, size_t k)
{
    ((size_t *)ctx)[k] = k * k;
}

static void test_pool(void **state)
{
    (void)state;
    size_t out[100];
    for (unsigned jobs = 1; jobs <= 4; jobs++) {
        memset(out, 0xff, sizeof out);
        assert_int_equal(pool_run(100, jobs, set_slot, out, NULL, 0, err, sizeof err), 0);
        for (size_t k = 0; k < 100; k++)
            assert_int_equal(out[k], k * k);
    }
}

static void test_point_set(void **state)
{
    (void)state;
    run_point_t r;
    point_init(&r);
    assert_int_equal(point_set(&r, "size", "2MB", err, sizeof err), 0);
    assert_int_equal(r.spec.size_bytes, 2u << 20);
    assert_int_equal(point_set(&r, "function", "movnti", err, sizeof err), 0);
    assert_true(r.function_given);
    assert_int_equal(point_set(&r, "fill", "256", err, sizeof err), -1);
    assert_non_null(strstr(err, "--fill"));
    assert_int_equal(point_set(&r, "exact", "1", err, sizeof err), -1);
    assert_non_null(strstr(err, "takes no value"));
    assert_int_equal(point_set(&r, "size", NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs a value"));
    assert_int_equal(point_set(&r, "colour", "red", err, sizeof err), -1);
    assert_true(point_option_find("extent-cap")->has_arg);
    assert_false(point_option_find("exact")->has_arg);
    assert_null(point_option_find("format"));
}

/* An option string, as calibration cases and the predictions report give
 * them: long and short forms, attached and separate values, and its errors. */
static void test_point_parse_args(void **state)
{
    (void)state;
    run_point_t r;
    point_init(&r);
    assert_int_equal(
        point_parse_args(&r, "  -s 64MB -k4KB --fill=0x5a --exact -f movnti ", err, sizeof err), 0);
    assert_int_equal(r.spec.size_bytes, 64u << 20);
    assert_int_equal(r.spec.chunk_bytes, 4096);
    assert_int_equal(r.spec.fill, 0x5a);
    assert_true(r.opts.exact);
    assert_string_equal(r.spec.function, "movnti");
    point_init(&r);
    assert_int_equal(point_parse_args(&r, "-s 1MB -k 2MB", err, sizeof err), -1);
    assert_non_null(strstr(err, "--chunk (2MiB) is larger than --size (1MiB)"));
    assert_int_equal(point_parse_args(&r, "--format json", err, sizeof err), -1);
    assert_non_null(strstr(err, "unrecognized option '--format'"));
    assert_int_equal(point_parse_args(&r, "-s", err, sizeof err), -1);
    assert_non_null(strstr(err, "'--size' needs a value"));
    assert_int_equal(point_parse_args(&r, "--exact=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "takes no value"));
    assert_int_equal(point_parse_args(&r, "64MB", err, sizeof err), -1);
    assert_non_null(strstr(err, "unexpected argument '64MB'"));
    assert_int_equal(point_parse_args(&r, "-x 1", err, sizeof err), -1);
    assert_non_null(strstr(err, "unrecognized option '-x'"));
}

static void test_tune_sizes(void **state)
{
    (void)state;
    tune_size_t *v = NULL;
    size_t n = 0;
    assert_int_equal(tune_parse_sizes("64KB:2,4KB", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].size_bytes, 4096);
    assert_true(v[0].weight == 1.0);
    assert_int_equal(v[1].size_bytes, 65536);
    assert_true(v[1].weight == 2.0);
    free(v);
    assert_int_equal(tune_parse_sizes("4KB..1MB:x4", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(v[4].size_bytes, 1u << 20);
    free(v);
    /* shipped distributions: clear-pages follows the preemption model */
    char nm[64], src[256];
    assert_int_equal(tune_dist_load("clear-pages", CALLER_PREEMPT_FULL, &v, &n, nm, sizeof nm, src,
                                    sizeof src, err, sizeof err),
                     0);
    assert_string_equal(nm, "clear-pages-full");
    assert_int_equal(n, 1);
    assert_int_equal(v[0].size_bytes, 1u << 30);
    assert_non_null(strstr(src, "clear_pages"));
    free(v);
    assert_int_equal(tune_dist_load("clear-pages", CALLER_PREEMPT_VOLUNTARY, &v, &n, nm, sizeof nm,
                                    src, sizeof src, err, sizeof err),
                     0);
    assert_int_equal(v[0].size_bytes, 8u << 20);
    free(v);
    assert_int_equal(tune_dist_load("no-such", CALLER_PREEMPT_FULL, &v, &n, nm, sizeof nm, src,
                                    sizeof src, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "known: "));
    assert_non_null(strstr(err, "clear-pages-lazy"));
    assert_int_equal(tune_dist_load("../x", CALLER_PREEMPT_FULL, &v, &n, nm, sizeof nm, src,
                                    sizeof src, err, sizeof err),
                     -1);
    assert_int_equal(tune_parse_sizes("4KB:0", &v, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "positive"));
    assert_int_equal(tune_parse_sizes("100B", &v, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "multiple of 64"));

    char dir[] = "/tmp/test_sweep.XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/s.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# clear sizes\n2MB: 1\n4KB: 30\n", f);
    fclose(f);
    assert_int_equal(tune_load_sizes(path, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].size_bytes, 4096);
    assert_true(v[0].weight == 30.0);
    free(v);
    unlink(path);
    snprintf(path, sizeof path, "%s/s.csv", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("size\n4KB\n8KB\n12KB\n", f);
    fclose(f);
    assert_int_equal(tune_load_sizes(path, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[2].size_bytes, 12288);
    free(v);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("size,weight\n4KB,1\n8KB,one\n", f);
    fclose(f);
    assert_int_equal(tune_load_sizes(path, &v, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "s.csv:3"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_forms),        cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_points_and_shards), cmocka_unit_test(test_pool),
        cmocka_unit_test(test_point_set),         cmocka_unit_test(test_point_parse_args),
        cmocka_unit_test(test_tune_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
