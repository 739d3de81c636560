/*
 * fuzz_cli.c - libFuzzer target for the option parsers of sim/cli/options.c
 * (cli_parse_run, cli_parse_list) and the workload checks that follow them
 * (point_apply_defaults, wl_validate).
 *
 * Notes
 *  - The input is an argument list: arguments separated by NUL bytes (at
 *    most 64 of them; an empty input is none). It is parsed as
 *    `clearsim run ARGS` and as `clearsim machines ARGS`.
 *  - Besides crashes, leaks and UB (ASan + UBSan), it checks the contracts of
 *    cli.h and aborts when one is broken:
 *      - every result is CLI_OK, CLI_HELP or CLI_USAGE; CLI_USAGE sets a
 *        non-empty, one-line reason;
 *      - an accepted command line has --machine, a size in 1..1TiB, a chunk
 *        of at most the size, loops >= 1, a fill <= 255 and a known
 *        function;
 *      - parsing the same arguments twice gives the same result (getopt's
 *        global state is reset).
 *  - An accepted command line is then checked against two bundled machines
 *    (zen3-epyc-7j13, x86_64; graviton3, arm64), as `clearsim run` does:
 *    wl_validate either accepts it or gives a one-line reason.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/cli/options.h"
#include "sim/engine/point.h"
#include "sim/machine/optval.h"
#include "sim/engine/workload.h"

#define ARGS_MAX 64

static void check(int ok)
{
    if (!ok)
        abort();
}

static void check_reason(const char *err)
{
    check(err[0] != '\0' && strchr(err, '\n') == NULL);
}

static machine_t *machines[2];

static void load_machines(void)
{
    static int loaded;
    if (loaded)
        return;
    loaded = 1;
    static const char *const names[] = {"zen3-epyc-7j13", "graviton3"};
    for (int i = 0; i < 2; i++) {
        char path[POINT_MACHINE_ARG_MAX];
        char err[512] = "";
        if (cfg_machine_resolve(names[i], path, sizeof path, err, sizeof err) == 0)
            machines[i] = cfg_machine_load(path, err, sizeof err);
        /* a missing or broken bundled file is not this target's business */
    }
}

/* Split data into argv[1..] (argv[0] = cmd) as fresh, writable copies. */
static int split_args(const uint8_t *data, size_t size, const char *cmd, char **argv)
{
    int argc = 0;
    argv[argc++] = strdup(cmd);
    size_t start = 0;
    for (size_t i = 0; size > 0 && i <= size && argc < ARGS_MAX; i++) {
        if (i == size || data[i] == '\0') {
            char *a = malloc(i - start + 1);
            if (!a)
                break;
            memcpy(a, data + start, i - start);
            a[i - start] = '\0';
            argv[argc++] = a;
            start = i + 1;
        }
    }
    argv[argc] = NULL;
    return argc;
}

static void free_args(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
}

static void check_point(const run_point_t *r, bool need_machine)
{
    const wl_spec_t *s = &r->spec;
    /* (-f help lists the functions: it needs no machine) */
    check(!need_machine || r->machine[0] != '\0' || r->function_help);
    check(s->size_bytes >= 1 && s->size_bytes <= OPTVAL_SIZE_MAX_BYTES);
    check(s->chunk_bytes <= s->size_bytes);
    check(s->loops >= 1 && s->fill <= 255);
    check(memchr(s->function, '\0', sizeof s->function) != NULL);
    /* a clearing kernel or a microbenchmark kernel (load, copy, chase) */
    check(s->function[0] == '\0' || kern_find(s->function) != NULL ||
          kern_bench_find(s->function) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cli_run_t r1, r2;
    char *argv[ARGS_MAX + 1];
    char err[1024];
    if (size > 8192)
        return 0;
    load_machines();

    int argc = split_args(data, size, "run", argv);
    err[0] = '\0';
    int rc = cli_parse_run(argc, argv, &r1, err, sizeof err);
    check(rc == CLI_OK || rc == CLI_HELP || rc == CLI_USAGE);
    if (rc == CLI_USAGE)
        check_reason(err);
    free_args(argc, argv);

    /* the same arguments again: the same answer */
    argc = split_args(data, size, "run", argv);
    char err2[1024] = "";
    check(cli_parse_run(argc, argv, &r2, err2, sizeof err2) == rc);
    check(strcmp(err, err2) == 0);
    free_args(argc, argv);

    if (rc == CLI_OK) {
        check_point(&r1.point, true);
        /* -f all / -f help: the command runs or lists every function */
        for (int i = 0; i < 2 && !r1.point.function_all && !r1.point.function_help; i++) {
            if (!machines[i])
                continue;
            r2 = r1;
            point_apply_defaults(&r2.point, machines[i]);
            check(kern_find(r2.point.spec.function) != NULL ||
                  kern_bench_find(r2.point.spec.function) != NULL);
            err[0] = '\0';
            if (wl_validate(&r2.point.spec, machines[i], err, sizeof err) != 0)
                check_reason(err);
        }
    }

    /* the same bytes as an option string (calibration cases, report cases) */
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, data, size);
        text[size] = '\0';
        static run_point_t p;
        point_init(&p);
        err[0] = '\0';
        if (strlen(text) == size && point_parse_args(&p, text, err, sizeof err) == 0)
            check_point(&p, false);
        else if (strlen(text) == size)
            check_reason(err);
        free(text);
    }

    argc = split_args(data, size, "machines", argv);
    report_format_t fmt;
    err[0] = '\0';
    rc = cli_parse_list(argc, argv, &fmt, err, sizeof err);
    check(rc == CLI_OK || rc == CLI_HELP || rc == CLI_USAGE);
    if (rc == CLI_USAGE)
        check_reason(err);
    else
        check(fmt == REPORT_FMT_TEXT || fmt == REPORT_FMT_JSON);
    free_args(argc, argv);
    return 0;
}
