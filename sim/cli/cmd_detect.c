/*
 * cmd_detect.c - `clearsim detect`: print a machine file (YAML) for this
 * host (sim/host/detect.c), to standard output or to --output FILE.
 *
 * Notes
 *  - --name NAME sets name: (it must equal the file's base name for the
 *    loader); with --output FILE it defaults to FILE's base name, else to
 *    "myhost" (so 'clearsim detect > configs/myhost.yaml' loads as is).
 *  - --base NAME|PATH copies the timing parameters from that machine file
 *    instead of the nearest bundled one.
 *  - The text is checked to load before anything is written.
 *  - --measure runs the microbenchmark suite and fits the timings to it
 *    (sim/study/measure.h); without --output the file goes to standard
 *    output once it is complete.
 */
#include "sim/cli/options.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/host/detect.h"
#include "sim/study/measure.h"
#include "sim/host/host.h"
#include "sim/machine/optval.h"
#include "sim/output/outfile.h"
#include "models/base/errbuf.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("detect", __VA_ARGS__)

void cmd_detect_usage(FILE *out)
{
    fputs("usage: clearsim detect [--measure] [--name NAME] [--base MACHINE] [-o FILE]\n"
          "\n"
          "Print a machine file (YAML) for this host. Identity, CPU features and cache\n"
          "geometry are detected (CPUID or MIDR, /proc/cpuinfo, sysfs) and marked\n"
          "'# detected: <source>'; every timing parameter is copied from the nearest bundled\n"
          "machine (same ISA, then vendor, family, model) and marked '# not measured'.\n"
          "With --measure, the timings come from this host instead: a suite of\n"
          "microbenchmarks runs natively (latency per level, load, store, copy, non-temporal\n"
          "and line-zero stores, fences, calls, string startup, faults; about 2 minutes),\n"
          "every timing is measured or fitted to it, and the figures are kept in the file's\n"
          "microbench: section ('clearsim check FILE' reproduces them).\n"
          "Example: clearsim detect --measure -o ~/.config/clearsim/machines/myhost.yaml\n"
          "\n"
          "      --measure           measure the timings on this host (docs/MICROBENCH.md)\n"
          "      --name NAME         the machine's name (default: the base name of --output,\n"
          "                          else myhost); it must equal the file's base name\n"
          "      --base MACHINE      copy the timings (with --measure: what no figure\n"
          "                          observes) from this machine (a bundled name or a file)\n"
          "                          instead of the nearest one\n"
          "      --figures FILE      --measure: fit to the figures of FILE's microbench:\n"
          "                          section (matched by id) instead of running them\n"
          "      --repeat N          --measure: timed runs per figure (default 5)\n"
          "      --cpu N             --measure: the CPU to pin the runs to\n"
          "  -j, --jobs N            --measure: model runs at once while fitting (default:\n"
          "                          online CPUs)\n"
          "  -o, --output FILE       write to FILE (atomically) instead of standard output\n"
          "  -q, --quiet             --measure: no progress on stderr\n"
          "  -h, --help              show this help\n",
          out);
}

typedef struct detect_args {
    const char *name, *base, *output, *figures;
    bool measure, quiet;
    uint64_t repeat, threads;
    long cpu;
} detect_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    detect_args_t *a = ctx;
    switch (id) {
    case CLI_O_NAME:
        return optval_text(opt, arg, "a machine name", &a->name, err, errlen);
    case CLI_O_BASE:
        return optval_text(opt, arg, "a machine name or file", &a->base, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    case CLI_O_MEASURE:
        a->measure = true;
        return 0;
    case CLI_O_FIGURES:
        return optval_text(opt, arg, "a machine file", &a->figures, err, errlen);
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_REPEAT:
        return optval_uint(opt, arg, 3, 100, &a->repeat, err, errlen);
    case CLI_O_JOBS:
        return optval_uint(opt, arg, 1, 16, &a->threads, err, errlen);
    case CLI_O_CPU: {
        uint64_t v;
        if (optval_uint(opt, arg, 0, 4095, &v, err, errlen))
            return -1;
        a->cpu = (long)v;
        return 0;
    }
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

/* The command line as one string, for the measured file's header. */
static void command_line(int argc, char **argv, char *buf, size_t len)
{
    snprintf(buf, len, "clearsim detect");
    for (int i = 1; i < argc; i++) {
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, " %s", argv[i]);
    }
}

/* --figures: the figures were measured on the host their file names, not
 * necessarily this one; that host's identity, features, caches and clock
 * choose the base machine and go into the fit (this host's own detection
 * would pick another base, e.g. a Zen 5 file for a Zen 3 guest's figures). */
static int figures_host(host_info_t *h, const char *path, char *err, size_t errlen)
{
    machine_t *m = cfg_machine_load(path, err, errlen);
    if (!m)
        return -1;
    h->isa = m->isa;
    snprintf(h->vendor, sizeof h->vendor, "%s", m->vendor);
    h->family = m->family;
    h->model = m->model;
    snprintf(h->model_name, sizeof h->model_name, "%s", m->model_name);
    h->features = m->features;
    h->core_ghz = m->freq_ghz;
    const machine_cache_t *lv[3] = {&m->l1, &m->l2, &m->l3};
    h->n_caches = 0;
    for (uint32_t i = 0; i < 3 && h->n_caches < HOST_CACHES_MAX; i++) {
        if (!lv[i]->present && i == 2)
            continue;
        host_cache_t *c = &h->caches[h->n_caches++];
        memset(c, 0, sizeof *c);
        c->level = i + 1;
        snprintf(c->type, sizeof c->type, "%s", i ? "Unified" : "Data");
        c->size_bytes = lv[i]->size_bytes;
        c->ways = lv[i]->ways;
        c->line_bytes = lv[i]->line_bytes;
        c->sets = lv[i]->sets;
    }
    cfg_machine_destroy(m);
    return 0;
}

/* detect --measure: the suite, the fit, the file. */
static char *measure_text(const host_info_t *h, const detect_args_t *a, const char *name,
                          const char *base_path, const char *why, int argc, char **argv, char *err,
                          size_t errlen)
{
    measure_opts_t o;
    measure_opts_init(&o);
    if (a->repeat)
        o.repeat = (uint32_t)a->repeat;
    o.cpu = (int32_t)a->cpu;
    o.progress = !a->quiet;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = a->threads ? (unsigned)a->threads : cpus > 0 ? (unsigned)cpus : 1;
    measure_t *ms = measure_create(h, base_path, why, &o, err, errlen);
    if (!ms)
        return NULL;
    char cmd[1024];
    command_line(argc, argv, cmd, sizeof cmd);
    char *text = NULL;
    if ((!a->figures || measure_use_figures(ms, a->figures, err, errlen) == 0) &&
        measure_native(ms, err, errlen) == 0 && measure_fit(ms, err, errlen) == 0)
        text = measure_machine_yaml(ms, name, cmd, err, errlen);
    measure_destroy(ms);
    return text;
}

int cmd_detect_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_MEASURE, CLI_O_NAME, CLI_O_BASE,    CLI_O_REPEAT,
                                     CLI_O_CPU,     CLI_O_JOBS, CLI_O_FIGURES, CLI_O_OUTPUT,
                                     CLI_O_QUIET,   CLI_O_END};
    detect_args_t a = {.cpu = -1};
    char why_args[512];
    cli_spec_t spec = {opts, NULL, NULL, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, why_args, sizeof why_args)) {
    case CLI_HELP:
        cmd_detect_usage(stdout);
        return cmd_finish_stdout("detect");
    case CLI_OK:
        break;
    default:
        errorf("%s", why_args);
        return CMD_EXIT_USAGE;
    }
    const char *name = a.name, *base = a.base, *output = a.output;
    char derived[MACHINE_NAME_MAX];
    if (!name) {
        if (output) {
            catalog_base_name(output, derived, sizeof derived);
            name = derived;
        } else {
            name = "myhost";
        }
    }
    if (strlen(name) >= MACHINE_NAME_MAX || !catalog_valid_name(name)) {
        errorf("--name '%.64s': use letters, digits, '-', '_' and '.' (at most %d characters)",
               name, MACHINE_NAME_MAX - 1);
        return CMD_EXIT_USAGE;
    }

    char err[ERR_LEN] = "", why[512] = "", path[MACHINE_TEXT_MAX];
    int rc = CMD_EXIT_RUNTIME;
    char *text = NULL;
    outfile_t *of = NULL;
    host_info_t *h = malloc(sizeof *h);
    if (!h) {
        errorf("out of memory");
        return CMD_EXIT_RUNTIME;
    }
    if (host_detect(h, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    h->core_ghz = host_measure_core_ghz(24);
    if (a.measure && a.figures && figures_host(h, a.figures, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (base) {
        char cerr[512] = "";
        if (cfg_machine_resolve(base, path, sizeof path, cerr, sizeof cerr) != 0) {
            errorf("--base: %s", cerr);
            rc = CMD_EXIT_USAGE;
            goto out;
        }
        snprintf(why, sizeof why, "chosen with --base");
    } else if (detect_nearest(h, path, sizeof path, why, sizeof why, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (!a.measure && (a.repeat || a.threads || a.cpu >= 0 || a.figures)) {
        errorf("--repeat, --cpu, --jobs and --figures go with --measure");
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    text = a.measure ? measure_text(h, &a, name, path, why, argc, argv, err, sizeof err)
                     : detect_machine_yaml(h, name, path, why, err, sizeof err);
    if (!text) {
        errorf("%s", err);
        goto out;
    }
    if (output && !(of = outfile_open(output, err, sizeof err))) {
        errorf("--output %s", err);
        goto out;
    }
    if (fputs(text, of ? outfile_fp(of) : stdout) == EOF) {
        errorf("%s: cannot write: %s", output ? output : "standard output", strerror(errno));
        goto out;
    }
    rc = cmd_finish_output("detect", &of);
out:
    outfile_abort(of);
    free(text);
    free(h);
    return rc;
}
