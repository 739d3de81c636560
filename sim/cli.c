/*
 * cli.c - option parsing for `clearsim run`, `clearsim machines` and
 * `clearsim functions`.
 *
 * Notes
 *  - One option table per subcommand (struct option), one switch that turns
 *    each option into a field of cli_run_t through the value parsers below.
 *    getopt_long runs with opterr = 0 so that getopt never prints; its
 *    failures become one-line reasons here.
 *  - User text echoed in a message is shortened to 64 characters and its
 *    control characters replaced by '?', so a message stays one line.
 *  - Deliberately not checked here: anything that needs the machine file
 *    (kernel ISA/features, granules, page sizes the machine supports); that
 *    is wl_validate()'s job once the machine is loaded.
 *  - Units: sizes in bytes.
 */
#include "sim/cli.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "sim/cfg.h"
#include "sim/errbuf.h"
#include "sim/units.h"

/* A printable, bounded copy of user text for messages. */
static const char *shown(const char *s, char *buf, size_t len)
{
    const size_t max_chars = 64;
    size_t o = 0, i = 0;
    if (len == 0)
        return "";
    for (; s && s[i] && o + 1 < len && i < max_chars; i++)
        buf[o++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    buf[o] = '\0';
    if (s && s[i] && o + 4 < len)
        memcpy(buf + o, "...", 4);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* value parsers                                                             */

int cli_parse_size(const char *opt, const char *arg, uint64_t *out, char *err, size_t errlen)
{
    char why[256], a[80];
    uint64_t v = 0;
    if (unit_parse_size(arg, &v, why, sizeof why) != 0)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': %s", opt, shown(arg, a, sizeof a),
                             why);
    if (v == 0)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': must be greater than 0", opt,
                             shown(arg, a, sizeof a));
    if (v > CLI_SIZE_MAX_BYTES)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': larger than the limit of 1TiB", opt,
                             shown(arg, a, sizeof a));
    *out = v;
    return CLI_OK;
}

int cli_parse_uint(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out,
                   char *err, size_t errlen)
{
    char why[256], a[80];
    uint64_t v = 0;
    if (unit_parse_u64(arg, &v, why, sizeof why) != 0)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': %s", opt, shown(arg, a, sizeof a),
                             why);
    if (v < min || v > max)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': out of range %llu..%llu", opt,
                             shown(arg, a, sizeof a), (unsigned long long)min,
                             (unsigned long long)max);
    *out = v;
    return CLI_OK;
}

int cli_parse_choice(const char *opt, const char *arg, const char *const *names, int *out,
                     char *err, size_t errlen)
{
    char list[256] = "", a[80];
    size_t o = 0;
    for (int i = 0; names[i]; i++) {
        if (arg && strcmp(arg, names[i]) == 0) {
            *out = i;
            return CLI_OK;
        }
        int w = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < sizeof list - o)
            o += (size_t)w;
    }
    return errbuf_set_rc(CLI_USAGE, err, errlen, "%s '%s': must be one of %s", opt,
                         shown(arg, a, sizeof a), list);
}

/* ------------------------------------------------------------------------ */
/* getopt plumbing                                                           */

enum {
    OPT_MACHINE = 0x100,
    OPT_WORKLOAD,
    OPT_FILL,
    OPT_CALLER,
    OPT_FAULT,
    OPT_PREEMPT,
    OPT_EXTENT_CAP,
    OPT_FORMAT,
    OPT_EXACT,
    OPT_SEED,
    OPT_OUTPUT,
    OPT_REPEAT,
    OPT_CPU,
};

static const struct option run_options[] = {
    {"machine", required_argument, NULL, OPT_MACHINE},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"size", required_argument, NULL, 's'},
    {"chunk", required_argument, NULL, 'k'},
    {"loops", required_argument, NULL, 'l'},
    {"function", required_argument, NULL, 'f'},
    {"fill", required_argument, NULL, OPT_FILL},
    {"caller", required_argument, NULL, OPT_CALLER},
    {"page", required_argument, NULL, 'p'},
    {"fault", required_argument, NULL, OPT_FAULT},
    {"preempt", required_argument, NULL, OPT_PREEMPT},
    {"extent-cap", required_argument, NULL, OPT_EXTENT_CAP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"exact", no_argument, NULL, OPT_EXACT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char run_shortopts[] = ":hqs:k:l:f:p:";

/* `native`: the workload options of run, plus --repeat and --cpu. */
static const struct option native_options[] = {
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"size", required_argument, NULL, 's'},
    {"chunk", required_argument, NULL, 'k'},
    {"loops", required_argument, NULL, 'l'},
    {"function", required_argument, NULL, 'f'},
    {"fill", required_argument, NULL, OPT_FILL},
    {"caller", required_argument, NULL, OPT_CALLER},
    {"page", required_argument, NULL, 'p'},
    {"fault", required_argument, NULL, OPT_FAULT},
    {"preempt", required_argument, NULL, OPT_PREEMPT},
    {"extent-cap", required_argument, NULL, OPT_EXTENT_CAP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"cpu", required_argument, NULL, OPT_CPU},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct option list_options[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char list_shortopts[] = ":h";

/* "--name" of the option whose val is v (short options included). */
static const char *option_name(const struct option *opts, int v, char *buf, size_t len)
{
    for (const struct option *o = opts; o->name; o++) {
        if (o->val == v) {
            snprintf(buf, len, "--%s", o->name);
            return buf;
        }
    }
    if (v > 0 && v < 0x80)
        snprintf(buf, len, "-%c", v);
    else
        snprintf(buf, len, "(option)");
    return buf;
}

/* Turn a getopt failure ('?' or ':') into a one-line reason. */
int cli_getopt_failure(int c, const struct option *opts, int argc, char **argv, char *err,
                       size_t errlen)
{
    char name[80], a[80];
    const char *arg = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    if (c == ':')
        return errbuf_set_rc(CLI_USAGE, err, errlen, "option '%s' needs a value",
                             option_name(opts, optopt, name, sizeof name));
    if (optopt > 0 && optopt < 0x80)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "unrecognized option '-%c'", optopt);
    if (optopt >= 0x100)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "option '%s' takes no value",
                             option_name(opts, optopt, name, sizeof name));
    /* unknown or ambiguous long option: show it without any "=value" */
    shown(arg, a, sizeof a);
    char *eq = strchr(a, '=');
    if (eq)
        *eq = '\0';
    return errbuf_set_rc(CLI_USAGE, err, errlen, "unrecognized option '%s'", a);
}

int cli_leftover_args(int argc, char **argv, char *err, size_t errlen)
{
    char a[80];
    if (optind < argc)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "unexpected argument '%s'",
                             shown(argv[optind], a, sizeof a));
    return CLI_OK;
}

/* ------------------------------------------------------------------------ */
/* run                                                                       */

static const char *const workload_names[] = {"memset", "mmap", NULL};
static const wl_kind_t workload_values[] = {WL_MEMSET, WL_MMAP};
static const char *const caller_names[] = {"chunked", "repeat", "page", "extent", NULL};
static const wl_caller_t caller_values[] = {WL_CALLER_CHUNKED, WL_CALLER_REPEAT, WL_CALLER_PAGE,
                                            WL_CALLER_EXTENT};
static const char *const fault_names[] = {"demand", "populate", NULL};
static const wl_fault_t fault_values[] = {WL_FAULT_DEMAND, WL_FAULT_POPULATE};
static const char *const preempt_names[] = {"none", "voluntary", "full", "lazy", NULL};
static const caller_preempt_t preempt_values[] = {CALLER_PREEMPT_NONE, CALLER_PREEMPT_VOLUNTARY,
                                                  CALLER_PREEMPT_FULL, CALLER_PREEMPT_LAZY};
static const char *const format_names[] = {"text", "csv", "json", NULL};
static const report_format_t format_values[] = {REPORT_FMT_TEXT, REPORT_FMT_CSV, REPORT_FMT_JSON};
static const char *const list_format_names[] = {"text", "json", NULL};
static const report_format_t list_format_values[] = {REPORT_FMT_TEXT, REPORT_FMT_JSON};

static int parse_page(const char *arg, uint64_t *out, char *err, size_t errlen)
{
    char a[80];
    uint64_t v = 0;
    int rc = cli_parse_size("--page", arg, &v, err, errlen);
    if (rc != CLI_OK)
        return rc;
    if (v != (4ull << 10) && v != (2ull << 20) && v != (1ull << 30))
        return errbuf_set_rc(CLI_USAGE, err, errlen, "--page '%s': must be 4KB, 2MB or 1GB",
                             shown(arg, a, sizeof a));
    *out = v;
    return CLI_OK;
}

static int parse_function(const char *arg, char *dst, size_t len, char *err, size_t errlen)
{
    char a[80];
    if (strlen(arg) >= len || kern_find(arg) == NULL)
        return errbuf_set_rc(CLI_USAGE, err, errlen,
                             "--function '%s': unknown function; see 'clearsim functions'",
                             shown(arg, a, sizeof a));
    memcpy(dst, arg, strlen(arg) + 1);
    return CLI_OK;
}

static int run_option(int c, const char *arg, cli_run_t *r, bool *chunk_given, char *err,
                      size_t errlen)
{
    wl_spec_t *s = &r->spec;
    uint64_t v = 0;
    int i = 0, rc;
    switch (c) {
    case OPT_MACHINE:
        if (arg[0] == '\0')
            return errbuf_set_rc(CLI_USAGE, err, errlen,
                                 "--machine '': give a machine name, a file or 'host'");
        if (strlen(arg) >= sizeof r->machine)
            return errbuf_set_rc(CLI_USAGE, err, errlen,
                                 "--machine: argument longer than %zu characters",
                                 sizeof r->machine - 1);
        memcpy(r->machine, arg, strlen(arg) + 1);
        return CLI_OK;
    case OPT_WORKLOAD:
        if ((rc = cli_parse_choice("--workload", arg, workload_names, &i, err, errlen)))
            return rc;
        s->kind = workload_values[i];
        return CLI_OK;
    case 's':
        if ((rc = cli_parse_size("--size", arg, &v, err, errlen)))
            return rc;
        s->size_bytes = v;
        return CLI_OK;
    case 'k':
        if ((rc = cli_parse_size("--chunk", arg, &v, err, errlen)))
            return rc;
        s->chunk_bytes = v;
        *chunk_given = true;
        return CLI_OK;
    case 'l':
        if ((rc = cli_parse_uint("--loops", arg, 1, UINT32_MAX, &v, err, errlen)))
            return rc;
        s->loops = (uint32_t)v;
        return CLI_OK;
    case 'f':
        if ((rc = parse_function(arg, s->function, sizeof s->function, err, errlen)))
            return rc;
        r->function_given = true;
        return CLI_OK;
    case OPT_FILL:
        if ((rc = cli_parse_uint("--fill", arg, 0, 255, &v, err, errlen)))
            return rc;
        s->fill = (uint32_t)v;
        return CLI_OK;
    case OPT_CALLER:
        if ((rc = cli_parse_choice("--caller", arg, caller_names, &i, err, errlen)))
            return rc;
        s->caller = caller_values[i];
        r->caller_given = true;
        return CLI_OK;
    case 'p':
        if ((rc = parse_page(arg, &v, err, errlen)))
            return rc;
        s->page_bytes = v;
        return CLI_OK;
    case OPT_FAULT:
        if ((rc = cli_parse_choice("--fault", arg, fault_names, &i, err, errlen)))
            return rc;
        s->fault = fault_values[i];
        return CLI_OK;
    case OPT_PREEMPT:
        if ((rc = cli_parse_choice("--preempt", arg, preempt_names, &i, err, errlen)))
            return rc;
        s->preempt = preempt_values[i];
        return CLI_OK;
    case OPT_EXTENT_CAP:
        if ((rc = cli_parse_size("--extent-cap", arg, &v, err, errlen)))
            return rc;
        s->extent_cap_bytes = v;
        return CLI_OK;
    case OPT_FORMAT:
        if ((rc = cli_parse_choice("--format", arg, format_names, &i, err, errlen)))
            return rc;
        r->format = format_values[i];
        return CLI_OK;
    case OPT_EXACT:
        r->opts.exact = true;
        return CLI_OK;
    case OPT_SEED:
        if ((rc = cli_parse_uint("--seed", arg, 0, UINT64_MAX, &v, err, errlen)))
            return rc;
        r->opts.seed = v;
        return CLI_OK;
    case OPT_OUTPUT:
        if (arg[0] == '\0')
            return errbuf_set_rc(CLI_USAGE, err, errlen,
                                 "--output '': give a file name, or '-' for standard output");
        if (strlen(arg) >= sizeof r->output)
            return errbuf_set_rc(CLI_USAGE, err, errlen,
                                 "--output: argument longer than %zu characters",
                                 sizeof r->output - 1);
        memcpy(r->output, arg, strlen(arg) + 1);
        return CLI_OK;
    case 'q':
        r->quiet = true;
        return CLI_OK;
    default:
        return errbuf_set_rc(CLI_USAGE, err, errlen, "internal: unhandled option %d", c);
    }
}

void cli_run_init(cli_run_t *r)
{
    memset(r, 0, sizeof *r);
    wl_spec_init(&r->spec);
    run_opts_init(&r->opts);
    r->format = REPORT_FMT_TEXT;
}

/* An option of one run point (not --output, which names where a command writes). */
static bool run_point_option(const struct option *o, const char *key)
{
    return o->has_arg == required_argument && o->val != OPT_OUTPUT && strcmp(o->name, key) == 0;
}

bool cli_run_key_known(const char *key)
{
    for (const struct option *o = run_options; key && o->name; o++)
        if (run_point_option(o, key))
            return true;
    return false;
}

int cli_run_set(cli_run_t *r, const char *key, const char *value, char *err, size_t errlen)
{
    char a[80];
    for (const struct option *o = run_options; key && o->name; o++) {
        if (!run_point_option(o, key))
            continue;
        bool chunk_given = false; /* --chunk <= --size is wl_validate()'s here */
        return run_option(o->val, value ? value : "", r, &chunk_given, err, errlen);
    }
    return errbuf_set_rc(CLI_USAGE, err, errlen, "unknown run option '%s'",
                         shown(key ? key : "", a, sizeof a));
}

int cli_parse_run(int argc, char **argv, cli_run_t *out, char *err, size_t errlen)
{
    cli_run_init(out);

    bool help = false, chunk_given = false;
    opterr = 0;
    optind = 0; /* full re-initialisation (glibc), so parsing may run more than once */
    int c;
    while ((c = getopt_long(argc, argv, run_shortopts, run_options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cli_getopt_failure(c, run_options, argc, argv, err, errlen);
        if (c == 'h') {
            help = true;
            continue;
        }
        int rc = run_option(c, optarg, out, &chunk_given, err, errlen);
        if (rc != CLI_OK)
            return rc;
    }
    if (cli_leftover_args(argc, argv, err, errlen) != CLI_OK)
        return CLI_USAGE;
    if (help)
        return CLI_HELP;

    const wl_spec_t *s = &out->spec;
    if (chunk_given && s->chunk_bytes > s->size_bytes) {
        char k[32], z[32];
        unit_format_size(s->chunk_bytes, k, sizeof k);
        unit_format_size(s->size_bytes, z, sizeof z);
        return errbuf_set_rc(CLI_USAGE, err, errlen, "--chunk (%s) is larger than --size (%s)", k,
                             z);
    }
    if (out->machine[0] == '\0')
        return errbuf_set_rc(CLI_USAGE, err, errlen,
                             "--machine is required; see 'clearsim machines'");
    return CLI_OK;
}

int cli_parse_native(int argc, char **argv, cli_native_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    cli_run_init(&out->run);
    out->repeat = NATIVE_REPEAT_DEFAULT;
    out->cpu = -1;

    bool help = false, chunk_given = false;
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, run_shortopts, native_options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cli_getopt_failure(c, native_options, argc, argv, err, errlen);
        if (c == 'h') {
            help = true;
            continue;
        }
        uint64_t v = 0;
        int rc;
        if (c == OPT_REPEAT) {
            if ((rc = cli_parse_uint("--repeat", optarg, 1, NATIVE_REPEAT_MAX, &v, err, errlen)))
                return rc;
            out->repeat = (uint32_t)v;
        } else if (c == OPT_CPU) {
            if ((rc = cli_parse_uint("--cpu", optarg, 0, CPU_SETSIZE - 1, &v, err, errlen)))
                return rc;
            out->cpu = (int32_t)v;
        } else if ((rc = run_option(c, optarg, &out->run, &chunk_given, err, errlen))) {
            return rc;
        }
    }
    if (cli_leftover_args(argc, argv, err, errlen) != CLI_OK)
        return CLI_USAGE;
    if (help)
        return CLI_HELP;
    const wl_spec_t *s = &out->run.spec;
    if (chunk_given && s->chunk_bytes > s->size_bytes) {
        char k[32], z[32];
        unit_format_size(s->chunk_bytes, k, sizeof k);
        unit_format_size(s->size_bytes, z, sizeof z);
        return errbuf_set_rc(CLI_USAGE, err, errlen, "--chunk (%s) is larger than --size (%s)", k,
                             z);
    }
    return CLI_OK;
}

int cli_parse_list(int argc, char **argv, report_format_t *fmt, char *err, size_t errlen)
{
    bool help = false;
    *fmt = REPORT_FMT_TEXT;
    opterr = 0;
    optind = 0;
    int c, i = 0, rc;
    while ((c = getopt_long(argc, argv, list_shortopts, list_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            help = true;
            break;
        case OPT_FORMAT:
            if ((rc = cli_parse_choice("--format", optarg, list_format_names, &i, err, errlen)))
                return rc;
            *fmt = list_format_values[i];
            break;
        default:
            return cli_getopt_failure(c, list_options, argc, argv, err, errlen);
        }
    }
    if (cli_leftover_args(argc, argv, err, errlen) != CLI_OK)
        return CLI_USAGE;
    return help ? CLI_HELP : CLI_OK;
}

/* ------------------------------------------------------------------------ */
/* machine-dependent defaults                                                */

const char *cli_default_function(const cfg_machine_t *m)
{
    if (m->isa == CFG_ISA_ARM64)
        return "memset";
    if (m->features & CFG_FEAT_ERMS)
        return "rep_stosb";
    if (m->features & CFG_FEAT_REP_GOOD)
        return "rep_stosq";
    return "unrolled";
}

wl_caller_t cli_default_caller(wl_kind_t kind)
{
    return kind == WL_MMAP ? WL_CALLER_PAGE : WL_CALLER_CHUNKED;
}

void cli_apply_defaults(cli_run_t *r, const cfg_machine_t *m)
{
    if (!r->function_given) {
        const char *f = cli_default_function(m);
        snprintf(r->spec.function, sizeof r->spec.function, "%s", f);
    }
    if (!r->caller_given)
        r->spec.caller = cli_default_caller(r->spec.kind);
}
