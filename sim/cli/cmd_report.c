/*
 * cmd_report.c - `clearsim report`: options, help text and errors around
 * sim/study/predictions.c, which generates docs/PREDICTIONS.md.
 *
 * Notes
 *  - `--machines all|a,b,c [--output FILE] [--jobs N]` runs every case and
 *    writes the Markdown (to standard output without --output); the time it
 *    took goes to stderr (never into the file, which must not depend on the
 *    clock), unless -q.
 *  - `--check FILE [--machines ...]` recomputes the inputs fingerprint (no
 *    simulation) and compares it with FILE's: 0 when equal, 1 with "FILE is
 *    out of date: regenerate with '...'" when not.
 *  - --jobs defaults to the number of online CPUs; the output does not depend
 *    on it. Progress and ETA appear only when stderr is a terminal.
 *  - Exit status: 0 success, 1 runtime error or out of date, 2 usage error.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/output/pool.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/options.h"
#include "sim/cli/commands.h"
#include "sim/machine/optval.h"
#include "models/base/errbuf.h"
#include "sim/output/outfile.h"
#include "sim/engine/progress.h"
#include "sim/study/predictions.h"
#include "sim/study/sweep.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("report", __VA_ARGS__)

void cmd_report_usage(FILE *out)
{
    fputs("usage: clearsim report --machines all|NAME,NAME,... [--output FILE] [--jobs N]\n"
          "       clearsim report --check FILE [--machines all|NAME,NAME,...]\n"
          "\n"
          "Generate docs/PREDICTIONS.md: for every selected bundled machine, the predicted\n"
          "GB/s of demand faults with 2 MiB and 1 GiB pages, page-at-a-time against extents,\n"
          "under each preemption model; of the clearing kernels it has (movnti, clzero,\n"
          "dc_zva, stnp, mops) next to the temporal baseline; and of memset in 4 KiB, 2 MiB\n"
          "and 1 GiB chunks. Each row gives the 'clearsim run' options that reproduce it.\n"
          "The file records a fingerprint of its inputs (machine files, model, kernels);\n"
          "it covers the source files, so report runs only from the build tree (an\n"
          "installed clearsim has no sources and says so).\n"
          "Regenerate the bundled copy with:\n"
          "  clearsim report --machines all --output docs/PREDICTIONS.md\n"
          "\n"
          "      --machines all|LIST  the bundled machines to cover ('all', or names separated\n"
          "                           by commas; see 'clearsim machines'); required unless\n"
          "                           --check, which defaults to all\n"
          "  -o, --output FILE        write to FILE (atomically) instead of standard output\n"
          "  -j, --jobs N             threads (default: the number of online CPUs); the\n"
          "                           output does not depend on N\n"
          "      --check FILE         run nothing: recompute the inputs fingerprint and compare\n"
          "                           it with FILE's; exit 1 when FILE is out of date\n"
          "  -q, --quiet              no progress report and no timing on stderr\n"
          "  -h, --help               show this help\n",
          out);
}

typedef struct report_args {
    const char *machines;
    const char *output;
    const char *check;
    unsigned jobs;
    bool quiet;
} report_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    report_args_t *a = ctx;
    switch (id) {
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_MACHINES:
        a->machines = arg;
        return 0;
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    case CLI_O_CHECK_FILE:
        return optval_text(opt, arg, "a file name", &a->check, err, errlen);
    case CLI_O_JOBS:
        return cli_take_jobs(opt, arg, &a->jobs, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

static int parse_args(int argc, char **argv, report_args_t *a, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_MACHINES,   CLI_O_OUTPUT, CLI_O_JOBS,
                                     CLI_O_CHECK_FILE, CLI_O_QUIET,  CLI_O_END};
    cli_spec_t spec = {opts, NULL, NULL, on_option, a, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc != CLI_OK)
        return rc;
    if (a->check && a->output) {
        errbuf_set(err, errlen, "--check writes nothing; give --check or --output, not both");
        return CLI_USAGE;
    }
    if (!a->check && !a->machines) {
        errbuf_set(err, errlen,
                   "--machines is required: 'all' or NAME,NAME,... (see 'clearsim "
                   "machines')");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The predictions come from this binary, the fingerprint from the sources:
 * refuse when a source is newer than the binary (it was not rebuilt). Where
 * the binary cannot be found (no /proc), nothing is checked. */
static int check_binary_current(void)
{
    char err[ERR_LEN] = "", rel[256] = "";
    struct stat exe;
    struct timespec src;
    if (stat("/proc/self/exe", &exe) != 0)
        return 0;
    if (predmd_newest_source(rel, sizeof rel, &src, err, sizeof err) != 0) {
        errorf("%s", err);
        return -1;
    }
    if (src.tv_sec > exe.st_mtim.tv_sec ||
        (src.tv_sec == exe.st_mtim.tv_sec && src.tv_nsec > exe.st_mtim.tv_nsec)) {
        errorf("%s changed after this clearsim was built; rebuild it (cmake --build build) "
               "first",
               rel);
        return -1;
    }
    return 0;
}

static int do_check(const report_args_t *a, char names[][MACHINE_NAME_MAX], size_t n)
{
    char err[ERR_LEN] = "";
    uint64_t want = 0, have = 0;
    if (predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, n, &want, err, sizeof err) !=
            0 ||
        predmd_read_fingerprint(a->check, &have, err, sizeof err) != 0) {
        errorf("%s", err);
        return CMD_EXIT_RUNTIME;
    }
    const char *machines = a->machines ? a->machines : "all";
    if (want != have) {
        errorf("%s is out of date: regenerate with 'clearsim report --machines %s --output %s'",
               a->check, machines, a->check);
        return CMD_EXIT_RUNTIME;
    }
    printf("%s is up to date (inputs fingerprint %016llx)\n", a->check, (unsigned long long)want);
    return cmd_finish_stdout("report");
}

int cmd_report_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    report_args_t a = {0};
    static char names[PREDMD_MACHINES_MAX][MACHINE_NAME_MAX];
    size_t n = 0;
    bool usage = false;

    switch (parse_args(argc, argv, &a, err, sizeof err)) {
    case CLI_HELP:
        cmd_report_usage(stdout);
        return cmd_finish_stdout("report");
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        return CMD_EXIT_USAGE;
    }
    if (predmd_select(a.machines ? a.machines : "all", names, PREDMD_MACHINES_MAX, &n, &usage, err,
                      sizeof err) != 0) {
        errorf("%s", err);
        return usage ? CMD_EXIT_USAGE : CMD_EXIT_RUNTIME;
    }
    if (a.check)
        return do_check(&a, names, n);

    if (a.jobs == 0)
        a.jobs = cli_default_jobs();
    int rc = CMD_EXIT_RUNTIME;
    outfile_t *of = NULL;
    predmd_t *r = NULL;
    progress_t *pr = NULL;
    uint64_t fp = 0;
    double t0 = now_s();

    /* open the output first, so that a bad --output fails at once */
    if (a.output) {
        of = outfile_open(a.output, err, sizeof err);
        if (!of) {
            errorf("--output %s", err);
            goto out;
        }
    }
    if (check_binary_current() != 0)
        goto out;
    /* the fingerprint first: it reads the inputs as they are before the runs */
    if (predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, n, &fp, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    r = predmd_create((const char(*)[MACHINE_NAME_MAX])names, n, a.machines, err, sizeof err);
    if (!r) {
        errorf("%s", err);
        goto out;
    }
    pr = progress_create("report", predmd_n_runs(r), !a.quiet && progress_tty());
    int run_rc = predmd_run(r, a.jobs, pr, err, sizeof err);
    progress_destroy(pr);
    pr = NULL;
    if (run_rc != 0) {
        errorf("%s", err);
        goto out;
    }
    /* an input that changed while the model ran (an editor, a checkout) */
    uint64_t fp_after = 0;
    if (predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, n, &fp_after, err, sizeof err) !=
        0) {
        errorf("%s", err);
        goto out;
    }
    if (fp_after != fp) {
        errorf("the inputs (machine files or sources) changed while the report ran; run it "
               "again");
        goto out;
    }
    if (predmd_write(r, of ? outfile_fp(of) : stdout, fp, err, sizeof err) != 0) {
        errorf("%s %s", a.output ? a.output : "standard output", err);
        goto out;
    }
    if (cmd_finish_output("report", &of) != CMD_EXIT_OK)
        goto out;
    if (!a.quiet)
        fprintf(stderr,
                "clearsim: report: %zu rows from %zu predictions on %zu machine%s in %.1f s "
                "(%u job%s)\n",
                predmd_n_rows(r), predmd_n_runs(r), n, n == 1 ? "" : "s", now_s() - t0, a.jobs,
                a.jobs == 1 ? "" : "s");
    rc = CMD_EXIT_OK;
out:
    progress_destroy(pr);
    outfile_abort(of);
    predmd_destroy(r);
    return rc;
}
