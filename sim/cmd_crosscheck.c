/*
 * cmd_crosscheck.c - `clearsim crosscheck`: run a sweep natively on this
 * host and in the model for a machine file, side by side.
 *
 * Notes
 *  - The default sweep (issue 4): every kernel the host runs natively over
 *    chunk sizes from 4 KiB to 1 GiB on a buffer of 1 GiB or 1.5x L3; repeat
 *    clearing of sizes from 16 KiB to 256 MiB with a zero and a non-zero
 *    fill; demand faults for each page size the host offers (4 KiB always,
 *    2 MiB with THP or reserved hugetlb pages, 1 GiB with reserved pages).
 *  - Each case is measured with native_run (warm-up + --repeat timed runs,
 *    pinned) and predicted with run_predict. The table gives both and the
 *    error; the summary the median and largest absolute error.
 *  - --output writes a CSV (atomically) that `clearsim plot --kind
 *    predicted-vs-native` draws; --emit-data writes the measurements as a
 *    calibration data file for `clearsim calibrate` (every third case in
 *    the validation set).
 *  - The core clock is the host's state (turbo, other tenants' load), not
 *    the machine's: it is measured (host_measure_core_ghz) between native
 *    cases, and each case is predicted at the mean of the measurements
 *    before and after it (--clock file: at the file's core.freq).
 *    --emit-data records the mean over the cases as the data's clock, and
 *    each case's own.
 *  - Re-measurement: after the first pass, a case whose 95% confidence
 *    interval is wider than --ci percent of its mean is measured again, in
 *    further batches of --repeat runs pooled with the first, noisiest case
 *    first, until none is that wide or --remeasure seconds are spent (and
 *    not past XC_REMEASURE_DEADLINE_S from the start). A
 *    shared host's neighbours disturb single runs; more runs of the noisy
 *    cases make their means steadier at little cost (a batch of a 1 GiB
 *    case takes about a second).
 *  - Progress and ETA on stderr only when it is a terminal.
 */
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "sim/cmd_common.h"
#include "sim/cfg.h"
#include "sim/cli.h"
#include "sim/cmd_model.h"
#include "sim/host.h"
#include "sim/native.h"
#include "sim/outfile.h"
#include "sim/progress.h"
#include "sim/run.h"
#include "sim/sweep.h"
#include "sim/units.h"

#define XC_CASES_MAX 512
#define GIB          (1024.0 * 1024.0 * 1024.0)
#define CLOCK_TRIALS 8   /* host_measure_core_ghz trials between native cases (~45 ms) */
#define XC_RUNS_MAX  100 /* timed runs of a case (--repeat at most) */
#define XC_RUNS_POOL 24  /* re-measurement stops adding batches to a case here */
/* Re-measurement stops this long after the crosscheck started, whatever
 * --remeasure says, leaving the predictions (about a minute on 2 cores) time
 * to finish within 5 minutes (issue 4's bound for the default sweep). */
#define XC_REMEASURE_DEADLINE_S 210.0

typedef struct xc_case {
    char id[64];
    char args[256]; /* the equivalent `clearsim run` options */
    wl_spec_t spec;
    double measured, ci95, predicted;
    double clock_ghz;         /* the core clock measured around its native run, 0: not measured */
    double predicted_at_ghz;  /* the clock the model ran at */
    double rate[XC_RUNS_MAX]; /* bytes/s of each timed run, over every batch */
    uint32_t runs;
    double clock_weighted; /* sum over batches of (clock around it x its runs) */
    uint32_t clock_runs;   /* runs of the batches whose clock was measured */
    bool skipped;
    bool model_failed; /* why says why */
    char why[160];
} xc_case_t;

#define errorf(...) cmd_errorf("crosscheck", __VA_ARGS__)

void cmd_crosscheck_usage(FILE *out)
{
    fputs("usage: clearsim crosscheck --machine NAME|PATH|host [options]\n"
          "\n"
          "Run a sweep natively on this host and in the model of the machine, side by\n"
          "side: every kernel the host runs over chunk sizes from 4 KiB to 1 GiB on a\n"
          "buffer larger than L3, repeat clearing from 16 KiB to 256 MiB with zero and\n"
          "non-zero fills, and demand faults for each page size the host offers. Prints\n"
          "measured and predicted GB/sec (binary GB) per case and the median and largest\n"
          "error.\n"
          "\n"
          "  --machine NAME|PATH|host  the machine file to predict with\n"
          "  --quick                   a smaller sweep (a few cases per kind)\n"
          "  --repeat N                native timed runs per case and batch (default 3)\n"
          "  --ci PCT                  measure a case again while its 95% confidence\n"
          "                            interval is wider than PCT% of its mean (default 5;\n",
          out);
    fprintf(out, "                            0: never), noisiest first, up to %d runs a case\n",
            XC_RUNS_POOL);
    fputs("  --remeasure SECONDS       time those extra batches may take (default 45; never\n"
          "                            past 3.5 minutes from the start)\n"
          "  --cpu N                   CPU to pin native runs to\n"
          "  --threads N               model predictions at once, after every native run\n"
          "                            (1..16; default: online CPUs)\n"
          "  --clock measured|file     the core clock to predict each case at: the host's,\n"
          "                            measured before and after its native run (default),\n"
          "                            or the machine file's core.freq\n"
          "  --output FILE.csv         write the table as CSV (atomically)\n"
          "  --emit-data FILE.yaml     write the measurements as calibration data\n"
          "  -q, --quiet               no progress on stderr\n",
          out);
}

static void add_case(xc_case_t *cs, size_t *n, const char *id, const wl_spec_t *s)
{
    if (*n >= XC_CASES_MAX)
        return;
    xc_case_t *c = &cs[(*n)++];
    memset(c, 0, sizeof(*c));
    snprintf(c->id, sizeof(c->id), "%s", id);
    c->spec = *s;
    char sz[32], ch[32], pg[32];
    unit_format_size(s->size_bytes, sz, sizeof(sz));
    unit_format_size(s->chunk_bytes ? s->chunk_bytes : s->size_bytes, ch, sizeof(ch));
    unit_format_size(s->page_bytes, pg, sizeof(pg));
    if (s->kind == WL_MMAP)
        snprintf(c->args, sizeof(c->args), "--workload mmap -p %s -s %s -l %u -f %s --caller %s",
                 pg, sz, s->loops, s->function, wl_caller_name(s->caller));
    else if (s->caller == WL_CALLER_REPEAT)
        snprintf(c->args, sizeof(c->args), "-s %s -l %u -f %s --caller repeat --fill %u", sz,
                 s->loops, s->function, s->fill);
    else
        snprintf(c->args, sizeof(c->args), "-s %s -k %s -l %u -f %s --fill %u", sz, ch, s->loops,
                 s->function, s->fill);
}

/* Can native_run map pages of this size here? 2 MiB: THP or reserved
 * hugetlb pages; 1 GiB: two reserved pages at least. */
static bool page_available(const host_info_t *h, uint64_t page)
{
    if (page == 4096)
        return true;
    if (page == (2ull << 20))
        return strcmp(h->thp_mode, "always") == 0 || strcmp(h->thp_mode, "madvise") == 0 ||
               host_hugepages_free(h, page) > 0;
    return host_hugepages_free(h, page) >= 2;
}

/* The default sweep for this host. */
static size_t build_sweep(const cfg_machine_t *m, const host_info_t *h, bool quick, xc_case_t *cs)
{
    size_t n = 0;
    uint64_t l3 = m->l3.present ? m->l3.size_bytes : m->l2.size_bytes;
    /* chunks 4 KiB .. 1 GiB in steps of 8 (--quick: 4 KiB .. 256 MiB in steps of 256) */
    uint64_t buf = quick ? (256ull << 20) : (1ull << 30);
    while (buf < l3 + l3 / 2)
        buf <<= 1;
    const kern_info_t *tab = kern_table();
    for (const kern_info_t *k = tab; k->name; k++) {
        char why[128];
        if (!k->native || !kern_native_supported(k, h, why, sizeof(why)) ||
            kern_check_machine(k, m, why, sizeof(why)))
            continue;
        for (uint64_t ch = 4096; ch <= buf; ch <<= (quick ? 8 : 3)) {
            wl_spec_t s;
            wl_spec_init(&s);
            snprintf(s.function, sizeof(s.function), "%s", k->name);
            s.size_bytes = buf;
            s.chunk_bytes = ch;
            s.loops = 1;
            char id[64], c[32];
            unit_format_size(ch, c, sizeof(c));
            snprintf(id, sizeof(id), "%s-k%s", k->name, c);
            add_case(cs, &n, id, &s);
        }
    }
    const char *rep = cli_default_function(m);
    for (uint64_t sz = 16 << 10; sz <= (256ull << 20); sz <<= (quick ? 8 : 2)) {
        for (int f = 0; f < 2; f++) {
            wl_spec_t s;
            wl_spec_init(&s);
            snprintf(s.function, sizeof(s.function), "%s", rep);
            s.size_bytes = sz;
            s.caller = WL_CALLER_REPEAT;
            s.fill = f ? 0x5a : 0;
            uint64_t loops = (256ull << 20) / sz;
            s.loops = (uint32_t)(loops < 4 ? 4 : loops > 4096 ? 4096 : loops);
            char id[64], c[32];
            unit_format_size(sz, c, sizeof(c));
            snprintf(id, sizeof(id), "repeat-%s-fill%02x", c, s.fill);
            add_case(cs, &n, id, &s);
        }
    }
    uint64_t pages[3] = {4096, 2ull << 20, 1ull << 30};
    for (int i = 0; i < 3; i++) {
        if (!page_available(h, pages[i]))
            continue;
        wl_spec_t s;
        wl_spec_init(&s);
        s.kind = WL_MMAP;
        snprintf(s.function, sizeof(s.function), "%s", rep);
        s.page_bytes = pages[i];
        s.size_bytes = i == 2 ? (2ull << 30) : (256ull << 20);
        s.caller = WL_CALLER_PAGE;
        s.loops = 1;
        char id[64], c[32];
        unit_format_size(pages[i], c, sizeof(c));
        snprintf(id, sizeof(id), "fault-%s", c);
        add_case(cs, &n, id, &s);
    }
    return n;
}

/* The model side: every case measured natively, predicted in parallel (the
 * sweep pool). A task writes only its own case. */
typedef struct xc_pool {
    const cfg_machine_t *m;
    const char *path;  /* m's file, reloaded at a case's clock */
    bool at_own_clock; /* predict each case at its measured clock */
    xc_case_t *cs;
} xc_pool_t;

static void xc_task(void *ctx, size_t i)
{
    xc_pool_t *p = ctx;
    xc_case_t *c = &p->cs[i];
    static __thread run_result_t res; /* large: one per thread, not on the stack */
    if (c->skipped)
        return;
    const cfg_machine_t *m = p->m;
    cfg_machine_t *mc = NULL;
    if (p->at_own_clock && c->clock_ghz > 0) {
        cfg_error_t ce = {{0}};
        if (!(mc = cfg_machine_load_at_clock(p->path, c->clock_ghz, &ce))) {
            snprintf(c->why, sizeof(c->why), "%.*s", (int)sizeof(c->why) - 1, ce.msg);
            c->model_failed = true;
            return;
        }
        m = mc;
    }
    c->predicted_at_ghz = m->freq_ghz;
    if (run_predict(m, &c->spec, NULL, &res, c->why, sizeof(c->why)))
        c->model_failed = true;
    else
        c->predicted = res.bytes_per_sec / GIB;
    cfg_machine_destroy(mc);
}

/* One batch of `repeat` timed runs of case c, pooled with its earlier
 * batches. *ghz holds the clock measured before the batch; the one measured
 * after it replaces it, and their mean is the batch's clock. Returns
 * native_run's code (c->why says why). */
static int measure(xc_case_t *c, uint32_t repeat, long cpu, double *ghz, native_result_t *nr)
{
    native_opts_t no;
    native_opts_init(&no);
    no.repeat = repeat;
    no.cpu = (int32_t)cpu;
    no.counters = false;
    int rc = native_run(&c->spec, &no, nr, c->why, sizeof(c->why));
    if (rc)
        return rc;
    for (uint32_t r = 0; r < repeat && c->runs < XC_RUNS_MAX; r++)
        if (nr->run_seconds[r] > 0)
            c->rate[c->runs++] = (double)nr->run.bytes / nr->run_seconds[r];
    native_stat_t st = native_stats(c->rate, c->runs);
    c->measured = st.mean / GIB;
    c->ci95 = st.ci95 / GIB;
    double after = host_measure_core_ghz(CLOCK_TRIALS);
    if (*ghz > 0 && after > 0) {
        c->clock_weighted += (*ghz + after) / 2 * repeat;
        c->clock_runs += repeat;
        c->clock_ghz = c->clock_weighted / c->clock_runs;
    }
    *ghz = after;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The second pass's settings (in) and what it did (out). */
typedef struct xc_remeasure {
    uint32_t repeat;     /* runs per batch */
    long cpu;            /* CPU to pin to, or -1 */
    double ci_frac;      /* re-measure while ci95 / mean is above this */
    double budget_s;     /* seconds it may take */
    double deadline;     /* now_seconds() it never runs past */
    bool quiet;          /* no progress line */
    double *ghz;         /* measure()'s clock state */
    native_result_t *nr; /* measure()'s result buffer */
    size_t batches;      /* out: batches run */
    size_t cases;        /* out: cases that got at least one */
    xc_case_t *failed;   /* out: the case native_run failed on */
} xc_remeasure_t;

/* The second pass: batches for the case whose interval is widest relative
 * to its mean, while one is wider than r->ci_frac and the budget lasts. A
 * case of one run has no interval and is left alone. Returns 0 or
 * native_run's code for case r->failed. */
static int remeasure(xc_case_t *cs, size_t n, xc_remeasure_t *r)
{
    r->batches = r->cases = 0;
    r->failed = NULL;
    double budget_s = r->budget_s;
    if (!(r->ci_frac > 0) || !(budget_s > 0))
        return 0;
    double t0 = now_seconds();
    if (r->deadline - t0 < budget_s)
        budget_s = r->deadline - t0;
    if (!(budget_s > 0))
        return 0;
    progress_t *pg = progress_create("crosscheck re-measure", (uint64_t)(budget_s * 10), !r->quiet);
    int rc = 0;
    for (;;) {
        xc_case_t *worst = NULL;
        double wr = r->ci_frac;
        for (size_t i = 0; i < n; i++) {
            xc_case_t *c = &cs[i];
            double w = c->ci95 / c->measured;
            if (!c->skipped && c->runs + r->repeat <= XC_RUNS_POOL && isfinite(w) && w > wr) {
                worst = c;
                wr = w;
            }
        }
        double spent = now_seconds() - t0;
        if (!worst || spent >= budget_s)
            break;
        progress_update(pg, (uint64_t)(spent * 10));
        r->cases += worst->runs == r->repeat; /* its first extra batch */
        rc = measure(worst, r->repeat, r->cpu, r->ghz, r->nr);
        if (rc) {
            r->failed = worst;
            break;
        }
        r->batches++;
    }
    progress_destroy(pg);
    return rc;
}

/* The range and mean of the cases' measured clocks; 0 when none was measured. */
static double clock_range(const xc_case_t *cs, size_t n, double *lo, double *hi)
{
    double sum = 0;
    size_t k = 0;
    *lo = INFINITY;
    *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (cs[i].skipped || !(cs[i].clock_ghz > 0))
            continue;
        sum += cs[i].clock_ghz;
        k++;
        *lo = fmin(*lo, cs[i].clock_ghz);
        *hi = fmax(*hi, cs[i].clock_ghz);
    }
    if (k == 0)
        *lo = 0;
    return k ? sum / (double)k : 0;
}

/* Median of v[0..n) (sorts v), NAN when empty: GSL's sort and median. */
static double median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

static int write_csv(const char *path, const xc_case_t *cs, size_t n, const char *machine)
{
    char err[256];
    outfile_t *of = outfile_open(path, err, sizeof(err));
    if (!of) {
        errorf("%s", err);
        return -1;
    }
    FILE *f = outfile_fp(of);
    fprintf(f, "case,machine,workload,function,caller,page_bytes,size_bytes,chunk_bytes,loops,"
               "fill,measured_bytes_per_sec,measured_ci95_bytes_per_sec,predicted_bytes_per_sec,"
               "error_pct,predicted_at_ghz,runs\n");
    for (size_t i = 0; i < n; i++) {
        const xc_case_t *c = &cs[i];
        if (c->skipped)
            continue;
        const wl_spec_t *s = &c->spec;
        fprintf(f, "%s,%s,%s,%s,%s,%llu,%llu,%llu,%u,%u,%.0f,%.0f,%.0f,%.3f,%.3f,%u\n", c->id,
                machine, wl_kind_name(s->kind), s->function, wl_caller_name(s->caller),
                (unsigned long long)s->page_bytes, (unsigned long long)s->size_bytes,
                (unsigned long long)(s->chunk_bytes ? s->chunk_bytes : s->size_bytes), s->loops,
                s->fill, c->measured * GIB, c->ci95 * GIB, c->predicted * GIB,
                100 * (c->predicted - c->measured) / c->measured, c->predicted_at_ghz, c->runs);
    }
    if (outfile_commit(of, err, sizeof(err))) {
        errorf("%s", err);
        return -1;
    }
    return 0;
}

static int write_data(const char *path, const xc_case_t *cs, size_t n, const char *machine,
                      const native_result_t *last)
{
    char err[256];
    outfile_t *of = outfile_open(path, err, sizeof(err));
    if (!of) {
        errorf("%s", err);
        return -1;
    }
    FILE *f = outfile_fp(of);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    fprintf(f, "# Native measurements by `clearsim crosscheck --emit-data` on %s.\n", date);
    fprintf(f, "# Host: %s; kernel %s %s.\n", last->host_model, last->kernel_release,
            last->kernel_version);
    fprintf(f, "# Each value is the mean GB/sec (2^30 B/s) of the timed runs; every third\n"
               "# case is kept for validation. Add a fit: section to calibrate with it.\n");
    fprintf(f, "machine: %s\n", machine);
    double lo, hi, mean = clock_range(cs, n, &lo, &hi);
    if (mean > 0)
        fprintf(f,
                "clock: %.2fGHz  # the host's core clock (dependent adds) around the native runs, "
                "%.2f..%.2f GHz; calibrate predicts each case at its own clock:\n",
                mean, lo, hi);
    fprintf(f, "\ncases:\n");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const xc_case_t *c = &cs[i];
        if (c->skipped)
            continue;
        fprintf(f, "  - id: %s\n    set: %s\n", c->id, k % 3 == 2 ? "validate" : "fit");
        char at[32] = "";
        if (c->clock_ghz > 0)
            snprintf(at, sizeof(at), ", core at %.2f GHz", c->clock_ghz);
        fprintf(f,
                "    source: \"native run on %s, %s%s, mean of %u runs +- %.3f GB/s (95%% CI)\"\n",
                date, last->host_model, at, c->runs, c->ci95);
        fprintf(f, "    args: %s\n    value: %.4f\n    tolerance: 0.30\n", c->args, c->measured);
        if (c->clock_ghz > 0)
            fprintf(f, "    clock: %.3fGHz\n", c->clock_ghz);
        k++;
    }
    if (outfile_commit(of, err, sizeof(err))) {
        errorf("%s", err);
        return -1;
    }
    return 0;
}

int cmd_crosscheck_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"machine", required_argument, NULL, 'm'},
        {"quick", no_argument, NULL, 'Q'},
        {"repeat", required_argument, NULL, 'r'},
        {"cpu", required_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"emit-data", required_argument, NULL, 'e'},
        {"clock", required_argument, NULL, 'C'},
        {"ci", required_argument, NULL, 'I'},
        {"remeasure", required_argument, NULL, 'R'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *machine = NULL, *outp = NULL, *datap = NULL;
    bool quick = false, quiet = false, clock_measured = true;
    long repeat = 3, cpu = -1, threads = sysconf(_SC_NPROCESSORS_ONLN);
    double ci_pct = 5, remeasure_s = 45;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (ch) {
        case 'm':
            machine = optarg;
            break;
        case 'Q':
            quick = true;
            break;
        case 'I':
        case 'R': {
            uint64_t v;
            char why[256];
            if (cli_parse_uint(ch == 'I' ? "--ci" : "--remeasure", optarg, 0,
                               ch == 'I' ? 100 : 3600, &v, why, sizeof(why)) != CLI_OK) {
                errorf("%s", why);
                return 2;
            }
            *(ch == 'I' ? &ci_pct : &remeasure_s) = (double)v;
            break;
        }
        case 'r':
        case 'c':
        case 't': {
            const char *name = ch == 'r' ? "--repeat" : ch == 'c' ? "--cpu" : "--threads";
            uint64_t lo = ch == 'c' ? 0 : 1, v;
            uint64_t hi = ch == 'r' ? XC_RUNS_MAX : ch == 'c' ? 4095 : 16;
            char why[256];
            if (cli_parse_uint(name, optarg, lo, hi, &v, why, sizeof(why)) != CLI_OK) {
                errorf("%s", why);
                return 2;
            }
            if (ch == 'r')
                repeat = (long)v;
            else if (ch == 'c')
                cpu = (long)v;
            else
                threads = (long)v;
            break;
        }
        case 'o':
            outp = optarg;
            break;
        case 'e':
            datap = optarg;
            break;
        case 'C':
            if (strcmp(optarg, "measured") && strcmp(optarg, "file")) {
                errorf("--clock %s: expected measured or file", optarg);
                return 2;
            }
            clock_measured = strcmp(optarg, "measured") == 0;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            cmd_crosscheck_usage(stdout);
            return 0;
        default: {
            char why[256];
            cli_getopt_failure(ch, opts, argc, argv, why, sizeof(why));
            errorf("%s", why);
            return 2;
        }
        }
    }
    char why_args[256];
    if (cli_leftover_args(argc, argv, why_args, sizeof(why_args)) != CLI_OK) {
        errorf("%s", why_args);
        return 2;
    }
    if (!machine) {
        errorf("--machine is required; see 'clearsim machines'");
        return 2;
    }
    char err[512];
    static host_pick_t pick;
    cfg_machine_t *m = cmd_machine_open("crosscheck", machine, quiet, &pick);
    if (!m)
        return 1;
    const char *path = pick.path;
    static host_info_t h;
    if (host_detect(&h, err, sizeof(err))) {
        errorf("%s", err);
        cfg_machine_destroy(m);
        return 1;
    }
    static xc_case_t cs[XC_CASES_MAX];
    size_t n = build_sweep(m, &h, quick, cs);
    if (n == 0) {
        errorf("no kernel runs natively on this host and on machine '%s'", m->name);
        cfg_machine_destroy(m);
        return 1;
    }

    /* Every native run first, on a quiet machine; then the predictions, in
     * parallel: a prediction running beside a native run would disturb it. */
    /* The clock between native cases: a case's own is the mean of the
     * measurements before and after it (taken unpinned, after native_run has
     * given the thread its affinity back). */
    double t_start = now_seconds();
    double ghz = host_measure_core_ghz(CLOCK_TRIALS);
    progress_t *pg = progress_create("crosscheck native", n, !quiet);
    static native_result_t nr;
    for (size_t i = 0; i < n; i++) {
        xc_case_t *c = &cs[i];
        progress_update(pg, i);
        int rc = measure(c, (uint32_t)repeat, cpu, &ghz, &nr);
        if (rc == NATIVE_ENOTSUP) {
            c->skipped = true;
            continue;
        }
        if (rc) {
            errorf("%s: native: %s", c->id, c->why);
            progress_destroy(pg);
            cfg_machine_destroy(m);
            return 1;
        }
    }
    progress_destroy(pg);
    xc_remeasure_t rm = {.repeat = (uint32_t)repeat,
                         .cpu = cpu,
                         .ci_frac = ci_pct / 100,
                         .budget_s = remeasure_s,
                         .deadline = t_start + XC_REMEASURE_DEADLINE_S,
                         .quiet = quiet,
                         .ghz = &ghz,
                         .nr = &nr};
    if (remeasure(cs, n, &rm)) {
        errorf("%s: native: %s", rm.failed->id, rm.failed->why);
        cfg_machine_destroy(m);
        return 1;
    }
    /* the clock is the host's state, not the machine's: each case is
     * predicted at the clock measured around its native run */
    xc_pool_t xp = {.m = m, .path = path, .at_own_clock = clock_measured, .cs = cs};
    pg = progress_create("crosscheck model", n, !quiet);
    int prc = sweep_parallel(n, (unsigned)threads, xc_task, &xp, pg, 0, err, sizeof(err));
    progress_destroy(pg);
    for (size_t i = 0; prc == 0 && i < n; i++) {
        if (cs[i].model_failed) {
            snprintf(err, sizeof(err), "%s: model: %s", cs[i].id, cs[i].why);
            prc = -1;
        }
    }
    if (prc) {
        errorf("%s", err);
        if (datap) /* the measurements took minutes: keep them */
            write_data(datap, cs, n, m->name, &nr);
        cfg_machine_destroy(m);
        return 1;
    }

    printf("# crosscheck: host '%s' natively vs model '%s' (%s)\n", h.model_name, m->name, path);
    double clo, chi, cmean = clock_range(cs, n, &clo, &chi);
    if (cmean > 0 && clock_measured)
        printf("# core clock: %.2f..%.2f GHz around the native runs (mean %.2f); the machine file "
               "says %.2f GHz; each case is predicted at its own (column GHz; --clock file: at "
               "the file's)\n",
               clo, chi, cmean, m->freq_ghz);
    else if (cmean > 0)
        printf("# core clock: %.2f..%.2f GHz around the native runs (mean %.2f); predicted at "
               "the machine file's %.2f GHz (--clock file)\n",
               clo, chi, cmean, m->freq_ghz);
    else
        printf("# core clock: not measurable on this host; predicted at the machine file's "
               "%.2f GHz\n",
               m->freq_ghz);
    if (ci_pct > 0 && remeasure_s > 0)
        printf(
            "# measured again: %zu cases whose 95%% interval was wider than %g%% of the mean, in "
            "%zu batches of %ld runs (--ci, --remeasure %g s)\n",
            rm.cases, ci_pct, rm.batches, repeat, remeasure_s);
    printf("%-28s %12s %10s %12s %8s %6s %4s\n", "case", "measured", "+-95%", "predicted", "error",
           "GHz", "runs");
    double errs[XC_CASES_MAX];
    size_t ne = 0;
    double worst = 0;
    const char *worst_id = "-";
    for (size_t i = 0; i < n; i++) {
        xc_case_t *c = &cs[i];
        if (c->skipped) {
            printf("%-28s skipped: %s\n", c->id, c->why);
            continue;
        }
        double e = (c->predicted - c->measured) / c->measured;
        errs[ne++] = fabs(e);
        if (fabs(e) > worst) {
            worst = fabs(e);
            worst_id = c->id;
        }
        char ci[32] = "-"; /* one timed run has no interval */
        if (isfinite(c->ci95))
            snprintf(ci, sizeof(ci), "%.3f", c->ci95);
        printf("%-28s %12.3f %10s %12.3f %+7.1f%% %6.2f %4u\n", c->id, c->measured, ci,
               c->predicted, 100 * e, c->predicted_at_ghz, c->runs);
    }
    double med = median(errs, ne);
    printf("summary: %zu cases, median |error| %.1f%%, max |error| %.1f%% (%s)\n", ne, 100 * med,
           100 * worst, worst_id);
    int rc = 0;
    if (outp && write_csv(outp, cs, n, m->name))
        rc = 1;
    if (datap && write_data(datap, cs, n, m->name, &nr))
        rc = 1;
    cfg_machine_destroy(m);
    if (fflush(stdout) != 0)
        rc = 1;
    return rc;
}
