/*
 * test_infile.c - the one way readers open input files (sim/machine/infile.c):
 * only regular files, at the size cap and one byte past it, FIFOs that never
 * block, devices, directories and /proc files refused with their type; the
 * YAML bounds at the limit and one past it (nesting depth, anchors, aliases),
 * with the position of the excess.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/machine/infile.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_infile.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const char *text, size_t n)
{
    FILE *f = fopen(path_of(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_size_cap(void **state)
{
    (void)state;
    char err[512], *buf;
    size_t len;
    write_file("ten", "0123456789", 10);
    /* at the cap */
    assert_int_equal(infile_read(path_of("ten"), 10, NULL, &buf, &len, err, sizeof err), 0);
    assert_int_equal(len, 10);
    assert_int_equal(buf[10], '\0');
    assert_memory_equal(buf, "0123456789", 10);
    free(buf);
    /* one byte past it */
    assert_int_equal(infile_read(path_of("ten"), 9, "--data", &buf, &len, err, sizeof err), -1);
    assert_null(buf);
    assert_non_null(strstr(err, "--data "));
    assert_non_null(strstr(err, "larger than the limit of 9 bytes"));
    FILE *f = infile_open(path_of("ten"), 9, NULL, err, sizeof err);
    assert_null(f);
    f = infile_open(path_of("ten"), 10, NULL, err, sizeof err);
    assert_non_null(f);
    fclose(f);
    /* an empty file is a file */
    write_file("empty", "", 0);
    assert_int_equal(infile_read(path_of("empty"), 10, NULL, &buf, &len, err, sizeof err), 0);
    assert_int_equal(len, 0);
    free(buf);
}

static void test_not_regular(void **state)
{
    (void)state;
    char err[512];
    /* a FIFO with no writer: refused at once, not blocked on */
    assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
    assert_null(infile_open(path_of("fifo"), 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "a FIFO (named pipe), not a regular file"));
    assert_non_null(strstr(err, path_of("fifo")));
    /* a directory */
    assert_null(infile_open(dir, 1 << 20, "--machine", err, sizeof err));
    assert_non_null(strstr(err, "--machine "));
    assert_non_null(strstr(err, "a directory"));
    /* devices */
    assert_null(infile_open("/dev/zero", 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "a character device"));
    /* a file of /proc: regular by type, but not a file to read */
    assert_null(infile_open("/proc/self/status", 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "a file of /proc"));
    /* missing */
    assert_null(infile_open(path_of("none"), 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "No such file"));
    assert_null(infile_open("", 1 << 20, "--sizes-file", err, sizeof err));
    assert_non_null(strstr(err, "--sizes-file: no file name given"));
    /* a link to a regular file is followed */
    write_file("target", "x", 1);
    char target[128];
    snprintf(target, sizeof target, "%s", path_of("target"));
    assert_int_equal(symlink(target, path_of("link")), 0);
    FILE *f = infile_open(path_of("link"), 10, NULL, err, sizeof err);
    assert_non_null(f);
    fclose(f);
}

/* "x: [[[...]]]" nested n deep, or n anchored scalars, or n aliases */
static char *nested(unsigned n)
{
    char *s = malloc(2 * n + 8);
    assert_non_null(s);
    size_t k = (size_t)sprintf(s, "x: ");
    for (unsigned i = 0; i < n - 1; i++) /* the mapping itself is one level */
        s[k++] = '[';
    for (unsigned i = 0; i < n - 1; i++)
        s[k++] = ']';
    s[k++] = '\n';
    s[k] = '\0';
    return s;
}

static char *anchors(unsigned n, bool alias)
{
    char *s = malloc(16 * (size_t)n + 32);
    assert_non_null(s);
    size_t k = 0;
    if (alias) {
        k += (size_t)sprintf(s + k, "a: &a 1\nb: [");
        for (unsigned i = 0; i < n; i++)
            k += (size_t)sprintf(s + k, "%s*a", i ? ", " : "");
        k += (size_t)sprintf(s + k, "]\n");
    } else {
        for (unsigned i = 0; i < n; i++)
            k += (size_t)sprintf(s + k, "k%u: &a%u 1\n", i, i);
    }
    return s;
}

static void test_yaml_bounds(void **state)
{
    (void)state;
    char err[512];
    char *s = nested(INFILE_YAML_DEPTH_MAX);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), 0);
    free(s);
    s = nested(INFILE_YAML_DEPTH_MAX + 1);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), -1);
    /* the 65th level opens at column 3 + 64 of line 1 */
    assert_non_null(strstr(err, "f.yaml:1:67: nested deeper than 64 levels"));
    free(s);

    s = anchors(INFILE_YAML_ANCHORS_MAX, false);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), 0);
    free(s);
    s = anchors(INFILE_YAML_ANCHORS_MAX + 1, false);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), -1);
    assert_non_null(strstr(err, "f.yaml:1025:"));
    assert_non_null(strstr(err, "more than 1024 YAML anchors"));
    free(s);

    /* a: &a 1 is one anchor; the aliases count on their own */
    s = anchors(INFILE_YAML_ANCHORS_MAX, true);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), 0);
    free(s);
    s = anchors(INFILE_YAML_ANCHORS_MAX + 1, true);
    assert_int_equal(infile_yaml_bounds(s, strlen(s), "f.yaml", err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1024 YAML aliases"));
    free(s);

    /* a syntax error is the reader's to report */
    const char *bad = "a: [1, 2\n";
    assert_int_equal(infile_yaml_bounds(bad, strlen(bad), "f.yaml", err, sizeof err), 0);
}

/* The worst case a 4 MiB machine file can hold stops at the first excess:
 * 2 M levels of nesting are refused after 65 (no timing here: the check is
 * that the parse ends at the excess, which the position shows). */
static void test_yaml_bomb_stops_early(void **state)
{
    (void)state;
    char err[512];
    const size_t n = 4u << 20;
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, "x: ", 3);
    memset(s + 3, '[', n - 3);
    s[n] = '\0';
    assert_int_equal(infile_yaml_bounds(s, n, "bomb.yaml", err, sizeof err), -1);
    assert_non_null(strstr(err, "bomb.yaml:1:67:"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_cap),
        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_yaml_bounds),
        cmocka_unit_test(test_yaml_bomb_stops_early),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
