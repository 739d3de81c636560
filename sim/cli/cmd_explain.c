/*
 * cmd_explain.c - `clearsim explain`: what bounds one prediction, and which
 * single change would help it most (sim/study/explain.h).
 *
 * Notes
 *  - It takes exactly run's options (cli_parse_run) and runs the same point.
 *  - Exit codes as run: 0 success; 1 runtime error; 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cmd_common.h"
#include "sim/machine/trust.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/engine/point.h"
#include "sim/machine/cfg.h"
#include "sim/output/outfile.h"
#include "sim/study/explain.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf(NULL, __VA_ARGS__)

void cmd_explain_usage(FILE *out)
{
    fputs("usage: clearsim explain --machine NAME|PATH|host [run options]\n"
          "\n"
          "Predict one run as 'clearsim run' does and say what bounds it: for each resource\n"
          "(store issue, string startup and rate, store buffer, L1 fill buffers, L2 miss\n"
          "slots, latencies, fill bandwidth, WC buffers, memory read and write links, bus,\n"
          "TLB walks, a guest's host-page TLB misses, faults, calls) the share of the\n"
          "measured time it bounded and its occupancy (docs/MODEL.md \"Bottleneck\n"
          "attribution\"). Each resource that bounded at least 1% of the time is then\n"
          "relaxed in a re-run of the same point - its one machine key doubled (counts,\n"
          "bandwidths) or halved (latencies, costs) - and the gain in throughput is\n"
          "printed; the largest is the change that helps most.\n"
          "\n"
          "It takes exactly the options of 'clearsim run' (see 'clearsim run --help'):\n"
          "--machine, --workload, -s, -k, -l, -f, --fill, --caller, -p, --base-page, --thp,\n"
          "--fault, --preempt, --extent-cap, --exact, --seed, --libc, --set, -q, and\n"
          "\n"
          "      --format text|csv|json  output format (default text: a table; json:\n"
          "                            the run's fields, bound_by, bottlenecks and\n"
          "                            recommendation; see docs/JSON.md)\n"
          "      --output FILE         write the report to FILE (atomically, as run)\n"
          "  -h, --help                show this help\n",
          out);
}

int cmd_explain_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    cli_run_t *r = malloc(sizeof *r);
    explain_result_t *res = malloc(sizeof *res);
    machine_t *m = NULL;
    outfile_t *of = NULL;
    FILE *out = stdout;
    int rc = CMD_EXIT_RUNTIME;
    if (!r || !res) {
        errorf("explain: out of memory");
        goto out;
    }
    switch (cli_parse_run(argc, argv, r, err, sizeof err)) {
    case CLI_HELP:
        cmd_explain_usage(stdout);
        rc = cmd_finish_stdout(NULL);
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("explain: %s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    bool usage = false;
    m = cmd_machine_open_point("explain", &r->point, r->quiet, NULL, &usage);
    if (!m) {
        if (usage)
            rc = CMD_EXIT_USAGE;
        goto out;
    }
    point_apply_defaults(&r->point, m);
    if (wl_validate(&r->point.spec, m, err, sizeof err) != 0) {
        errorf("explain: %s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (r->output) {
        of = outfile_open(r->output, err, sizeof err);
        if (!of) {
            errorf("explain: --output %s", err);
            goto out;
        }
        out = outfile_fp(of);
    }
    r->point.opts.progress = !r->quiet && isatty(STDERR_FILENO);
    if (explain_predict(m, &r->point.spec, &r->point.opts, res, err, sizeof err) != 0) {
        errorf("explain: %s", err);
        goto out;
    }
    if (cmd_trust_line(m, &res->trust, res->trust_line, sizeof res->trust_line, err, sizeof err) !=
        0) {
        errorf("explain: %s", err);
        goto out;
    }
    res->has_trust = true;
    if (explain_print(out, r->format, res, err, sizeof err) != 0) {
        errorf("explain: %s", err);
        goto out;
    }
    rc = cmd_finish_output("explain", &of);
out:
    outfile_abort(of);
    if (m)
        cfg_machine_destroy(m);
    free(res);
    free(r);
    return rc;
}
