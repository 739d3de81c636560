/*
 * point.c - a run point set by option name (see point.h).
 */
#include "sim/engine/point.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"
#include "sim/machine/libc.h"
#include "sim/machine/optval.h"
#include "sim/machine/suggest.h"
#include "sim/machine/units.h"

const point_option_t point_options[] = {
    {"machine", 0, true},  {"workload", 0, true},      {"size", 's', true},
    {"chunk", 'k', true},  {"loops", 'l', true},       {"function", 'f', true},
    {"fill", 0, true},     {"caller", 0, true},        {"page", 'p', true},
    {"fault", 0, true},    {"preempt", 0, true},       {"extent-cap", 0, true},
    {"exact", 0, false},   {"seed", 0, true},          {"set", 0, true},
    {"thp", 0, true},      {"base-page", 0, true},     {"libc", 0, true},
    {"no-bulk", 0, false}, {"fault-subpage", 0, true}, {NULL, 0, false},
};

void point_init(run_point_t *p)
{
    memset(p, 0, sizeof *p);
    wl_spec_init(&p->spec);
    run_opts_init(&p->opts);
}

const point_option_t *point_option_find(const char *key)
{
    for (const point_option_t *o = point_options; key && o->name; o++)
        if (strcmp(o->name, key) == 0)
            return o;
    return NULL;
}

static int set_page(const char *arg, uint64_t *out, char *err, size_t errlen)
{
    char a[80];
    uint64_t v = 0;
    if (optval_size("--page", arg, &v, err, errlen) != 0)
        return -1;
    if (v != (4ull << 10) && v != (16ull << 10) && v != (64ull << 10) && v != (2ull << 20) &&
        v != (32ull << 20) && v != (512ull << 20) && v != (1ull << 30))
        return errbuf_set(err, errlen,
                          "--page '%s': must be 4KB, 2MB or 1GB (arm64 base pages: 16KB, 64KB; "
                          "their huge pages 32MB, 512MB)",
                          optval_shown(arg, a, sizeof a));
    *out = v;
    return 0;
}

/* -f NAME: a kernel by clearsim's name or perf's ("x86-64-stosq"), or
 * "all" / "help" (the command runs or lists every function). */
static int set_function(run_point_t *p, const char *arg, char *err, size_t errlen)
{
    char a[80], hint[96];
    char *dst = p->spec.function;
    const size_t len = sizeof p->spec.function;
    p->function_all = strcmp(arg, "all") == 0;
    p->function_help = strcmp(arg, "help") == 0;
    if (p->function_all || p->function_help)
        return 0;
    const kern_info_t *perf = kern_find_perf(arg);
    if (perf)
        arg = perf->name;
    if (strlen(arg) < len && (kern_find(arg) || kern_bench_find(arg))) {
        memcpy(dst, arg, strlen(arg) + 1);
        return 0;
    }
    suggest_t sg;
    suggest_init(&sg, arg);
    for (const kern_info_t *k = kern_table(); k->name; k++) {
        suggest_offer(&sg, k->name);
        suggest_offer(&sg, kern_perf_name(k));
    }
    for (const kern_bench_t *b = kern_bench_table(); b->name; b++)
        suggest_offer(&sg, b->name);
    return errbuf_set(
        err, errlen, "--function '%s': unknown function%s; see 'clearsim functions' or -f help",
        optval_shown(arg, a, sizeof a), suggest_hint(suggest_best(&sg), hint, sizeof hint));
}

/* --set KEY=VALUE: checked for its form and key (cfg_set_check); the value
 * is checked when the machine loads. */
static int set_override(run_point_t *p, const char *arg, char *err, size_t errlen)
{
    if (cfg_set_check(arg, err, errlen))
        return -1;
    size_t klen = (size_t)(strchr(arg, '=') - arg) + 1; /* "KEY=" */
    for (uint32_t j = 0; j < p->n_set; j++)
        if (strncmp(p->set[j], arg, klen) == 0) {
            snprintf(p->set[j], sizeof p->set[j], "%s", arg);
            return 0;
        }
    if (p->n_set == MACHINE_SET_MAX)
        return errbuf_set(err, errlen, "--set %s: at most %d keys may be set", arg,
                          MACHINE_SET_MAX);
    snprintf(p->set[p->n_set++], sizeof p->set[0], "%s", arg);
    return 0;
}

int point_overrides(const run_point_t *p, const machine_t *m,
                    char out[POINT_OVERRIDES_MAX][MACHINE_SET_ARG_MAX], size_t *n, char *err,
                    size_t errlen)
{
    *n = 0;
    if (p->libc[0]) {
        libc_memset_t lm;
        if (libc_memset_policy(p->libc, m, m->l3.present ? m->l3.size_bytes : 0, &lm, err, errlen))
            return -1;
        char a[32], b[32], c[32];
        unit_format_size(lm.rep_stosb_bytes, a, sizeof a);
        unit_format_size(lm.nt_bytes, b, sizeof b);
        unit_format_size(lm.zva_bytes, c, sizeof c);
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.name=%s", p->libc);
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.memset.vector=%u", lm.vector_bytes);
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.memset.rep_stosb_threshold=%s",
                 lm.rep_stosb_bytes ? a : "0");
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.memset.nt_threshold=%s",
                 lm.nt_bytes ? b : "0");
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.memset.zva_threshold=%s",
                 lm.zva_bytes ? c : "0");
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "libc.memset.mops=%s",
                 lm.mops ? "true" : "false");
    }
    for (uint32_t j = 0; j < p->n_set; j++)
        snprintf(out[(*n)++], MACHINE_SET_ARG_MAX, "%s", p->set[j]);
    if (*n > MACHINE_SET_MAX)
        return errbuf_set(err, errlen,
                          "--set and --libc: %zu overrides, at most %d (--libc takes 6)", *n,
                          MACHINE_SET_MAX);
    return 0;
}

int point_apply_overrides(const run_point_t *p, machine_t **m, char *err, size_t errlen)
{
    if (p->n_set == 0 && !p->libc[0])
        return 0;
    const char *set[POINT_OVERRIDES_MAX];
    size_t n = point_set_list(p, set);
    if (n && cfg_machine_apply_set(m, set, n, err, errlen))
        return strncmp(err, "--", 2) == 0 ? -2 : -1;
    if (!p->libc[0])
        return 0;
    char(*ov)[MACHINE_SET_ARG_MAX] = malloc(POINT_OVERRIDES_MAX * sizeof *ov);
    if (!ov)
        return errbuf_set(err, errlen, "out of memory");
    int rc = point_overrides(p, *m, ov, &n, err, errlen) ? -2 : 0;
    for (size_t j = 0; rc == 0 && j < n; j++)
        set[j] = ov[j];
    if (rc == 0 && cfg_machine_apply_set(m, set, n, err, errlen))
        rc = strncmp(err, "--", 2) == 0 ? -2 : -1;
    free(ov);
    return rc;
}

size_t point_set_list(const run_point_t *p, const char *set[MACHINE_SET_MAX])
{
    for (uint32_t j = 0; j < p->n_set; j++)
        set[j] = p->set[j];
    return p->n_set;
}

int point_set(run_point_t *p, const char *key, const char *value, char *err, size_t errlen)
{
    char a[80];
    const point_option_t *o = point_option_find(key);
    if (!o)
        return errbuf_set(err, errlen, "unknown run option '%s'",
                          optval_shown(key ? key : "", a, sizeof a));
    if (o->has_arg && !value)
        return errbuf_set(err, errlen, "option '--%s' needs a value", o->name);
    if (!o->has_arg && value)
        return errbuf_set(err, errlen, "option '--%s' takes no value", o->name);
    const char *arg = value;
    wl_spec_t *s = &p->spec;
    uint64_t v = 0;
    int i = 0;
    _Static_assert(sizeof point_options / sizeof point_options[0] <= 32,
                   "run_point_t.given holds one bit per option");
    p->given |= 1u << (o - point_options);
    if (strcmp(key, "set") == 0)
        return set_override(p, arg, err, errlen);
    if (strcmp(key, "libc") == 0) {
        unsigned major, minor;
        if (libc_parse(arg, &major, &minor, err, errlen))
            return -1;
        snprintf(p->libc, sizeof p->libc, "glibc-%u.%u", major, minor);
        return 0;
    }
    if (strcmp(key, "machine") == 0) {
        if (arg[0] == '\0')
            return errbuf_set(err, errlen, "--machine '': give a machine name, a file or 'host'");
        if (strlen(arg) >= sizeof p->machine)
            return errbuf_set(err, errlen, "--machine: argument longer than %zu characters",
                              sizeof p->machine - 1);
        memcpy(p->machine, arg, strlen(arg) + 1);
    } else if (strcmp(key, "workload") == 0) {
        if (optval_choice("--workload", arg, wl_kind_names, &i, err, errlen))
            return -1;
        s->kind = (wl_kind_t)i;
    } else if (strcmp(key, "size") == 0) {
        if (optval_size("--size", arg, &v, err, errlen))
            return -1;
        s->size_bytes = v;
    } else if (strcmp(key, "chunk") == 0) {
        if (optval_size("--chunk", arg, &v, err, errlen))
            return -1;
        s->chunk_bytes = v;
        p->chunk_given = true;
    } else if (strcmp(key, "loops") == 0) {
        if (optval_uint("--loops", arg, 1, UINT32_MAX, &v, err, errlen))
            return -1;
        s->loops = (uint32_t)v;
    } else if (strcmp(key, "function") == 0) {
        if (set_function(p, arg, err, errlen))
            return -1;
        p->function_given = true;
    } else if (strcmp(key, "fill") == 0) {
        if (optval_uint("--fill", arg, 0, 255, &v, err, errlen))
            return -1;
        s->fill = (uint32_t)v;
    } else if (strcmp(key, "caller") == 0) {
        if (optval_choice("--caller", arg, wl_caller_names, &i, err, errlen))
            return -1;
        s->caller = (wl_caller_t)i;
        p->caller_given = true;
    } else if (strcmp(key, "thp") == 0) {
        if (optval_choice("--thp", arg, wl_thp_names, &i, err, errlen))
            return -1;
        s->thp = (wl_thp_t)i;
    } else if (strcmp(key, "base-page") == 0) {
        if (optval_size("--base-page", arg, &v, err, errlen))
            return -1;
        if (v != (4ull << 10) && v != (16ull << 10) && v != (64ull << 10))
            return errbuf_set(err, errlen, "--base-page '%s': must be 4KB, 16KB or 64KB",
                              optval_shown(arg, a, sizeof a));
        s->base_page_bytes = v;
        if (!p->page_given)
            s->page_bytes = v; /* --page defaults to the base page */
    } else if (strcmp(key, "page") == 0) {
        if (set_page(arg, &v, err, errlen))
            return -1;
        s->page_bytes = v;
        p->page_given = true;
    } else if (strcmp(key, "fault") == 0) {
        if (optval_choice("--fault", arg, wl_fault_names, &i, err, errlen))
            return -1;
        s->fault = (wl_fault_t)i;
    } else if (strcmp(key, "preempt") == 0) {
        if (optval_choice("--preempt", arg, caller_preempt_names, &i, err, errlen))
            return -1;
        s->preempt = (caller_preempt_t)i;
    } else if (strcmp(key, "extent-cap") == 0) {
        if (optval_size("--extent-cap", arg, &v, err, errlen))
            return -1;
        s->extent_cap_bytes = v;
    } else if (strcmp(key, "fault-subpage") == 0) {
        if (optval_uint("--fault-subpage", arg, 0, (1u << 18) - 1, &v, err, errlen))
            return -1;
        s->fault_subpage = v;
    } else if (strcmp(key, "exact") == 0) {
        p->opts.exact = true;
    } else if (strcmp(key, "no-bulk") == 0) {
        p->opts.no_bulk = true;
    } else if (strcmp(key, "seed") == 0) {
        if (optval_uint("--seed", arg, 0, UINT64_MAX, &v, err, errlen))
            return -1;
        p->opts.seed = v;
    }
    return 0;
}

int point_check(const run_point_t *p, char *err, size_t errlen)
{
    const wl_spec_t *s = &p->spec;
    if (p->chunk_given && s->chunk_bytes > s->size_bytes) {
        char k[32], z[32];
        unit_format_size(s->chunk_bytes, k, sizeof k);
        unit_format_size(s->size_bytes, z, sizeof z);
        return errbuf_set(err, errlen, "--chunk (%s) is larger than --size (%s)", k, z);
    }
    return 0;
}

/* Which workloads each option applies to (the others reject it). */
enum { APPLY_MEMSET = 1, APPLY_MMAP = 2, APPLY_BENCH = 4, APPLY_COPY = 8 };

static unsigned point_applies_to(wl_kind_t kind)
{
    if (kind == WL_COPY)
        return APPLY_BENCH | APPLY_COPY;
    if (wl_uses_bench_kernel(kind))
        return APPLY_BENCH;
    return wl_base_kind(kind) == WL_MMAP ? APPLY_MMAP : APPLY_MEMSET;
}

static const struct {
    const char *option;
    unsigned to;
    const char *which; /* the workloads, for the message */
    int memset_caller; /* also memset with this caller (-1: none) */
} applies[] = {
    {"chunk", APPLY_MEMSET, "memset, store, ntstore, linezero, fence and startup", -1},
    {"fill", APPLY_MEMSET | APPLY_COPY,
     "memset, store, ntstore, linezero, fence and startup (and copy)", -1},
    {"caller", APPLY_MEMSET | APPLY_MMAP, "clearing", -1},
    {"fault", APPLY_MMAP, "mmap and fault", -1},
    {"preempt", APPLY_MMAP, "mmap and fault", WL_CALLER_EXTENT},
    {"extent-cap", APPLY_MMAP, "mmap and fault", WL_CALLER_EXTENT},
    {"fault-subpage", 0, "", WL_CALLER_PAGE},
    {"thp", APPLY_MMAP, "mmap and fault", -1},
    {"base-page", APPLY_MMAP, "mmap and fault", -1},
    {"libc", APPLY_MEMSET, "memset, store, ntstore, linezero, fence and startup", -1},
};

int point_check_applies(const run_point_t *p, char *err, size_t errlen)
{
    const unsigned to = point_applies_to(p->spec.kind);
    for (size_t i = 0; i < sizeof applies / sizeof applies[0]; i++) {
        const point_option_t *o = point_option_find(applies[i].option);
        if (!(p->given & (1u << (o - point_options))) || (applies[i].to & to))
            continue;
        const int mc = applies[i].memset_caller;
        if (mc >= 0 && p->spec.kind == WL_MEMSET && p->spec.caller == (wl_caller_t)mc)
            continue;
        if (mc < 0)
            return errbuf_set(err, errlen, "--%s applies only to the %s workloads, not to %s",
                              o->name, applies[i].which, wl_kind_name(p->spec.kind));
        char here[64];
        if (p->spec.kind == WL_MEMSET)
            snprintf(here, sizeof here, "memset --caller %s", wl_caller_name(p->spec.caller));
        else
            snprintf(here, sizeof here, "%s", wl_kind_name(p->spec.kind));
        return errbuf_set(err, errlen, "--%s applies only to %s%smemset --caller %s, not to %s",
                          o->name, applies[i].which, applies[i].to ? " workloads and to " : "",
                          wl_caller_name((wl_caller_t)mc), here);
    }
    return 0;
}

bool point_function_runs(const run_point_t *p, const char *function, const machine_t *m)
{
    char why[256];
    if (!wl_function_of(p->spec.kind, function, m))
        return false;
    if (!m)
        return true;
    wl_spec_t spec = p->spec;
    snprintf(spec.function, sizeof spec.function, "%s", function);
    if (!p->caller_given)
        spec.caller = point_default_caller(spec.kind);
    return wl_validate(&spec, m, why, sizeof why) == 0;
}

size_t point_all_functions(const run_point_t *p, const machine_t *m, const char **names, size_t max)
{
    size_t n = 0;
    if (wl_uses_bench_kernel(p->spec.kind)) {
        for (const kern_bench_t *b = kern_bench_table(); b->name && n < max; b++)
            if (point_function_runs(p, b->name, m))
                names[n++] = b->name;
        return n;
    }
    for (const kern_info_t *k = kern_table(); k->name && n < max; k++)
        if (point_function_runs(p, k->name, m))
            names[n++] = k->name;
    return n;
}

/* The next blank-separated word of *s into buf; false at the end. */
static bool next_word(const char **s, char *buf, size_t len, bool *too_long)
{
    const char *p = *s;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p)
        return false;
    size_t n = 0;
    *too_long = false;
    while (p[n] && !isspace((unsigned char)p[n]))
        n++;
    if (n >= len)
        *too_long = true;
    else
        memcpy(buf, p, n), buf[n] = '\0';
    *s = p + n;
    return true;
}

int point_parse_args(run_point_t *p, const char *args, char *err, size_t errlen)
{
    char w[4096], v[4096], a[80];
    bool too_long = false;
    const char *s = args ? args : "";
    while (next_word(&s, w, sizeof w, &too_long)) {
        if (too_long)
            return errbuf_set(err, errlen, "an argument longer than %zu characters", sizeof w - 1);
        const point_option_t *o = NULL;
        const char *val = NULL;
        if (strncmp(w, "--", 2) == 0) {
            char *eq = strchr(w + 2, '=');
            if (eq)
                *eq = '\0';
            o = point_option_find(w + 2);
            if (!o)
                return errbuf_set(err, errlen, "unrecognized option '%s'",
                                  optval_shown(w, a, sizeof a));
            if (eq && !o->has_arg)
                return errbuf_set(err, errlen, "option '--%s' takes no value", o->name);
            val = eq ? eq + 1 : NULL;
        } else if (w[0] == '-' && w[1] && w[1] != '-') {
            for (const point_option_t *q = point_options; q->name && !o; q++)
                if (q->short_name == w[1])
                    o = q;
            if (!o)
                return errbuf_set(err, errlen, "unrecognized option '-%c'", w[1]);
            val = w[2] ? w + 2 : NULL;
        } else {
            return errbuf_set(err, errlen, "unexpected argument '%s'",
                              optval_shown(w, a, sizeof a));
        }
        if (o->has_arg && !val) {
            if (!next_word(&s, v, sizeof v, &too_long))
                return errbuf_set(err, errlen, "option '--%s' needs a value", o->name);
            if (too_long)
                return errbuf_set(err, errlen, "an argument longer than %zu characters",
                                  sizeof v - 1);
            val = v;
        }
        if (point_set(p, o->name, val, err, errlen) != 0)
            return -1;
    }
    if (p->function_all || p->function_help)
        return errbuf_set(err, errlen, "-f %s: give one function here",
                          p->function_all ? "all" : "help");
    if (point_check_applies(p, err, errlen) != 0)
        return -1;
    return point_check(p, err, errlen);
}

const char *point_default_function(const machine_t *m)
{
    return point_kind_function(WL_MEMSET, m);
}

/* The kernel a microbenchmark kind uses when -f is not given: the widest of
 * its class the machine has (kern_widest, kern_bench_widest). */
const char *point_kind_function(wl_kind_t kind, const machine_t *m)
{
    const kern_info_t *k = NULL;
    const kern_bench_t *b = NULL;
    switch (kind) {
    case WL_LOAD:
        b = kern_bench_widest(KERN_BENCH_LOAD, m->isa, m->features);
        break;
    case WL_COPY:
        b = kern_bench_widest(KERN_BENCH_COPY, m->isa, m->features);
        break;
    case WL_LATENCY:
        return "chase";
    case WL_STORE:
        k = kern_widest(KERN_CLASS_STORE, false, m->isa, m->features);
        break;
    case WL_NTSTORE:
        k = kern_widest(KERN_CLASS_NT, false, m->isa, m->features);
        break;
    case WL_LINEZERO:
        k = kern_widest(KERN_CLASS_LINEZERO, false, m->isa, m->features);
        break;
    case WL_FENCE:
        k = kern_widest(KERN_CLASS_NT, true, m->isa, m->features);
        break;
    default:
        break;
    }
    if (b)
        return b->name;
    if (k)
        return k->name;
    if (kind != WL_MEMSET && kind != WL_MMAP && kind != WL_STARTUP && kind != WL_FAULT)
        return ""; /* the machine has none: wl_validate says so */
    if (m->isa == MACHINE_ISA_ARM64)
        return "memset";
    if (m->features & MACHINE_FEAT_ERMS)
        return "rep_stosb";
    if (m->features & MACHINE_FEAT_REP_GOOD)
        return "rep_stosq";
    return "unrolled";
}

wl_caller_t point_default_caller(wl_kind_t kind)
{
    switch (kind) {
    case WL_STORE:
    case WL_NTSTORE:
    case WL_LINEZERO:
    case WL_LOAD:
    case WL_COPY:
    case WL_LATENCY:
        return WL_CALLER_REPEAT;
    default:
        return wl_base_kind(kind) == WL_MMAP ? WL_CALLER_PAGE : WL_CALLER_CHUNKED;
    }
}

void point_apply_defaults(run_point_t *p, const machine_t *m)
{
    wl_spec_t *s = &p->spec;
    if (!p->function_given)
        snprintf(s->function, sizeof s->function, "%s", point_kind_function(s->kind, m));
    if (!p->caller_given)
        s->caller = point_default_caller(s->kind);
    if (!p->page_given && s->kind == WL_LATENCY)
        s->page_bytes = POINT_LATENCY_PAGE_BYTES;
    if (!p->chunk_given && s->kind == WL_FENCE)
        s->chunk_bytes =
            POINT_FENCE_CHUNK_BYTES < s->size_bytes ? POINT_FENCE_CHUNK_BYTES : s->size_bytes;
    if (!p->chunk_given && s->kind == WL_STARTUP)
        s->chunk_bytes =
            POINT_STARTUP_CHUNK_BYTES < s->size_bytes ? POINT_STARTUP_CHUNK_BYTES : s->size_bytes;
}
