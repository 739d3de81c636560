/*
 * cmd_bench.c - `clearsim bench mem memset|mmap`: perf bench mem's own command
 * lines, with perf's meanings and output layout, predicted on --machine.
 *
 * Notes
 *  - The options are perf's: -s/--size, -l/--nr_loops, -f/--function,
 *    -p/--page, -c/--cycles, and for memset -k/--chunk. For memset, -f is a
 *    function in perf's spelling (default, x86-64-stosb, x86-64-stosq,
 *    x86-64-unrolled, x86-64-movnt) or clearsim's; for mmap it is perf's
 *    demand or populate (clearsim run's --fault). As in perf, -f defaults to
 *    all, and -f help lists the functions.
 *  - `perf bench mem map` (the older name of the mmap benchmark in some
 *    published commands) is taken as mmap.
 *  - The rest are clearsim's: --machine (required), and --format, -o, -q,
 *    --exact, --seed, --set, --libc, and mmap's --caller, --thp,
 *    --base-page, --preempt and --extent-cap.
 *  - Text output is perf's layout ("# Running 'mem/memset' benchmark:",
 *    "# function 'NAME' (DESCRIPTION)", "# Copying SIZE bytes ...", then
 *    GB/sec, or cycles/byte with -c) with a "# machine" line; csv and json
 *    are `clearsim run`'s records, one per function.
 *  - Exit codes as every command's (sim/cli/cmd_common.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/engine/point.h"
#include "sim/machine/cfg.h"
#include "sim/machine/optval.h"
#include "sim/machine/suggest.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("bench", __VA_ARGS__)

void cmd_bench_usage(FILE *out)
{
    fputs("usage: clearsim bench mem memset|mmap --machine NAME|PATH|host [perf's options]\n"
          "\n"
          "Predict 'perf bench mem memset' or 'perf bench mem mmap' on a modelled machine,\n"
          "from perf's own command line, and print perf's output. Sizes as perf: binary\n"
          "units, 1KB = 1024 B.\n"
          "\n"
          "perf's options:\n"
          "  -s, --size SIZE          bytes per loop (default 1MB)\n"
          "  -l, --nr_loops N         loops (default 1)\n"
          "  -f, --function NAME      memset: the function, in perf's spelling (default,\n"
          "                           x86-64-stosb, x86-64-stosq, x86-64-unrolled,\n"
          "                           x86-64-movnt) or clearsim's (see 'clearsim\n"
          "                           functions'); mmap: demand or populate. 'all' runs\n"
          "                           every one the machine has (the default), 'help' lists\n"
          "                           them\n"
          "  -p, --page SIZE          page size: 4KB, 2MB or 1GB (arm64 also 16KB, 64KB and\n"
          "                           their huge pages for mmap; default 4KB)\n"
          "  -k, --chunk SIZE         memset: bytes per call (default: the whole size)\n"
          "  -c, --cycles             print cycles/byte instead of GB/sec\n"
          "\n"
          "clearsim's options:\n"
          "  --machine NAME|PATH|host  the machine (required)\n"
          "  --fill N, --libc NAME-VERSION  memset only; --caller, --thp, --base-page,\n"
          "  --preempt, --extent-cap  mmap only; --exact, --seed, --set KEY=VALUE (as for\n"
          "                           'clearsim run')\n"
          "      --format text|csv|json  output format (default text: perf's layout; csv and\n"
          "                           json hold 'clearsim run' records, one per function)\n"
          "  -o, --output FILE        write the report to FILE (atomically)\n"
          "  -q, --quiet              no progress report on stderr\n"
          "  -h, --help               show this help\n"
          "\n"
          "Example: clearsim bench mem memset --machine zen3-epyc-7j13 -k 4KB -s 4GB -f "
          "x86-64-stosq\n",
          out);
}

typedef struct bench_args {
    cli_run_t run;
    bool mmap;
    bool cycles;
    const char *function; /* -f as given (NULL: all) */
    char size_text[64];   /* -s as given, for "# Copying ..." */
} bench_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    bench_args_t *a = ctx;
    switch (id) {
    case CLI_O_BENCH_FUNCTION:
        return optval_text(opt, arg, "a function, 'all' or 'help'", &a->function, err, errlen);
    case CLI_O_CYCLES:
        a->cycles = true;
        return 0;
    case CLI_O_NR_LOOPS:
        return point_set(&a->run.point, "loops", arg, err, errlen);
    default:
        return cli_run_option(&a->run, id, opt, arg, err, errlen);
    }
}

static const char *const memset_keys[] = {"machine", "size", "chunk", "page",  "fill", "exact",
                                          "seed",    "set",  "libc",  "loops", NULL};
static const char *const mmap_keys[] = {"machine", "size",       "page", "exact", "seed",
                                        "set",     "caller",     "thp",  "loops", "base-page",
                                        "preempt", "extent-cap", NULL};

/* The size as perf prints it: the -s argument as given, else perf's 1MB. */
static void take_size_text(bench_args_t *a, int argc, char **argv)
{
    snprintf(a->size_text, sizeof a->size_text, "1MB");
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if ((strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "--size") == 0) && i + 1 < argc)
            v = argv[i + 1];
        else if (strncmp(argv[i], "--size=", 7) == 0)
            v = argv[i] + 7;
        else if (strncmp(argv[i], "-s", 2) == 0 && argv[i][2])
            v = argv[i] + 2;
        if (v)
            snprintf(a->size_text, sizeof a->size_text, "%s", v);
    }
}

/* The functions to run: names[] (clearsim's kernels for memset; "demand",
 * "populate" for mmap). Returns their count, 0 with a reason in err. */
static size_t bench_functions(const bench_args_t *a, const machine_t *m, const char **names,
                              size_t max, char *err, size_t errlen)
{
    static const char *const faults[] = {"demand", "populate"};
    const char *f = a->function ? a->function : "all";
    if (a->mmap) {
        if (strcmp(f, "all") == 0) {
            names[0] = faults[0], names[1] = faults[1];
            return 2;
        }
        for (size_t i = 0; i < 2; i++)
            if (strcmp(f, faults[i]) == 0) {
                names[0] = faults[i];
                return 1;
            }
        char hint[96];
        errbuf_set(err, errlen, "-f '%s': mmap's functions are demand and populate%s", f,
                   suggest_hint(suggest_nearest(f, faults, 2), hint, sizeof hint));
        return 0;
    }
    if (strcmp(f, "all") == 0) {
        size_t n = point_all_functions(&a->run.point, m, names, max);
        if (n == 0)
            errbuf_set(err, errlen, "machine '%s' runs no memset function", m->name);
        return n;
    }
    run_point_t *p = malloc(sizeof *p);
    if (!p) {
        errbuf_set(err, errlen, "out of memory");
        return 0;
    }
    point_init(p);
    size_t n = 0;
    if (point_set(p, "function", f, err, errlen) == 0) {
        const kern_info_t *k = kern_find(p->spec.function);
        if (!k)
            errbuf_set(err, errlen, "-f %s: not a memset function", f);
        else
            names[n++] = k->name;
    }
    free(p);
    return n;
}

/* -f help: perf's list, for this machine. */
static int list_functions(const bench_args_t *a, const machine_t *m)
{
    const char *names[64];
    char err[ERR_LEN];
    if (a->mmap) {
        printf("# List of available functions (mem/mmap):\n"
               "  demand    pages fault on first touch\n"
               "  populate  pages are faulted at map time (MAP_POPULATE)\n");
        return cmd_finish_stdout("bench");
    }
    size_t n = point_all_functions(&a->run.point, m, names, 64);
    (void)err;
    printf("# List of available functions (mem/memset) on '%s':\n", m->name);
    for (size_t i = 0; i < n; i++) {
        const kern_info_t *k = kern_find(names[i]);
        const char *perf = kern_perf_name(k);
        printf("  %-16s %s%s%s%s\n", perf ? perf : names[i], k->description, perf ? " [" : "",
               perf ? names[i] : "", perf ? "]" : "");
    }
    return cmd_finish_stdout("bench");
}

/* perf's text for one function. */
static void print_perf(FILE *out, const bench_args_t *a, const char *name, const run_result_t *r,
                       bool first, const char *trust_line)
{
    const kern_info_t *k = kern_find(r->spec.function);
    const char *perf = k ? kern_perf_name(k) : NULL;
    if (first)
        fprintf(out, "# Running 'mem/%s' benchmark:\n", a->mmap ? "mmap" : "memset");
    if (a->mmap)
        fprintf(out, "# function '%s' (%s; clear_page: %s)\n", name,
                strcmp(name, "demand") == 0 ? "demand-faulted mmap()" : "MAP_POPULATE mmap()",
                r->spec.function);
    else
        fprintf(out, "# function '%s' (%s)\n", perf ? perf : name, k ? k->description : "");
    fprintf(out, "# machine '%s' (simulated)\n", r->machine);
    if (first)
        fprintf(out, "# %s\n", trust_line);
    fprintf(out, "# Copying %s bytes ...\n\n", a->size_text);
    double bytes = (double)r->bytes;
    if (a->cycles) {
        fprintf(out, "%15f cycles/byte\n", bytes > 0 ? (double)r->cycles / bytes : 0.0);
        return;
    }
    /* perf's print_bps: the largest binary unit the rate reaches */
    double bps = r->bytes_per_sec;
    if (bps < 1024.0)
        fprintf(out, "%15f bytes/sec\n", bps);
    else if (bps < 1024.0 * 1024.0)
        fprintf(out, "%15f KB/sec\n", bps / 1024.0);
    else if (bps < 1024.0 * 1024.0 * 1024.0)
        fprintf(out, "%15f MB/sec\n", bps / 1024.0 / 1024.0);
    else
        fprintf(out, "%15f GB/sec\n", bps / 1024.0 / 1024.0 / 1024.0);
}

int cmd_bench_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    bench_args_t *a = calloc(1, sizeof *a);
    run_result_t *res = malloc(sizeof *res);
    machine_t *m = NULL;
    cmd_runs_t *runs = NULL;
    int rc = CMD_EXIT_RUNTIME;
    if (!a || !res) {
        errorf("out of memory");
        goto out;
    }
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        cmd_bench_usage(stdout);
        rc = cmd_finish_stdout("bench");
        goto out;
    }
    static const char *const suites[] = {"mem"}, *const benches[] = {"memset", "mmap", "map"};
    char hint[96];
    if (argc < 3 || strcmp(argv[1], "mem") != 0 ||
        (strcmp(argv[2], "memset") && strcmp(argv[2], "mmap") && strcmp(argv[2], "map"))) {
        const char *bad = argc < 2                 ? ""
                          : strcmp(argv[1], "mem") ? argv[1]
                          : argc < 3               ? ""
                                                   : argv[2];
        const char *near = argc >= 2 && strcmp(argv[1], "mem") ? suggest_nearest(bad, suites, 1)
                                                               : suggest_nearest(bad, benches, 3);
        errorf("give 'bench mem memset' or 'bench mem mmap'%s%.64s%s%s; see 'clearsim bench "
               "--help'",
               bad[0] ? " (not '" : "", bad, bad[0] ? "')" : "",
               suggest_hint(near, hint, sizeof hint));
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    a->mmap = strcmp(argv[2], "memset") != 0;
    cli_run_init(&a->run);
    if (point_set(&a->run.point, "workload", a->mmap ? "mmap" : "memset", err, sizeof err)) {
        errorf("%s", err);
        goto out;
    }
    static const cli_opt_t opts[] = {
        CLI_O_BENCH_FUNCTION, CLI_O_CYCLES, CLI_O_NR_LOOPS, CLI_O_FORMAT,
        CLI_O_OUTPUT,         CLI_O_QUIET,  CLI_O_END};
    cli_spec_t spec = {opts, a->mmap ? mmap_keys : memset_keys, &a->run.point, on_option, a, NULL};
    take_size_text(a, argc - 2, argv + 2);
    switch (cli_parse(argc - 2, argv + 2, &spec, err, sizeof err)) {
    case CLI_HELP:
        cmd_bench_usage(stdout);
        rc = cmd_finish_stdout("bench");
        goto out;
    case CLI_OK:
        if (point_check_applies(&a->run.point, err, sizeof err) == 0)
            break;
        /* fall through */
    default:
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (!a->run.point.machine[0]) {
        errorf("--machine is required (the machine to predict); see 'clearsim machines'");
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    bool usage = false;
    m = cmd_machine_open_point("bench", &a->run.point, a->run.quiet, NULL, &usage);
    if (!m) {
        if (usage)
            rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (a->function && strcmp(a->function, "help") == 0) {
        rc = list_functions(a, m);
        goto out;
    }
    const char *names[64];
    size_t n = bench_functions(a, m, names, 64, err, sizeof err);
    if (n == 0) {
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    runs = cmd_runs_open("bench", &a->run, false, n > 1, &rc);
    if (!runs)
        goto out;
    for (size_t i = 0; i < n; i++) {
        run_point_t *p = &a->run.point;
        if (a->mmap)
            point_set(p, "fault", names[i], err, sizeof err);
        else
            snprintf(p->spec.function, sizeof p->spec.function, "%s", names[i]);
        p->function_given = !a->mmap;
        point_apply_defaults(p, m);
        if (wl_validate(&p->spec, m, err, sizeof err) != 0) {
            errorf("%s", err);
            rc = CMD_EXIT_USAGE;
            goto out;
        }
        if (cmd_runs_one(runs, m, res, err, sizeof err) != 0) {
            errorf("%s: %s", names[i], err);
            goto out;
        }
        if (a->run.format == REPORT_FMT_TEXT)
            print_perf(cmd_runs_fp(runs), a, names[i], res, i == 0, cmd_runs_trust_line(runs));
    }
    rc = cmd_runs_close(runs);
    runs = NULL;
out:
    cmd_runs_abort(runs);
    if (m)
        cfg_machine_destroy(m);
    free(res);
    free(a);
    return rc;
}
