/*
 * options.c - the one option table and the one command-line parser (see
 * options.h), and the command lines of run, native, machines and
 * functions.
 *
 * Notes
 *  - getopt_long runs with opterr = 0 so that getopt never prints; its
 *    failures become one-line reasons here. User text echoed in a message is
 *    shortened to 64 characters and its control characters replaced by '?'.
 *  - Deliberately not checked here: anything that needs the machine file
 *    (kernel ISA/features, granules, page sizes the machine supports); that
 *    is wl_validate()'s job once the machine is loaded.
 */
#include "sim/output/pool.h"
#include "sim/cli/options.h"

#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/base/errbuf.h"
#include "sim/host/native_run.h"
#include "sim/machine/optval.h"
#include "sim/machine/suggest.h"
#include "sim/study/sweep.h"

/* Every option that is not a run point's. */
static const struct {
    cli_opt_t id;
    const char *name;
    char short_name;
    bool has_arg;
} cli_table[] = {
    {CLI_O_QUIET, "quiet", 'q', false},
    {CLI_O_FORMAT, "format", 0, true},
    {CLI_O_OUTPUT, "output", 'o', true},
    {CLI_O_JOBS, "jobs", 'j', true},
    {CLI_O_REPEAT, "repeat", 0, true},
    {CLI_O_CPU, "cpu", 0, true},
    {CLI_O_SWEEP, "sweep", 0, true},
    {CLI_O_SHARD, "shard", 0, true},
    {CLI_O_RESUME, "resume", 0, false},
    {CLI_O_KEEP_GOING, "keep-going", 0, false},
    {CLI_O_SIZES, "sizes", 0, true},
    {CLI_O_SIZES_FILE, "sizes-file", 0, true},
    {CLI_O_REUSE, "reuse", 0, true},
    {CLI_O_WINDOW, "window", 0, true},
    {CLI_O_DIST, "dist", 0, true},
    {CLI_O_MIN_GAIN, "min-gain", 0, true},
    {CLI_O_DELAY, "delay", 0, true},
    {CLI_O_LATENCY_BUDGET, "latency-budget", 0, true},
    {CLI_O_MACHINES, "machines", 0, true},
    {CLI_O_CHECK_FILE, "check", 0, true},
    {CLI_O_CHECK, "check", 0, false},
    {CLI_O_DATA, "data", 0, true},
    {CLI_O_MICROBENCH, "microbench", 0, false},
    {CLI_O_MAX_ITER, "max-iter", 0, true},
    {CLI_O_QUICK, "quick", 0, false},
    {CLI_O_CI, "ci", 0, true},
    {CLI_O_REMEASURE, "remeasure", 0, true},
    {CLI_O_GAINS, "gains", 0, false},
    {CLI_O_PASSES, "passes", 0, true},
    {CLI_O_CLOCK, "clock", 0, true},
    {CLI_O_EMIT_DATA, "emit-data", 0, true},
    {CLI_O_BASE, "base", 0, true},
    {CLI_O_NAME, "name", 0, true},
    {CLI_O_INPUT, "input", 'i', true},
    {CLI_O_KIND, "kind", 0, true},
    {CLI_O_TITLE, "title", 0, true},
    {CLI_O_MEASURE, "measure", 0, false},
    {CLI_O_TOLERANCE, "tolerance", 0, true},
    {CLI_O_FIGURES, "figures", 0, true},
    {CLI_O_BENCH_FUNCTION, "function", 'f', true},
    {CLI_O_CYCLES, "cycles", 'c', false},
    {CLI_O_NR_LOOPS, "nr_loops", 0, true},
    {CLI_O_PROVENANCE, "provenance", 0, true},
    {CLI_O_WARM_UP, "warm-up", 0, true},
    {CLI_O_SOURCE, "source", 0, true},
    {CLI_O_CORPUS, "corpus", 0, true},
    {CLI_O_VALIDATION, "validation", 0, false},
    {CLI_O_TRUST, "trust", 0, true},
};
#define N_TABLE (sizeof cli_table / sizeof cli_table[0])

const char *const cli_point_all[] = {
    "machine", "workload", "size",      "chunk",   "loops",      "function",      "fill",
    "caller",  "page",     "fault",     "preempt", "extent-cap", "exact",         "seed",
    "set",     "thp",      "base-page", "libc",    "no-bulk",    "fault-subpage", NULL};

/* getopt values: a short name's own char; long-only options from 0x100: the
 * command's own at 0x100 + table index, a run point's at 0x200 + index. */
#define VAL_OWN   0x100
#define VAL_POINT 0x200
#define VAL_HELP  'h'
#define OPTS_MAX  64

typedef struct built {
    struct option longs[OPTS_MAX + 2];
    char shorts[2 * OPTS_MAX + 8];
    int n;
    /* what each getopt value stands for: for a short name, its table entry */
    int short_own[128];   /* -1, or the index in cli_table */
    int short_point[128]; /* -1, or the index in point_options */
} built_t;

static int add_long(built_t *b, const char *name, bool has_arg, int val)
{
    if (b->n >= OPTS_MAX)
        return -1;
    b->longs[b->n++] = (struct option){name, has_arg ? required_argument : no_argument, NULL, val};
    return 0;
}

static void add_short(built_t *b, char c, bool has_arg)
{
    size_t n = strlen(b->shorts);
    b->shorts[n++] = c;
    if (has_arg)
        b->shorts[n++] = ':';
    b->shorts[n] = '\0';
}

static int build(const cli_spec_t *spec, built_t *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    memset(b->short_own, -1, sizeof b->short_own);
    memset(b->short_point, -1, sizeof b->short_point);
    strcpy(b->shorts, ":h");
    for (const cli_opt_t *o = spec->opts; o && *o != CLI_O_END; o++) {
        size_t i = 0;
        while (i < N_TABLE && cli_table[i].id != *o)
            i++;
        if (i == N_TABLE)
            return errbuf_set(err, errlen, "internal: option id %d is not in the table", (int)*o);
        char sc = cli_table[i].short_name;
        if (add_long(b, cli_table[i].name, cli_table[i].has_arg, sc ? sc : VAL_OWN + (int)i))
            return errbuf_set(err, errlen, "internal: too many options");
        if (sc) {
            b->short_own[(unsigned char)sc] = (int)i;
            add_short(b, sc, cli_table[i].has_arg);
        }
    }
    for (const char *const *k = spec->point_keys; k && *k; k++) {
        const point_option_t *po = point_option_find(*k);
        if (!po)
            return errbuf_set(err, errlen, "internal: '%s' is not a run option", *k);
        int i = (int)(po - point_options);
        if (add_long(b, po->name, po->has_arg, po->short_name ? po->short_name : VAL_POINT + i))
            return errbuf_set(err, errlen, "internal: too many options");
        if (po->short_name) {
            b->short_point[(unsigned char)po->short_name] = i;
            add_short(b, po->short_name, po->has_arg);
        }
    }
    if (add_long(b, "help", false, VAL_HELP))
        return errbuf_set(err, errlen, "internal: too many options");
    return 0;
}

/* "--name" of the option whose getopt value is v. */
static const char *option_name(const built_t *b, int v, char *buf, size_t len)
{
    for (int i = 0; i < b->n; i++) {
        if (b->longs[i].val == v) {
            snprintf(buf, len, "--%s", b->longs[i].name);
            return buf;
        }
    }
    if (v > 0 && v < 0x80)
        snprintf(buf, len, "-%c", v);
    else
        snprintf(buf, len, "(option)");
    return buf;
}

/* Options an earlier clearsim spelled otherwise, for "did you mean". */
static const struct {
    const char *was, *is;
} renamed[] = {{"threads", "jobs"}, {"out", "output"}};

/* "--NAME" of the command's option nearest to the long option typed (with
 * its dashes), or NULL. */
static const char *nearest_option(const built_t *b, const char *typed)
{
    static _Thread_local char buf[80];
    const char *word = typed + strspn(typed, "-");
    suggest_t sg;
    suggest_init(&sg, word);
    for (int i = 0; i < b->n; i++)
        suggest_offer(&sg, b->longs[i].name);
    const char *hit = suggest_best(&sg);
    for (size_t r = 0; r < sizeof renamed / sizeof renamed[0]; r++)
        for (int i = 0; strcmp(word, renamed[r].was) == 0 && i < b->n; i++)
            if (strcmp(b->longs[i].name, renamed[r].is) == 0)
                hit = b->longs[i].name;
    if (!hit)
        return NULL;
    snprintf(buf, sizeof buf, "--%s", hit);
    return buf;
}

/* A getopt failure ('?' or ':') as a one-line reason. */
static int getopt_failure(int c, const built_t *b, int argc, char **argv, char *err, size_t errlen)
{
    char name[80], a[80];
    const char *arg = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    if (c == ':')
        return errbuf_set_rc(CLI_USAGE, err, errlen, "option '%s' needs a value",
                             option_name(b, optopt, name, sizeof name));
    if (optopt > 0 && optopt < 0x80)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "unrecognized option '-%c'", optopt);
    if (optopt >= VAL_OWN)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "option '%s' takes no value",
                             option_name(b, optopt, name, sizeof name));
    /* unknown or ambiguous long option: show it without any "=value" */
    optval_shown(arg, a, sizeof a);
    char *eq = strchr(a, '=');
    if (eq)
        *eq = '\0';
    char hint[96];
    return errbuf_set_rc(CLI_USAGE, err, errlen, "unrecognized option '%s'%s", a,
                         suggest_hint(nearest_option(b, a), hint, sizeof hint));
}

int cli_parse(int argc, char **argv, const cli_spec_t *spec, char *err, size_t errlen)
{
    static built_t b;
    if (build(spec, &b, err, errlen) != 0)
        return CLI_USAGE;
    bool help = false;
    opterr = 0;
    optind = 0; /* full re-initialisation (glibc), so parsing may run more than once */
    int c;
    while ((c = getopt_long(argc, argv, b.shorts, b.longs, NULL)) != -1) {
        if (c == '?' || c == ':')
            return getopt_failure(c, &b, argc, argv, err, errlen);
        if (c == VAL_HELP) {
            help = true;
            continue;
        }
        int own = -1, pt = -1;
        if (c >= VAL_POINT)
            pt = c - VAL_POINT;
        else if (c >= VAL_OWN)
            own = c - VAL_OWN;
        else if (b.short_own[c] >= 0)
            own = b.short_own[c];
        else
            pt = b.short_point[c];
        int rc;
        if (pt >= 0) {
            rc = point_set(spec->point, point_options[pt].name, optarg, err, errlen);
        } else {
            char opt[80];
            snprintf(opt, sizeof opt, "--%s", cli_table[own].name);
            rc = spec->handler(spec->ctx, cli_table[own].id, opt, optarg, err, errlen);
        }
        if (rc != 0)
            return CLI_USAGE;
    }
    char a[80];
    if (spec->positional && optind < argc)
        *spec->positional = argv[optind++];
    if (optind < argc)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "unexpected argument '%s'",
                             optval_shown(argv[optind], a, sizeof a));
    if (help)
        return CLI_HELP;
    if (spec->point && point_check(spec->point, err, errlen) != 0)
        return CLI_USAGE;
    return CLI_OK;
}

int cli_take_format(const char *opt, const char *arg, const name_value_t *t, report_format_t *out,
                    char *err, size_t errlen)
{
    int v;
    if (optval_choice(opt, arg, t, &v, err, errlen) != 0)
        return -1;
    *out = (report_format_t)v;
    return 0;
}

unsigned cli_default_jobs(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > (long)POOL_JOBS_MAX ? POOL_JOBS_MAX : (unsigned)cpus;
}

int cli_take_jobs(const char *opt, const char *arg, unsigned *out, char *err, size_t errlen)
{
    uint64_t v;
    if (optval_uint(opt, arg, 1, POOL_JOBS_MAX, &v, err, errlen) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* run, native, machines, functions                                          */

int cli_run_option(cli_run_t *r, cli_opt_t id, const char *opt, const char *arg, char *err,
                   size_t errlen)
{
    switch (id) {
    case CLI_O_FORMAT:
        return cli_take_format(opt, arg, report_format_names, &r->format, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name, or '-' for standard output", &r->output, err,
                           errlen);
    case CLI_O_QUIET:
        r->quiet = true;
        return 0;
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

static int run_handler(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                       size_t errlen)
{
    return cli_run_option(ctx, id, opt, arg, err, errlen);
}

void cli_run_init(cli_run_t *r)
{
    memset(r, 0, sizeof *r);
    point_init(&r->point);
    r->format = REPORT_FMT_TEXT;
}

int cli_parse_run(int argc, char **argv, cli_run_t *out, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_FORMAT, CLI_O_OUTPUT, CLI_O_QUIET, CLI_O_END};
    cli_run_init(out);
    cli_spec_t spec = {opts, cli_point_all, &out->point, run_handler, out, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc == CLI_OK && point_check_applies(&out->point, err, errlen) != 0)
        return CLI_USAGE;
    if (rc == CLI_OK && out->point.machine[0] == '\0' && !out->point.function_help)
        return errbuf_set_rc(CLI_USAGE, err, errlen,
                             "--machine is required; see 'clearsim machines'");
    return rc;
}

static int native_handler(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                          size_t errlen)
{
    cli_native_t *n = ctx;
    uint64_t v = 0;
    switch (id) {
    case CLI_O_REPEAT:
        if (optval_uint(opt, arg, 1, NATIVE_REPEAT_MAX, &v, err, errlen))
            return -1;
        n->repeat = (uint32_t)v;
        return 0;
    case CLI_O_CPU:
        if (optval_uint(opt, arg, 0, CPU_SETSIZE - 1, &v, err, errlen))
            return -1;
        n->cpu = (int32_t)v;
        return 0;
    case CLI_O_WARM_UP:
        if (optval_uint(opt, arg, 0, NATIVE_WARM_MS_MAX, &v, err, errlen))
            return -1;
        n->warm_ms = (uint32_t)v;
        return 0;
    default:
        return cli_run_option(&n->run, id, opt, arg, err, errlen);
    }
}

int cli_parse_native(int argc, char **argv, cli_native_t *out, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_FORMAT,  CLI_O_OUTPUT, CLI_O_REPEAT, CLI_O_CPU,
                                     CLI_O_WARM_UP, CLI_O_QUIET,  CLI_O_END};
    static const char *const keys[] = {"workload",   "size",          "chunk", "loops", "function",
                                       "fill",       "caller",        "page",  "fault", "preempt",
                                       "extent-cap", "fault-subpage", NULL};
    memset(out, 0, sizeof *out);
    cli_run_init(&out->run);
    out->repeat = NATIVE_REPEAT_DEFAULT;
    out->cpu = -1;
    out->warm_ms = NATIVE_WARM_MS_DEFAULT;
    cli_spec_t spec = {opts, keys, &out->run.point, native_handler, out, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc == CLI_OK && point_check_applies(&out->run.point, err, errlen) != 0)
        return CLI_USAGE;
    if (rc == CLI_OK && (out->run.point.function_all || out->run.point.function_help))
        return errbuf_set_rc(CLI_USAGE, err, errlen,
                             "-f %s: native runs one function; list them with 'clearsim "
                             "functions'",
                             out->run.point.function_all ? "all" : "help");
    return rc;
}

static int list_handler(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                        size_t errlen)
{
    (void)id;
    return cli_take_format(opt, arg, report_list_format_names, ctx, err, errlen);
}

int cli_parse_list(int argc, char **argv, report_format_t *fmt, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_FORMAT, CLI_O_END};
    *fmt = REPORT_FMT_TEXT;
    cli_spec_t spec = {opts, NULL, NULL, list_handler, fmt, NULL};
    return cli_parse(argc, argv, &spec, err, errlen);
}
