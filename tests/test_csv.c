/*
 * test_csv.c - the one CSV reader (sim/output/csv.c): quoting, the header,
 * empty, cut and comment lines, the line-length bound at its limit and one
 * past it, and every error with its file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "sim/output/csv.h"

static char err[512];
static char dir[256];

static const char *in(const char *name)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

typedef struct seen {
    int rows, headers;
    char text[1024];
    int stop_at; /* reject this data row (1-based), 0 = none */
} seen_t;

static int collect(void *ctx, const csv_row_t *row, char *e, size_t elen)
{
    seen_t *s = ctx;
    if (row->is_header) {
        s->headers++;
        assert_int_equal(row->n, row->n_header);
        return 0;
    }
    s->rows++;
    if (s->rows == s->stop_at) {
        snprintf(e, elen, "stop at line %zu", row->lineno);
        return 1;
    }
    assert_int_equal(row->n, row->n_header);
    char one[256];
    snprintf(one, sizeof one, "%zu:", row->lineno);
    strcat(s->text, one);
    for (size_t i = 0; i < row->n; i++) {
        snprintf(one, sizeof one, "%s%s=%s", i ? "," : "", row->header[i], row->fields[i]);
        strcat(s->text, one);
    }
    strcat(s->text, "|");
    return 0;
}

static void test_rows(void **state)
{
    (void)state;
    seen_t s = {0};
    /* no file: no rows when that is allowed, else an error */
    assert_int_equal(csv_read(in("none.csv"), CSV_MISSING_EMPTY, collect, &s, err, sizeof err), 0);
    assert_int_equal(csv_read(in("none.csv"), 0, collect, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "none.csv: cannot read"));
    spit(in("empty.csv"), "");
    assert_int_equal(csv_read(in("empty.csv"), 0, collect, &s, err, sizeof err), 0);
    assert_int_equal(csv_read(in("empty.csv"), CSV_NEED_HEADER, collect, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty.csv: empty file (no header)"));
    spit(in("head.csv"), "a,b\n");
    assert_int_equal(csv_read(in("head.csv"), CSV_NEED_HEADER, collect, &s, err, sizeof err), 0);
    assert_int_equal(s.rows, 0);
    assert_int_equal(s.headers, 1);

    /* quoting, an empty field, CRLF, an empty line, and a cut last line */
    spit(in("r.csv"), "name,\"x,y\"\r\n"
                      "\"say \"\"hi\"\"\",\n"
                      "\n"
                      "plain,\"1,2\"\n"
                      "cut,3");
    memset(&s, 0, sizeof s);
    assert_int_equal(csv_read(in("r.csv"), CSV_CUT_LAST, collect, &s, err, sizeof err), 2);
    assert_string_equal(s.text, "2:name=say \"hi\",x,y=|4:name=plain,x,y=1,2|");
    assert_int_equal(csv_read(in("r.csv"), CSV_CUT_LAST, NULL, NULL, err, sizeof err), 2);
    /* without CSV_CUT_LAST the last line is a row */
    assert_int_equal(csv_read(in("r.csv"), 0, NULL, NULL, err, sizeof err), 3);
}

static void test_comments_and_blanks(void **state)
{
    (void)state;
    seen_t s = {0};
    spit(in("c.csv"), "# sizes\n size , weight\n  # a comment\n 4KB ,\t3\n\n\"  8KB \",1\n");
    assert_int_equal(csv_read(in("c.csv"), CSV_COMMENTS, collect, &s, err, sizeof err), 2);
    assert_string_equal(s.text, "4:size=4KB,weight=3|6:size=  8KB ,weight=1|");
    /* without CSV_COMMENTS a '#' line is a row and blanks stay */
    memset(&s, 0, sizeof s);
    spit(in("c2.csv"), "a\n# x\n b \n");
    assert_int_equal(csv_read(in("c2.csv"), 0, collect, &s, err, sizeof err), 2);
    assert_string_equal(s.text, "2:a=# x|3:a= b |");
}

/* A line of exactly CSV_LINE_MAX bytes is read; one byte more is an error
 * naming its line. */
static void test_line_bound(void **state)
{
    (void)state;
    char *big = malloc(CSV_LINE_MAX + 16);
    assert_non_null(big);
    for (int extra = 0; extra <= 1; extra++) {
        size_t n = 0;
        memcpy(big, "a\n", 2);
        n = 2;
        memset(big + n, 'x', CSV_LINE_MAX + extra);
        n += CSV_LINE_MAX + extra;
        big[n++] = '\n';
        big[n] = '\0';
        spit(in("big.csv"), big);
        long rows = csv_read(in("big.csv"), 0, NULL, NULL, err, sizeof err);
        if (extra == 0) {
            assert_int_equal(rows, 1);
        } else {
            assert_int_equal(rows, -1);
            assert_non_null(strstr(err, "big.csv:2: a line longer than 1048576 bytes"));
        }
    }
    free(big);
}

static void test_errors(void **state)
{
    (void)state;
    seen_t s = {0};
    spit(in("short.csv"), "a,b,c\n1,2,3\n4,5\n");
    assert_int_equal(csv_read(in("short.csv"), 0, collect, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "short.csv:3: 2 fields, but the header has 3"));

    spit(in("q.csv"), "a\n\"open\n");
    assert_int_equal(csv_read(in("q.csv"), 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "q.csv:2: a quoted field is not closed"));

    spit(in("q2.csv"), "a,b\n\"x\"y,1\n");
    assert_int_equal(csv_read(in("q2.csv"), 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "q2.csv:2: text after a closing quote"));

    spit(in("q3.csv"), "a,b\nx\"y,1\n");
    assert_int_equal(csv_read(in("q3.csv"), 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "q3.csv:2: a quote inside an unquoted field"));

    FILE *f = fopen(in("nul.csv"), "wb");
    assert_non_null(f);
    fwrite("a\nx\0y\n", 1, 6, f);
    fclose(f);
    assert_int_equal(csv_read(in("nul.csv"), 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "nul.csv:2: a NUL byte"));

    /* the callback stops the read with its own reason */
    spit(in("ok.csv"), "a\n1\n2\n3\n");
    seen_t stop = {.stop_at = 2};
    assert_int_equal(csv_read(in("ok.csv"), 0, collect, &stop, err, sizeof err), -1);
    assert_string_equal(err, "stop at line 3");

    assert_int_equal(csv_read(dir, 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read"));
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_csv.XXXXXX", t && t[0] ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = {"empty.csv", "head.csv", "r.csv",  "c.csv",  "c2.csv",  "big.csv",
                           "short.csv", "q.csv",    "q2.csv", "q3.csv", "nul.csv", "ok.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(in(names[i]));
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_comments_and_blanks),
        cmocka_unit_test(test_line_bound),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
