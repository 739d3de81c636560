/*
 * cmd_machines.c - `clearsim machines`: the catalogued machine files, and
 * with --provenance NAME where each value of one of them comes from.
 *
 * Notes
 *  - --provenance takes what --machine takes (a name, a path or host) and
 *    prints every value with its kind (measured, sourced, fitted, derived,
 *    inherited, detected, unsourced: sim/machine/provenance.h), the line and
 *    the source, then a count per kind. With --format json:
 *    {"machine", "path", "machine_file_sha256", "values": [{"key", "value",
 *    "line", "kind", "from"}], "counts": {kind: n}} (docs/JSON.md).
 *  - Exit codes as every command's (sim/cli/cmd_common.h).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/optval.h"
#include "sim/machine/provenance.h"
#include "sim/output/report.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("machines", __VA_ARGS__)

void cmd_machines_usage(FILE *out)
{
    fputs("usage: clearsim machines [--format text|json] [--provenance NAME|PATH|host]\n"
          "\n"
          "List the bundled machine files (name, ISA, CPU model, description).\n"
          "The configs directory is $CLEARSIM_CONFIGS, else the data directory's configs/\n"
          "(see 'clearsim --help'). Machine files in $CLEARSIM_MACHINES (a ':' list) and\n"
          "$XDG_CONFIG_HOME/clearsim/machines come first.\n"
          "\n"
          "      --format text|json  output format (default text; see docs/JSON.md)\n"
          "      --provenance NAME|PATH|host  instead, every value of that machine file and\n"
          "                          where it comes from: measured, sourced (a published\n"
          "                          source's tag), fitted (clearsim calibrate), derived,\n"
          "                          inherited (shared: another file), detected or\n"
          "                          unsourced, by the value's own comment\n"
          "  -h, --help              show this help\n",
          out);
}

typedef struct machines_args {
    report_format_t format;
    const char *provenance;
} machines_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    machines_args_t *a = ctx;
    if (id == CLI_O_PROVENANCE)
        return optval_text(opt, arg, "a machine name, a file or 'host'", &a->provenance, err,
                           errlen);
    return cli_take_format(opt, arg, report_list_format_names, &a->format, err, errlen);
}

static int print_provenance(const machines_args_t *a)
{
    char err[ERR_LEN];
    host_pick_t pick;
    machine_t *m = cmd_machine_open("machines", a->provenance, false, &pick);
    if (!m)
        return CMD_EXIT_RUNTIME;
    prov_t *p = prov_read(m->path, err, sizeof err);
    if (!p) {
        errorf("--provenance %s", err);
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }
    size_t counts[PROV_KIND_COUNT] = {0};
    for (size_t i = 0; i < prov_count(p); i++)
        counts[prov_entry(p, i)->kind]++;
    int rc = CMD_EXIT_OK;
    if (a->format == REPORT_FMT_JSON) {
        json_t *root = json_object(), *vals = json_array(), *cnt = json_object();
        json_object_set_new(root, "machine", json_string(m->name));
        json_object_set_new(root, "path", json_string(m->path));
        json_object_set_new(root, "machine_file_sha256", json_string(m->file_sha256));
        for (size_t i = 0; i < prov_count(p); i++) {
            const prov_entry_t *e = prov_entry(p, i);
            json_t *o = json_object();
            json_object_set_new(o, "key", json_string(e->key));
            json_object_set_new(o, "value", json_string(e->value));
            json_object_set_new(o, "line", json_integer(e->line));
            json_object_set_new(o, "kind", json_string(prov_kind_name(e->kind)));
            json_object_set_new(o, "from", json_string(e->from));
            json_array_append_new(vals, o);
        }
        for (int k = 0; k < PROV_KIND_COUNT; k++)
            json_object_set_new(cnt, prov_kind_name((prov_kind_t)k),
                                json_integer((json_int_t)counts[k]));
        json_object_set_new(root, "values", vals);
        json_object_set_new(root, "counts", cnt);
        if (report_json_dump(stdout, root, err, sizeof err) != 0) {
            errorf("%s", err);
            rc = CMD_EXIT_RUNTIME;
        }
        json_decref(root);
    } else {
        printf("# %s (%s, sha256 %s)\n", m->name, m->path, m->file_sha256);
        printf("%-36s %-22s %-10s %5s  %s\n", "KEY", "VALUE", "KIND", "LINE", "FROM");
        for (size_t i = 0; i < prov_count(p); i++) {
            const prov_entry_t *e = prov_entry(p, i);
            printf("%-36s %-22.22s %-10s %5u  %.100s\n", e->key, e->value, prov_kind_name(e->kind),
                   e->line, e->from);
        }
        printf("\n#");
        for (int k = 0; k < PROV_KIND_COUNT; k++)
            printf(" %zu %s%s", counts[k], prov_kind_name((prov_kind_t)k),
                   k + 1 < PROV_KIND_COUNT ? "," : "\n");
    }
    prov_destroy(p);
    cfg_machine_destroy(m);
    int out = cmd_finish_stdout("machines");
    return rc != CMD_EXIT_OK ? rc : out;
}

int cmd_machines_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    static const cli_opt_t opts[] = {CLI_O_FORMAT, CLI_O_PROVENANCE, CLI_O_END};
    machines_args_t a = {.format = REPORT_FMT_TEXT};
    cli_spec_t spec = {opts, NULL, NULL, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, err, sizeof err)) {
    case CLI_HELP:
        cmd_machines_usage(stdout);
        return cmd_finish_stdout(NULL);
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        return CMD_EXIT_USAGE;
    }
    if (a.provenance)
        return print_provenance(&a);

    catalog_t *cat = catalog_load(err, sizeof err);
    if (!cat) {
        errorf("%s", err);
        return CMD_EXIT_RUNTIME;
    }
    size_t n = catalog_count(cat), loaded = 0;
    const machine_t **ms = calloc(n ? n : 1, sizeof *ms);
    int rc = CMD_EXIT_OK;
    if (!ms) {
        errorf("out of memory");
        catalog_destroy(cat);
        return CMD_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < n; i++) {
        if (catalog_machine(cat, i)) {
            ms[loaded++] = catalog_machine(cat, i);
        } else { /* list the others, then fail */
            cmd_errorf(NULL, "%s", catalog_error(cat, i));
            rc = CMD_EXIT_RUNTIME;
        }
    }
    if (report_machines(stdout, a.format, ms, loaded, err, sizeof err) != 0) {
        errorf("%s", err);
        rc = CMD_EXIT_RUNTIME;
    }
    free(ms);
    catalog_destroy(cat);
    int out = cmd_finish_stdout(NULL);
    return rc != CMD_EXIT_OK ? rc : out;
}
