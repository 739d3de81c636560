/*
 * cmd_run.c - `clearsim run` (one prediction, or every function with -f
 * all) and `clearsim functions` (the kernel table).
 *
 * Notes
 *  - Exit codes: 0 success; 1 runtime error (machine file missing or
 *    invalid, run failure, output failure); 2 usage error (unknown option,
 *    bad option value, an option the workload or the machine rejects).
 *  - --output FILE goes through sim/output/outfile.c (temporary + rename).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/output/outfile.h"
#include "sim/output/report.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf(NULL, __VA_ARGS__)

void cmd_run_usage(FILE *out)
{
    wl_spec_t d;
    run_opts_t o;
    char size[32], cap[32], page[32];
    wl_spec_init(&d);
    run_opts_init(&o);
    unit_format_size(d.size_bytes, size, sizeof size);
    unit_format_size(d.extent_cap_bytes, cap, sizeof cap);
    unit_format_size(d.page_bytes, page, sizeof page);

    fprintf(out,
            "usage: clearsim run --machine NAME|PATH|host [options]\n"
            "\n"
            "Predict one run of 'perf bench mem memset' or 'perf bench mem mmap' on a modelled\n"
            "machine: throughput, perf counters and per-level traffic.\n"
            "Sizes take B, KB, MB, GB, TB (binary, as perf: 1KB = 1024 B) or KiB, MiB, ...\n"
            "\n"
            "  --machine NAME|PATH|host  the machine (required): a bundled name (see\n"
            "                            'clearsim machines'), a YAML file, or 'host' for the\n"
            "                            bundled file that matches this CPU\n"
            "  --workload W              the benchmark: memset or mmap (perf bench mem), or a\n"
            "                            microbenchmark: load, copy, latency, store, ntstore,\n"
            "                            linezero, fence, startup, fault (docs/MICROBENCH.md;\n"
            "                            default %s)\n"
            "  -s, --size SIZE           bytes cleared per loop, at most 1TB (default %s)\n"
            "  -k, --chunk SIZE          memset: bytes per call, at most --size (default: the\n"
            "                            whole size in one call)\n"
            "  -l, --loops N             passes over the buffer / map-unmap cycles (default %u)\n"
            "  -f, --function NAME       the clearing kernel (see 'clearsim functions'; perf's\n"
            "                            names default, x86-64-stosb, x86-64-stosq,\n"
            "                            x86-64-unrolled and x86-64-movnt too); 'all' runs\n"
            "                            every one the machine runs, 'help' lists them;\n"
            "                            default: rep_stosb on x86_64 (rep_stosq without\n"
            "                            ERMS, unrolled without either), memset on arm64\n"
            "      --fill N              memset: byte value 0..255, decimal or 0x.. (default %u)\n"
            "      --caller C            how the kernel is called. memset: chunked (calls of\n"
            "                            --chunk bytes; default), repeat (one call over the\n"
            "                            whole buffer per loop), or the kernel's folio callers\n"
            "                            over each --page folio of the prefaulted buffer:\n"
            "                            page (4 KiB calls in process_huge_page order) or\n"
            "                            extent (clear_pages, capped as --preempt says).\n"
            "                            mmap: page (clear_page per base-page subpage;\n"
            "                            default) or extent (clear_pages over the folio)\n"
            "      --fault-subpage N     memset --caller page: the subpage the fault hit,\n"
            "                            cleared last (default 0)\n"
            "  -p, --page SIZE           the page size. memset: of the buffer (4KB, or\n"
            "                            hugetlb 2MB or 1GB, as perf bench mem memset -p);\n"
            "                            mmap: the base page or a hugetlb size of it (4KB,\n"
            "                            2MB, 1GB; arm64 16KB, 32MB; 64KB, 512MB); default\n"
            "                            %s, or the --base-page\n"
            "      --base-page 4KB|16KB|64KB  mmap: the kernel's base page (16KB and 64KB:\n"
            "                            arm64 only; default 4KB)\n"
            "      --thp never|madvise|always  mmap: the kernel's transparent_hugepage mode;\n"
            "                            with base pages, always faults PMD-sized folios\n"
            "                            (2 MiB with 4 KiB pages) where the mapping holds\n"
            "                            one; perf bench does not madvise its region, so\n"
            "                            madvise faults base pages (default never)\n"
            "      --fault demand|populate  mmap: fault on first touch or at map time\n"
            "                            (default %s)\n"
            "      --preempt none|voluntary|full|lazy  mmap and memset --caller extent:\n"
            "                            preemption model; extents are capped under none and\n"
            "                            voluntary (default %s)\n"
            "      --extent-cap SIZE     mmap and memset --caller extent: the extent cap\n"
            "                            (default %s)\n"
            "      --format text|csv|json  output format (default text; see docs/JSON.md)\n"
            "      --exact               simulate every operation (no steady-state\n"
            "                            extrapolation; periods proven to repeat are still\n"
            "                            stepped in bulk, which is exact)\n"
            "      --no-bulk             no bulk stepping either: simulate every line (the\n"
            "                            reference path, slower)\n"
            "      --seed N              seed of random replacement (default %llu)\n"
            "      --libc NAME-VERSION   memset's dispatch (libc.memset.*) from the table of that\n"
            "                            C library (glibc-2.31 ... glibc-2.4x; docs/LIBC.md)\n"
            "                            instead of the machine file's\n"
            "      --set KEY=VALUE       override a machine-file key after loading (repeat it\n"
            "                            for more keys; configs/README.md lists them), checked\n"
            "                            as the file's own value; core.freq converts every ns\n"
            "                            and GB/s value of the file at the new clock. The\n"
            "                            output records each override\n"
            "  -o, --output FILE         write the report to FILE (atomically: a temporary\n"
            "                            file renamed over FILE on success; FILE is left as\n"
            "                            it was on any error or interrupt); '-' is stdout\n"
            "  -q, --quiet               no progress report on stderr\n"
            "  -h, --help                show this help\n",
            wl_kind_name(d.kind), size, (unsigned)d.loops, (unsigned)d.fill, page,
            wl_fault_name(d.fault), caller_preempt_name(d.preempt), cap,
            (unsigned long long)o.seed);
}

void cmd_functions_usage(FILE *out)
{
    fputs("usage: clearsim functions [--format text|json]\n"
          "\n"
          "List the clearing kernels: name, ISA (x86_64, arm64 or any), the CPU features\n"
          "they need, and what they do.\n"
          "\n"
          "      --format text|json  output format (default text; see docs/JSON.md)\n"
          "  -h, --help              show this help\n",
          out);
}

#define FUNCTIONS_MAX 64

/* -f help: the functions of the workload (on the machine when one is given). */
static int list_functions(const cli_run_t *r, const machine_t *m)
{
    const char *names[FUNCTIONS_MAX];
    size_t n = point_all_functions(&r->point, m, names, FUNCTIONS_MAX);
    printf("# functions of the %s workload%s%s%s:\n", wl_kind_name(r->point.spec.kind),
           m ? " on '" : "", m ? m->name : "", m ? "'" : "");
    for (size_t i = 0; i < n; i++) {
        const kern_info_t *k = kern_find(names[i]);
        const kern_bench_t *b = k ? NULL : kern_bench_find(names[i]);
        const char *perf = k ? kern_perf_name(k) : NULL;
        printf("  %-14s %-16s %s\n", names[i], perf ? perf : "",
               k   ? k->description
               : b ? b->description
                   : "");
    }
    return cmd_finish_stdout(NULL);
}

int cmd_run_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    cli_run_t *r = malloc(sizeof *r);
    run_result_t *res = malloc(sizeof *res);
    machine_t *m = NULL;
    cmd_runs_t *runs = NULL;
    int rc = CMD_EXIT_RUNTIME;
    if (!r || !res) {
        errorf("run: out of memory");
        goto out;
    }
    switch (cli_parse_run(argc, argv, r, err, sizeof err)) {
    case CLI_HELP:
        cmd_run_usage(stdout);
        rc = cmd_finish_stdout(NULL);
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("run: %s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (r->point.function_help && !r->point.machine[0]) {
        rc = list_functions(r, NULL);
        goto out;
    }

    bool usage = false;
    m = cmd_machine_open_point("run", &r->point, r->quiet, NULL, &usage);
    if (!m) {
        if (usage)
            rc = CMD_EXIT_USAGE;
        goto out;
    }
    if (r->point.function_help) {
        rc = list_functions(r, m);
        goto out;
    }
    const char *names[FUNCTIONS_MAX];
    size_t n = 1;
    if (r->point.function_all) {
        n = point_all_functions(&r->point, m, names, FUNCTIONS_MAX);
        if (n == 0) {
            errorf("run: -f all: machine '%s' runs no function of the %s workload", m->name,
                   wl_kind_name(r->point.spec.kind));
            rc = CMD_EXIT_USAGE;
            goto out;
        }
        snprintf(r->point.spec.function, sizeof r->point.spec.function, "%s", names[0]);
    }
    point_apply_defaults(&r->point, m);
    if (wl_validate(&r->point.spec, m, err, sizeof err) != 0) {
        errorf("run: %s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    /* open the output before the run, so that a bad --output fails at once */
    runs = cmd_runs_open("run", r, true, r->point.function_all, &rc);
    if (!runs)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (r->point.function_all)
            snprintf(r->point.spec.function, sizeof r->point.spec.function, "%s", names[i]);
        if (cmd_runs_one(runs, m, res, err, sizeof err) != 0) {
            errorf("run: %s%s%s", r->point.function_all ? r->point.spec.function : "",
                   r->point.function_all ? ": " : "", err);
            rc = CMD_EXIT_RUNTIME;
            goto out;
        }
    }
    rc = cmd_runs_close(runs);
    runs = NULL;
out:
    cmd_runs_abort(runs);
    if (m)
        cfg_machine_destroy(m);
    free(res);
    free(r);
    return rc;
}

int cmd_functions_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    report_format_t fmt;
    switch (cli_parse_list(argc, argv, &fmt, err, sizeof err)) {
    case CLI_HELP:
        cmd_functions_usage(stdout);
        return cmd_finish_stdout(NULL);
    case CLI_OK:
        break;
    default:
        errorf("functions: %s", err);
        return CMD_EXIT_USAGE;
    }
    if (report_functions(stdout, fmt, err, sizeof err) != 0) {
        errorf("functions: %s", err);
        return CMD_EXIT_RUNTIME;
    }
    return cmd_finish_stdout(NULL);
}
