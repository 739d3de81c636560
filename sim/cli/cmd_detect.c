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
 */
#include "sim/cli/options.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/host/detect.h"
#include "sim/host/host.h"
#include "sim/machine/optval.h"
#include "sim/output/outfile.h"
#include "models/base/errbuf.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("detect", __VA_ARGS__)

void cmd_detect_usage(FILE *out)
{
    fputs("usage: clearsim detect [--name NAME] [--base MACHINE] [-o FILE]\n"
          "\n"
          "Print a machine file (YAML) for this host. Identity, CPU features and cache\n"
          "geometry are detected (CPUID or MIDR, /proc/cpuinfo, sysfs) and marked\n"
          "'# detected: <source>'; every timing parameter is copied from the nearest bundled\n"
          "machine (same ISA, then vendor, family, model) and marked '# not measured'.\n"
          "Example: clearsim detect > configs/myhost.yaml\n"
          "\n"
          "      --name NAME         the machine's name (default: the base name of --output,\n"
          "                          else myhost); it must equal the file's base name\n"
          "      --base MACHINE      copy the timings from this machine (a bundled name or a\n"
          "                          file) instead of the nearest one\n"
          "  -o, --output FILE       write to FILE instead of standard output\n"
          "  -h, --help              show this help\n",
          out);
}

typedef struct detect_args {
    const char *name, *base, *output;
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
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

int cmd_detect_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_NAME, CLI_O_BASE, CLI_O_OUTPUT, CLI_O_END};
    detect_args_t a = {0};
    char why_args[512];
    cli_spec_t spec = {opts, NULL, NULL, on_option, &a};
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
    text = detect_machine_yaml(h, name, path, why, err, sizeof err);
    if (!text) {
        errorf("%s", err);
        goto out;
    }
    if (output && !(of = outfile_open(output, err, sizeof err))) {
        errorf("--output %s", err);
        goto out;
    }
    if (fputs(text, of ? outfile_fp(of) : stdout) == EOF) {
        errorf("cannot write %s", output ? output : "to standard output");
        goto out;
    }
    rc = cmd_finish_output("detect", &of);
out:
    outfile_abort(of);
    free(text);
    free(h);
    return rc;
}
