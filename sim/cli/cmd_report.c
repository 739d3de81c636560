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
 *  - `--validation --output FILE --trust FILE [--corpus DIR]` writes
 *    docs/VALIDATION.md and the trust file instead (sim/study/validate.h):
 *    every published figure of the corpus predicted and scored, with a
 *    fingerprint of the corpus, the machine files and the sources;
 *    `--validation --check FILE [--trust FILE]` checks them.
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
#include "sim/study/validate.h"

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
          "  -h, --help               show this help\n"
          "\n"
          "       clearsim report --validation --output FILE --trust FILE [--corpus DIR] [-j N]\n"
          "       clearsim report --validation --check FILE [--trust FILE] [--corpus DIR]\n"
          "\n"
          "Generate docs/VALIDATION.md instead: every published figure of the corpus\n"
          "(data/published/) predicted and scored ('clearsim validate'), with the summary\n"
          "by machine; and the trust file that 'clearsim machines', run, bench and explain\n"
          "read their trust line from. Both record a fingerprint of their inputs (the\n"
          "corpus, the machine files, the sources). Regenerate the bundled copies with:\n"
          "  " VALMD_REGEN "\n"
          "\n"
          "      --validation         the validation report and trust file\n"
          "      --trust FILE         the trust file to write (or, with --check, to check)\n"
          "      --corpus DIR         the corpus (default: the data directory's\n"
          "                           data/published)\n",
          out);
}

typedef struct report_args {
    const char *machines;
    const char *output;
    const char *check;
    const char *trust;
    const char *corpus;
    unsigned jobs;
    bool quiet;
    bool validation;
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
    case CLI_O_VALIDATION:
        a->validation = true;
        return 0;
    case CLI_O_TRUST:
        return optval_text(opt, arg, "a file name", &a->trust, err, errlen);
    case CLI_O_CORPUS:
        return optval_text(opt, arg, "a directory", &a->corpus, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

static int parse_args(int argc, char **argv, report_args_t *a, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_MACHINES,   CLI_O_OUTPUT, CLI_O_JOBS,
                                     CLI_O_CHECK_FILE, CLI_O_QUIET,  CLI_O_VALIDATION,
                                     CLI_O_TRUST,      CLI_O_CORPUS, CLI_O_END};
    cli_spec_t spec = {opts, NULL, NULL, on_option, a, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc != CLI_OK)
        return rc;
    if (a->check && a->output) {
        errbuf_set(err, errlen, "--check writes nothing; give --check or --output, not both");
        return CLI_USAGE;
    }
    if (a->validation) {
        if (a->machines) {
            errbuf_set(err, errlen,
                       "--validation covers every machine the corpus judges; "
                       "give --validation or --machines, not both");
            return CLI_USAGE;
        }
        if (!a->check && (!a->output || !a->trust)) {
            errbuf_set(err, errlen,
                       "--validation writes two files: give --output FILE (the "
                       "Markdown) and --trust FILE (the trust file)");
            return CLI_USAGE;
        }
        return CLI_OK;
    }
    if (a->trust || a->corpus) {
        errbuf_set(err, errlen, "%s is for --validation", a->trust ? "--trust" : "--corpus");
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

/* --check FILE for one generated file of --validation. */
static int check_one(const char *path, uint64_t want)
{
    char err[ERR_LEN] = "";
    uint64_t have = 0;
    if (predmd_read_fingerprint(path, &have, err, sizeof err) != 0) {
        errorf("%s", err);
        return CMD_EXIT_RUNTIME;
    }
    if (want != have) {
        errorf("%s is out of date: regenerate with '" VALMD_REGEN "'", path);
        return CMD_EXIT_RUNTIME;
    }
    printf("%s is up to date (inputs fingerprint %016llx)\n", path, (unsigned long long)want);
    return CMD_EXIT_OK;
}

static int do_validation(const report_args_t *a)
{
    char err[ERR_LEN] = "", dir[4096];
    const char *corpus = a->corpus ? a->corpus : val_corpus_dir(dir, sizeof dir);
    uint64_t fp = 0, fp_after = 0;
    int rc = CMD_EXIT_RUNTIME;
    if (a->check) {
        if (valmd_fingerprint(corpus, &fp, err, sizeof err) != 0) {
            errorf("%s", err);
            return CMD_EXIT_RUNTIME;
        }
        rc = check_one(a->check, fp);
        if (rc == CMD_EXIT_OK && a->trust)
            rc = check_one(a->trust, fp);
        return rc == CMD_EXIT_OK ? cmd_finish_stdout("report") : rc;
    }
    outfile_t *of = NULL, *tf = NULL;
    val_corpus_t *c = NULL;
    progress_t *pr = NULL;
    double t0 = now_s();
    unsigned jobs = a->jobs ? a->jobs : cli_default_jobs();
    of = outfile_open(a->output, err, sizeof err);
    if (!of) {
        errorf("--output %s", err);
        goto out;
    }
    tf = outfile_open(a->trust, err, sizeof err);
    if (!tf) {
        errorf("--trust %s", err);
        goto out;
    }
    if (check_binary_current() != 0)
        goto out;
    if (valmd_fingerprint(corpus, &fp, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    bool usage = false;
    c = val_load(corpus, NULL, NULL, &usage, err, sizeof err);
    if (!c) {
        errorf("%s", err);
        goto out;
    }
    pr = progress_create("report", val_n_cases(c), !a->quiet && progress_tty());
    int run_rc = val_run(c, jobs, pr, err, sizeof err);
    progress_destroy(pr);
    pr = NULL;
    if (run_rc != 0) {
        errorf("%s", err);
        goto out;
    }
    if (valmd_fingerprint(corpus, &fp_after, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (fp_after != fp) {
        errorf("the inputs (corpus, machine files or sources) changed while the report ran; run "
               "it again");
        goto out;
    }
    if (valmd_write(c, outfile_fp(of), fp, VALMD_REGEN, err, sizeof err) != 0) {
        errorf("%s %s", a->output, err);
        goto out;
    }
    if (valmd_write_trust(c, outfile_fp(tf), fp, VALMD_REGEN, err, sizeof err) != 0) {
        errorf("%s %s", a->trust, err);
        goto out;
    }
    if (cmd_finish_output("report", &of) != CMD_EXIT_OK ||
        cmd_finish_output("report", &tf) != CMD_EXIT_OK)
        goto out;
    if (!a->quiet)
        fprintf(stderr,
                "clearsim: report: %zu published figures and %zu gains in %.1f s (%u job%s)\n",
                val_n_cases(c), val_n_gains(c), now_s() - t0, jobs, jobs == 1 ? "" : "s");
    rc = CMD_EXIT_OK;
out:
    progress_destroy(pr);
    outfile_abort(of);
    outfile_abort(tf);
    val_destroy(c);
    return rc;
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
    if (a.validation)
        return do_validation(&a);
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
