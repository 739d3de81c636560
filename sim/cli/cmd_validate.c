/*
 * cmd_validate.c - `clearsim validate`: every published figure of the corpus
 * (data/published/, sim/study/validate.h) predicted and scored.
 *
 * Notes
 *  - A report, not a test: it exits 0 when it has run, whatever the errors;
 *    1 when the corpus does not load or a case does not run; 2 on a usage
 *    error (a --machine that is not a bundled machine, a --source the corpus
 *    does not have).
 *  - --corpus DIR reads another corpus directory (tests, a draft).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/engine/progress.h"
#include "sim/machine/catalog.h"
#include "sim/machine/optval.h"
#include "sim/machine/suggest.h"
#include "sim/output/outfile.h"
#include "sim/study/validate.h"

#define ERR_LEN 2048

#define errorf(...) cmd_errorf("validate", __VA_ARGS__)

void cmd_validate_usage(FILE *out)
{
    fputs("usage: clearsim validate [--machine NAME] [--source ID] [-j N] [--format "
          "text|csv|json] [-o FILE]\n"
          "\n"
          "Predict every published clearing, fill, memset and page-fault figure of the corpus\n"
          "(data/published/, one YAML file per source) with the clearsim command line it\n"
          "names, and print the predicted and the published figure and the error; for each\n"
          "gain (a ratio of two figures of one source) the predicted and the published\n"
          "ratio; and per machine the count, the median and the largest |error| of the\n"
          "figures and of the gains. Calibration and anchor cases are scored apart.\n"
          "A report, not a test: it exits 0 when it has run, whatever the errors.\n"
          "docs/VALIDATION.md holds its figures ('clearsim report --validation').\n"
          "\n"
          "      --machine NAME      only the cases that judge this bundled machine\n"
          "      --source ID         only the cases of this source (its id, e.g. RKT25)\n"
          "      --corpus DIR        read the corpus from DIR (default: the data directory's\n"
          "                          data/published, or $CLEARSIM_PUBLISHED)\n"
          "  -j, --jobs N            predictions at once (default: the online CPUs); the\n"
          "                          output does not depend on N\n"
          "      --format text|csv|json  output format (default text; see docs/JSON.md)\n"
          "  -o, --output FILE       write to FILE (atomically) instead of standard output\n"
          "  -q, --quiet             no progress on stderr\n"
          "  -h, --help              show this help\n",
          out);
}

typedef struct validate_args {
    run_point_t *point; /* receives --machine */
    const char *source;
    const char *corpus;
    const char *output;
    report_format_t format;
    unsigned jobs;
    bool quiet;
} validate_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    validate_args_t *a = ctx;
    switch (id) {
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_SOURCE:
        return optval_text(opt, arg, "a source id", &a->source, err, errlen);
    case CLI_O_CORPUS:
        return optval_text(opt, arg, "a directory", &a->corpus, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    case CLI_O_FORMAT:
        return cli_take_format(opt, arg, report_format_names, &a->format, err, errlen);
    case CLI_O_JOBS:
        return cli_take_jobs(opt, arg, &a->jobs, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

/* --machine: a bundled machine's name, else "no machine named ..." with the
 * nearest. Returns 0, or -1 with the reason. */
static int check_machine(const char *name, char *err, size_t errlen)
{
    static char names[256][MACHINE_NAME_MAX];
    size_t n = 0;
    if (cfg_machine_list_bundled(names, 256, &n, err, errlen) != 0)
        return -1;
    suggest_t sg;
    suggest_init(&sg, name);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0)
            return 0;
        suggest_offer(&sg, names[i]);
    }
    char hint[128];
    return errbuf_set(err, errlen,
                      "--machine %s: no machine named '%s' among the bundled machines%s; see "
                      "'clearsim machines'",
                      name, name, suggest_hint(suggest_best(&sg), hint, sizeof hint));
}

int cmd_validate_main(int argc, char **argv)
{
    char err[ERR_LEN] = "", dir[4096];
    validate_args_t a = {0};
    run_point_t *p = malloc(sizeof *p);
    val_corpus_t *c = NULL;
    outfile_t *of = NULL;
    progress_t *pr = NULL;
    int rc = CMD_EXIT_RUNTIME;
    if (!p) {
        errorf("out of memory");
        return rc;
    }
    point_init(p);
    a.point = p;
    static const cli_opt_t opts[] = {CLI_O_SOURCE, CLI_O_CORPUS, CLI_O_JOBS, CLI_O_FORMAT,
                                     CLI_O_OUTPUT, CLI_O_QUIET,  CLI_O_END};
    static const char *const keys[] = {"machine", NULL};
    cli_spec_t spec = {opts, keys, p, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, err, sizeof err)) {
    case CLI_HELP:
        cmd_validate_usage(stdout);
        rc = cmd_finish_stdout("validate");
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    const char *machine = p->machine[0] ? p->machine : NULL;
    if (machine && check_machine(machine, err, sizeof err) != 0) {
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (a.jobs == 0)
        a.jobs = cli_default_jobs();
    if (a.output) {
        of = outfile_open(a.output, err, sizeof err);
        if (!of) {
            errorf("--output %s", err);
            goto out;
        }
    }
    bool usage = false;
    c = val_load(a.corpus ? a.corpus : val_corpus_dir(dir, sizeof dir), machine, a.source, &usage,
                 err, sizeof err);
    if (!c) {
        errorf("%s", err);
        rc = usage ? CMD_EXIT_USAGE : CMD_EXIT_RUNTIME;
        goto out;
    }
    pr = progress_create("validate", val_n_cases(c), !a.quiet && progress_tty());
    int run_rc = val_run(c, a.jobs, pr, err, sizeof err);
    progress_destroy(pr);
    pr = NULL;
    if (run_rc != 0) {
        errorf("%s", err);
        goto out;
    }
    if (val_write(c, of ? outfile_fp(of) : stdout, a.format, err, sizeof err) != 0) {
        errorf("%s: %s", a.output ? a.output : "standard output", err);
        goto out;
    }
    rc = of ? cmd_finish_output("validate", &of) : cmd_finish_stdout("validate");
out:
    progress_destroy(pr);
    outfile_abort(of);
    val_destroy(c);
    free(p);
    return rc;
}
