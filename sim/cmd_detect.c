/*
 * cmd_detect.c - `clearsim detect`: print a machine file (YAML) for this
 * host (sim/detect.c), to standard output or to --output FILE.
 *
 * Notes
 *  - --name NAME sets name: (it must equal the file's base name for the
 *    loader); with --output FILE it defaults to FILE's base name, else to
 *    "myhost" (so 'clearsim detect > configs/myhost.yaml' loads as is).
 *  - --base NAME|PATH copies the timing parameters from that machine file
 *    instead of the nearest bundled one.
 *  - The text is checked to load before anything is written.
 */
#include "sim/cli.h"
#include "sim/cmd_common.h"
#include "sim/cmd_detect.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/detect.h"
#include "sim/host.h"

enum { DETECT_EXIT_OK = 0, DETECT_EXIT_RUNTIME = 1, DETECT_EXIT_USAGE = 2 };

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

static bool valid_name(const char *s)
{
    if (!s[0])
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

/* The base name of path without .yaml / .yml. */
static void base_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%s", b ? b + 1 : path);
    size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
        buf[n - 5] = '\0';
    else if (n > 4 && strcmp(buf + n - 4, ".yml") == 0)
        buf[n - 4] = '\0';
}

int cmd_detect(int argc, char **argv)
{
    enum { OPT_NAME = 0x100, OPT_BASE };
    static const struct option opts[] = {
        {"name", required_argument, NULL, OPT_NAME},
        {"base", required_argument, NULL, OPT_BASE},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *name = NULL, *base = NULL, *output = NULL;
    bool help = false;
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NAME:
            name = optarg;
            break;
        case OPT_BASE:
            base = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
            help = true;
            break;
        default: {
            char why[256];
            cli_getopt_failure(c, opts, argc, argv, why, sizeof(why));
            errorf("%s", why);
            return DETECT_EXIT_USAGE;
        }
        }
    }
    char why_args[256];
    if (cli_leftover_args(argc, argv, why_args, sizeof(why_args)) != CLI_OK) {
        errorf("%s", why_args);
        return DETECT_EXIT_USAGE;
    }
    if (help) {
        cmd_detect_usage(stdout);
        return fflush(stdout) == 0 ? DETECT_EXIT_OK : DETECT_EXIT_RUNTIME;
    }
    char derived[CFG_NAME_MAX];
    if (!name) {
        if (output) {
            base_name(output, derived, sizeof derived);
            name = derived;
        } else {
            name = "myhost";
        }
    }
    if (strlen(name) >= CFG_NAME_MAX || !valid_name(name)) {
        errorf("--name '%.64s': use letters, digits, '-', '_' and '.' (at most %d characters)",
               name, CFG_NAME_MAX - 1);
        return DETECT_EXIT_USAGE;
    }

    char err[ERR_LEN] = "", why[512] = "", path[CFG_TEXT_MAX];
    int rc = DETECT_EXIT_RUNTIME;
    char *text = NULL;
    host_info_t *h = malloc(sizeof *h);
    if (!h) {
        errorf("out of memory");
        return DETECT_EXIT_RUNTIME;
    }
    if (host_detect(h, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    h->core_ghz = host_measure_core_ghz(24);
    if (base) {
        cfg_error_t cerr = {{0}};
        if (cfg_machine_resolve(base, path, sizeof path, &cerr) != 0) {
            errorf("--base: %s", cerr.msg);
            rc = DETECT_EXIT_USAGE;
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
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
        errorf("--output %s: cannot create it", output);
        goto out;
    }
    bool bad = fputs(text, f) == EOF;
    bad |= output ? fclose(f) != 0 : (fflush(f) != 0 || ferror(f));
    if (bad) {
        errorf("cannot write %s", output ? output : "to standard output");
        goto out;
    }
    rc = DETECT_EXIT_OK;
out:
    free(text);
    free(h);
    return rc;
}
