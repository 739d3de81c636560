/*
 * cmd_native.c - `clearsim native`: run the workload of `clearsim run` on
 * this host, natively, and print it through the same printers and JSON
 * contract as `run`, plus the `native` object (docs/JSON.md).
 *
 * Notes
 *  - Options: the workload options of `run` (sim/cli/options.c, cli_parse_native),
 *    --repeat N and --cpu N; no --machine (the machine is this host).
 *  - Defaults that `run` takes from the machine file (the function) are
 *    taken from the host: its ISA and detected CPU features.
 *  - Exit status: 2 for a bad command line or a workload the options
 *    contradict (wl_validate); 1 when the host cannot run it (a missing CPU
 *    feature or page size), the run fails, or output fails.
 */
#include "sim/cli/cmd_common.h"
#include "models/base/errbuf.h"
#include "sim/cli/commands.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/callers.h"
#include "sim/cli/options.h"
#include "sim/host/host.h"
#include "sim/host/native_run.h"
#include "sim/output/report.h"
#include "sim/machine/units.h"
#include "sim/engine/workload.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("native", __VA_ARGS__)

void cmd_native_usage(FILE *out)
{
    wl_spec_t d;
    char size[32], cap[32], page[32];
    wl_spec_init(&d);
    unit_format_size(d.size_bytes, size, sizeof size);
    unit_format_size(d.extent_cap_bytes, cap, sizeof cap);
    unit_format_size(d.page_bytes, page, sizeof page);
    fprintf(out,
            "usage: clearsim native [options]\n"
            "\n"
            "Run 'perf bench mem memset' or 'perf bench mem mmap' natively on this host with the\n"
            "real kernels (the native mode of the sources 'run' simulates): a warm-up, then\n"
            "--repeat timed runs pinned to one CPU; mean, stddev and 95%% confidence interval;\n"
            "perf counters where the host allows them; the cleared bytes are verified.\n"
            "Output: the formats and JSON contract of 'run', plus a 'native' object.\n"
            "\n"
            "  --workload W              the benchmark: memset or mmap (perf bench mem), or a\n"
            "                            microbenchmark: load, copy, latency, store, ntstore,\n"
            "                            linezero, fence, startup, fault (docs/MICROBENCH.md;\n"
            "                            default %s)\n"
            "  -s, --size SIZE           bytes cleared per loop (default %s)\n"
            "  -k, --chunk SIZE          memset: bytes per call (default: the whole size)\n"
            "  -l, --loops N             passes / map-unmap cycles per run (default %u)\n"
            "  -f, --function NAME       memset: the kernel (see 'clearsim functions'); default:\n"
            "                            rep_stosb with ERMS, else rep_stosq with REP_GOOD, else\n"
            "                            unrolled (x86_64); memset (arm64). mmap: the host\n"
            "                            kernel clears; -f, --caller, --preempt and\n"
            "                            --extent-cap only label the run\n"
            "      --fill N              memset: byte value 0..255 (default %u)\n"
            "      --caller C            memset: chunked (default), repeat, or the kernel's\n"
            "                            folio callers over each --page folio: page (4 KiB\n"
            "                            calls in process_huge_page order) or extent\n"
            "                            (clear_pages capped as --preempt says)\n"
            "      --fault-subpage N     memset --caller page: the subpage cleared last\n"
            "  -p, --page 4KB|2MB|1GB    page size (default %s): 2MB uses reserved hugetlb pages,\n"
            "                            else THP (madvise); 1GB needs reserved hugetlb pages\n"
            "      --fault demand|populate  mmap: touch one byte per page, or MAP_POPULATE\n"
            "                            (default %s)\n"
            "      --preempt none|voluntary|full|lazy  memset --caller extent: caps extents\n"
            "                            under none and voluntary; mmap: label only (default %s)\n"
            "      --extent-cap SIZE     memset --caller extent: the cap; mmap: label only\n"
            "                            (default %s)\n"
            "      --repeat N            timed runs after the warm-up, 1..%u (default %u)\n"
            "      --cpu N               pin to CPU N (default: the CPU it starts on)\n"
            "      --warm-up MS          untimed runs, back to back, for at least MS ms before\n"
            "                            the timed ones, 0..%u (default %u; at least one run)\n"
            "      --format text|csv|json  output format (default text; see docs/JSON.md)\n"
            "  -o, --output FILE         write the report to FILE (atomically); '-' is stdout\n"
            "  -q, --quiet               no progress report on stderr\n"
            "  -h, --help                show this help\n",
            wl_kind_name(d.kind), size, (unsigned)d.loops, (unsigned)d.fill, page,
            wl_fault_name(d.fault), caller_preempt_name(d.preempt), cap, NATIVE_REPEAT_MAX,
            NATIVE_REPEAT_DEFAULT, NATIVE_WARM_MS_MAX, NATIVE_WARM_MS_DEFAULT);
}

/* Fill in what `run` takes from the machine file from the host instead. */
static int apply_host_defaults(run_point_t *p, char *err, size_t errlen)
{
    host_info_t *h = malloc(sizeof *h);
    machine_t *m = calloc(1, sizeof *m);
    int rc = -1;
    if (!h || !m) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (host_detect(h, err, errlen) != 0)
        goto out;
    m->isa = h->isa;
    m->features = h->features;
    snprintf(m->name, sizeof m->name, "host");
    point_apply_defaults(p, m);
    rc = 0;
out:
    free(h);
    free(m);
    return rc;
}

int cmd_native_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    cli_native_t *c = malloc(sizeof *c);
    native_result_t *res = malloc(sizeof *res);
    outfile_t *of = NULL;
    int rc = CMD_EXIT_RUNTIME;
    if (!c || !res) {
        errorf("out of memory");
        goto out;
    }
    switch (cli_parse_native(argc, argv, c, err, sizeof err)) {
    case CLI_HELP:
        cmd_native_usage(stdout);
        rc = cmd_finish_stdout("native");
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (apply_host_defaults(&c->run.point, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (wl_validate(&c->run.point.spec, NULL, err, sizeof err) != 0) {
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    /* open the output before the run, so that a bad --output fails at once */
    if (c->run.output && !(of = outfile_open(c->run.output, err, sizeof err))) {
        errorf("--output %s", err);
        goto out;
    }
    native_opts_t o;
    native_opts_init(&o);
    o.repeat = c->repeat;
    o.cpu = c->cpu;
    o.warm_ms = c->warm_ms;
    o.progress = !c->run.quiet && isatty(STDERR_FILENO);
    if (native_run(&c->run.point.spec, &o, res, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (report_native(of ? outfile_fp(of) : stdout, c->run.format, res, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    rc = cmd_finish_output("native", &of);
out:
    outfile_abort(of);
    free(res);
    free(c);
    return rc;
}
