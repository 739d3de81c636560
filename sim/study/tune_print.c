/*
 * tune_print.c - `clearsim tune`'s result as text (the table, the policy,
 * the single thresholds, the hardware switch and the extent cap), csv (the
 * curve, with the policy's choice per size) and json (everything,
 * docs/JSON.md).
 *
 * Notes
 *  - Every gain is printed with words that follow its sign ("12.3% less
 *    time than", "more time than", "the same time as"), so that no line says
 *    the opposite of another.
 *  - Units: sizes in bytes (binary units in text), times in seconds.
 */
#include "sim/study/tune.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/units.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

/* The policy's first switch to non-temporal or line zeroing: its band, or
 * NULL. */
static const tune_band_t *nt_band(const tune_result_t *r)
{
    for (size_t i = 0; i < r->n_bands; i++) {
        tune_strategy_t s = r->bands[i].strategy;
        if (s == TUNE_CURRENT)
            s = r->current_as;
        if (s == TUNE_NONTEMPORAL || s == TUNE_LINEZERO)
            return &r->bands[i];
    }
    return NULL;
}

/* The policy's strategy at sizes[i]. */
static tune_strategy_t policy_at(const tune_result_t *r, size_t i)
{
    for (size_t k = 0; k < r->n_bands; k++)
        if (i >= r->bands[k].first && i <= r->bands[k].last)
            return r->bands[k].strategy;
    return TUNE_CURRENT;
}

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jbytes(bool present, uint64_t v, int *overflow)
{
    if (!present)
        return json_null();
    if (v > (uint64_t)INT64_MAX) {
        *overflow = 1;
        return json_null();
    }
    return json_integer((json_int_t)v);
}

static int print_json(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    int ovf = 0;
    json_t *root = json_object();
    const tune_band_t *nt = nt_band(r);
    json_object_set_new(root, "machine", json_string(r->machine));
    json_object_set_new(root, "set", json_string(r->set));
    json_object_set_new(root, "machine_file_sha256", json_string(r->machine_file_sha256));
    json_object_set_new(root, "clearsim_version", json_string(CLEARSIM_VERSION));
    json_t *dist = json_object();
    json_object_set_new(dist, "name", r->dist_name[0] ? json_string(r->dist_name) : json_null());
    json_object_set_new(dist, "source",
                        r->dist_source[0] ? json_string(r->dist_source) : json_null());
    json_object_set_new(root, "distribution", dist);
    json_object_set_new(root, "nt_threshold_bytes",
                        jbytes(nt != NULL, nt ? nt->from_bytes : 0, &ovf));
    json_object_set_new(root, "extent_cap_bytes",
                        jbytes(r->cap_needed && r->cap_found, r->cap_bytes, &ovf));
    json_object_set_new(root, "current_function", json_string(r->function[TUNE_CURRENT]));
    json_t *st = json_array();
    for (int s = 0; s < TUNE_STRATEGIES; s++) {
        if (!r->have[s] || (s == TUNE_CURRENT && r->current_as != TUNE_CURRENT))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "strategy", json_string(tune_strategy_name((tune_strategy_t)s)));
        json_object_set_new(o, "function", json_string(r->function[s]));
        json_array_append_new(st, o);
    }
    json_object_set_new(root, "strategies", st);
    json_t *reuse = json_object();
    json_object_set_new(reuse, "subpage", json_boolean(r->reuse_subpage));
    json_object_set_new(reuse, "fraction",
                        r->reuse_subpage ? json_null() : jreal(r->reuse_fraction));
    json_object_set_new(reuse, "window_bytes", jbytes(r->window_bytes != 0, r->window_bytes, &ovf));
    json_object_set_new(reuse, "delay_bytes", jbytes(r->delay_bytes != 0, r->delay_bytes, &ovf));
    json_object_set_new(root, "reuse", reuse);
    json_object_set_new(root, "current_expected_seconds", jreal(r->current_expected_seconds));
    json_t *pol = json_array();
    for (size_t i = 0; i < r->n_bands; i++) {
        const tune_band_t *b = &r->bands[i];
        json_t *o = json_object();
        json_object_set_new(o, "from_bytes", jbytes(true, b->from_bytes, &ovf));
        json_object_set_new(o, "after_bytes", jbytes(true, b->after_bytes, &ovf));
        json_object_set_new(o, "to_bytes", jbytes(b->to_bytes != 0, b->to_bytes, &ovf));
        json_object_set_new(o, "strategy", json_string(tune_strategy_name(b->strategy)));
        json_object_set_new(o, "function", json_string(r->function[b->strategy]));
        json_object_set_new(o, "merged", json_boolean(b->merged));
        json_object_set_new(o, "outweighed", json_boolean(b->outweighed));
        json_object_set_new(o, "hardware_switch_inside", json_boolean(b->hw_switch_inside));
        json_object_set_new(o, "weight", jreal(b->weight));
        json_object_set_new(o, "gain", jreal(b->gain));
        json_object_set_new(o, "gain_share", jreal(b->gain_share));
        json_object_set_new(o, "gain_over_single_threshold", jreal(b->gain_over_single));
        json_array_append_new(pol, o);
    }
    json_object_set_new(root, "policy", pol);
    json_t *ps = json_object();
    json_object_set_new(ps, "is_current", json_boolean(r->policy_is_current));
    json_object_set_new(ps, "expected_seconds", jreal(r->policy_expected_seconds));
    json_object_set_new(ps, "gain", jreal(r->policy_gain));
    json_object_set_new(ps, "gain_over_single_threshold", jreal(r->policy_gain_over_single));
    json_object_set_new(ps, "min_gain", jreal(r->min_gain));
    json_object_set_new(ps, "merged_bands", json_integer((json_int_t)r->n_merged));
    json_object_set_new(root, "policy_summary", ps);
    json_t *th = json_array();
    for (size_t i = 0; i < r->n_pairs; i++) {
        const tune_pair_t *p = &r->pairs[i];
        json_t *o = json_object();
        json_object_set_new(o, "from", json_string(tune_strategy_name(p->from)));
        json_object_set_new(o, "to", json_string(tune_strategy_name(p->to)));
        json_object_set_new(o, "from_function", json_string(r->function[p->from]));
        json_object_set_new(o, "to_function", json_string(r->function[p->to]));
        json_object_set_new(o, "threshold_bytes", jbytes(p->found, p->threshold_bytes, &ovf));
        json_object_set_new(o, "expected_seconds", jreal(p->expected_seconds));
        json_object_set_new(o, "gain", jreal(p->gain));
        json_object_set_new(o, "gain_over_from", jreal(p->gain_over_from));
        json_object_set_new(o, "best", json_boolean(i == r->best_pair));
        json_array_append_new(th, o);
    }
    json_object_set_new(root, "thresholds", th);
    json_t *hw = json_null();
    if (r->hw_switch) {
        hw = json_object();
        json_object_set_new(hw, "bytes", jbytes(true, r->hw_switch_bytes, &ovf));
        json_object_set_new(hw, "key", json_string(r->hw_switch_key));
        json_object_set_new(hw, "checked", json_boolean(r->hw_checked));
        json_object_set_new(hw, "software_gain",
                            r->hw_checked ? jreal(r->hw_software_gain) : json_null());
        json_object_set_new(hw, "agrees", json_boolean(r->hw_agrees));
    }
    json_object_set_new(root, "hardware_switch", hw);
    json_t *cap = json_object();
    json_object_set_new(cap, "preempt", json_string(caller_preempt_name(r->preempt)));
    json_object_set_new(cap, "latency_budget_seconds", jreal(r->budget_seconds));
    json_object_set_new(cap, "needed", json_boolean(r->cap_needed));
    json_object_set_new(cap, "function", json_string(r->function[TUNE_CURRENT]));
    bool c = r->cap_needed && r->cap_found;
    json_object_set_new(cap, "cap_bytes", jbytes(c, r->cap_bytes, &ovf));
    json_object_set_new(cap, "cap_pow2_bytes", jbytes(c, r->cap_pow2_bytes, &ovf));
    json_object_set_new(cap, "clear_seconds", c ? jreal(r->cap_clear_seconds) : json_null());
    json_object_set_new(cap, "bytes_per_sec", c ? jreal(r->cap_bytes_per_sec) : json_null());
    json_object_set_new(cap, "uncapped_reference_bytes", jbytes(c, r->ref_bytes, &ovf));
    json_object_set_new(cap, "uncapped_bytes_per_sec",
                        c ? jreal(r->ref_bytes_per_sec) : json_null());
    json_object_set_new(cap, "throughput_loss", c ? jreal(r->throughput_loss) : json_null());
    json_object_set_new(root, "extent_cap", cap);
    json_t *curve = json_array();
    for (size_t i = 0; i < r->n_curve; i++) {
        const tune_point_t *p = &r->curve[i];
        json_t *o = json_object();
        json_object_set_new(o, "size_bytes", jbytes(true, p->size_bytes, &ovf));
        json_object_set_new(o, "weight", jreal(p->weight));
        json_object_set_new(o, "strategy", json_string(tune_strategy_name(p->strategy)));
        json_object_set_new(o, "function", json_string(p->function));
        json_object_set_new(o, "reuse_bytes", jbytes(true, p->reuse_bytes, &ovf));
        json_object_set_new(o, "buffer_bytes", jbytes(true, p->buffer_bytes, &ovf));
        json_object_set_new(o, "clear_seconds", jreal(p->clear_seconds));
        json_object_set_new(o, "refetch_seconds", jreal(p->refetch_seconds));
        json_object_set_new(o, "total_seconds", jreal(p->total_seconds));
        json_object_set_new(o, "extrapolated", json_boolean(p->extrapolated));
        json_object_set_new(o, "error_bound", jreal(p->error_bound));
        json_array_append_new(curve, o);
    }
    json_object_set_new(root, "curve", curve);
    int rc = 0;
    if (ovf)
        rc = errbuf_set(err, errlen, "a byte count does not fit a JSON integer");
    else if (json_dumpf(root, out,
                        JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0 ||
             fputc('\n', out) == EOF)
        rc = errbuf_set(err, errlen, "cannot write the json output");
    json_decref(root);
    return rc;
}

static void csv_real(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
}

static int print_csv(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    fputs("machine,set,size_bytes,weight,strategy,function,reuse_bytes,buffer_bytes,clear_seconds,"
          "refetch_seconds,total_seconds,bytes_per_sec,extrapolated,error_bound,policy\n",
          out);
    for (size_t i = 0; i < r->n_curve; i++) {
        const tune_point_t *p = &r->curve[i];
        report_csv_string(out, r->machine);
        fputc(',', out);
        report_csv_string(out, r->set);
        fprintf(out, ",%" PRIu64 ",", p->size_bytes);
        csv_real(out, p->weight);
        fprintf(out, ",%s,%s,%" PRIu64 ",%" PRIu64 ",", tune_strategy_name(p->strategy),
                p->function, p->reuse_bytes, p->buffer_bytes);
        csv_real(out, p->clear_seconds);
        fputc(',', out);
        csv_real(out, p->refetch_seconds);
        fputc(',', out);
        csv_real(out, p->total_seconds);
        fputc(',', out);
        csv_real(out, p->total_seconds > 0 ? (double)p->size_bytes / p->total_seconds : NAN);
        fprintf(out, ",%s,", p->extrapolated ? "true" : "false");
        csv_real(out, p->error_bound);
        size_t per =
            r->n_bands && r->n_curve ? r->n_curve / (r->bands[r->n_bands - 1].last + 1) : 1;
        fprintf(out, ",%s\n", policy_at(r, i / per) == p->strategy ? "true" : "false");
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "cannot write the csv output");
    return 0;
}

static void fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (fabs(s) < 1e-3)
        snprintf(buf, len, "%.3f us", s * 1e6);
    else if (fabs(s) < 1)
        snprintf(buf, len, "%.3f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
}

/* "12.3% less time than" / "4.0% more time than" / "the same time as", for
 * a gain (a fraction of time saved). */
static const char *compare(double gain, char *buf, size_t len)
{
    if (!isfinite(gain))
        snprintf(buf, len, "an unknown time against");
    else if (fabs(gain) < 0.0005)
        snprintf(buf, len, "the same time (within 0.05%%) as");
    else
        snprintf(buf, len, "%.1f%% %s time than", 100 * fabs(gain), gain > 0 ? "less" : "more");
    return buf;
}

/* A size for a sentence: exact when it is a whole unit ("16MiB"), else
 * "15.44MiB (16187900B)". */
static void fmt_size(uint64_t b, char *buf, size_t len)
{
    unit_format_size(b, buf, len);
    size_t n = strlen(buf);
    if (b < 1024 || n < 2 || buf[n - 2] == 'i')
        return;
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = -1;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.2f%s (%" PRIu64 "B)", v, units[u], b);
}

static void strat_label(const tune_result_t *r, tune_strategy_t s, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s)", tune_strategy_name(s), r->function[s]);
}

/* Does a band of the policy use non-temporal or line zeroing at or above
 * the hardware switch point? */
static bool policy_uses_sw_above_hw(const tune_result_t *r)
{
    for (size_t i = 0; i < r->n_bands; i++) {
        tune_strategy_t s = r->bands[i].strategy;
        if (s == TUNE_CURRENT)
            s = r->current_as;
        if ((s == TUNE_NONTEMPORAL || s == TUNE_LINEZERO) &&
            (r->bands[i].to_bytes == 0 || r->bands[i].to_bytes > r->hw_switch_bytes))
            return true;
    }
    return false;
}

static void print_policy(FILE *out, const tune_result_t *r)
{
    char a[64], b[32], c[64], l[96], x[96], y[64];
    const char *cur = r->function[TUNE_CURRENT];
    const bool have_single = r->best_pair < r->n_pairs;
    bool outweighed = false;
    fprintf(out,
            "policy (a band that is not the current policy must be %.3g%% cheaper than it, and "
            "than a neighbour it would merge into, at one size at least, and by more than the "
            "points' error bounds):\n",
            100 * r->min_gain);
    for (size_t i = 0; i < r->n_bands; i++) {
        const tune_band_t *bd = &r->bands[i];
        outweighed = outweighed || bd->outweighed;
        unit_format_size(bd->from_bytes, a, sizeof a);
        if (bd->to_bytes)
            unit_format_size(bd->to_bytes, b, sizeof b);
        else
            snprintf(b, sizeof b, "inf");
        char edge[160] = "";
        if (bd->first > 0) {
            unit_format_size(bd->after_bytes, c, sizeof c);
            snprintf(edge, sizeof edge, "; edge in (%s, %s]", c, a);
        }
        strat_label(r, bd->strategy, l, sizeof l);
        char hw[200] = "";
        if (bd->hw_switch_inside) {
            fmt_size(r->hw_switch_bytes, c, sizeof c);
            snprintf(hw, sizeof hw, ", hardware %s from %s (%s)",
                     r->hw_switch_key[0] == 's' ? "elision" : "write streaming", c,
                     r->hw_switch_key);
        }
        const char *note = bd->merged       ? "; other strategies: no significant difference"
                           : bd->outweighed ? "; another strategy is significantly cheaper at "
                                              "some size, but not over the band's clears"
                                            : "";
        const bool is_cur = strcmp(r->function[bd->strategy], cur) == 0;
        fprintf(out, "  [%s, %s) %s%s: %.1f%% of clears%s", a, b, l, hw, 100 * bd->weight, edge);
        if (is_cur) {
            fprintf(out, "; the current policy%s\n", note);
        } else {
            fprintf(out, "; %s %s in the band (%.1f%% of the total time)",
                    compare(bd->gain, x, sizeof x), cur, 100 * bd->gain_share);
            if (have_single)
                fprintf(out, ", %s the best single threshold in the band",
                        compare(bd->gain_over_single, y, sizeof y));
            fprintf(out, "%s\n", note);
        }
    }
    if (r->n_merged)
        fprintf(out, "  %" PRIu64 " band%s merged: no significant difference\n", r->n_merged,
                r->n_merged == 1 ? "" : "s");
    if (r->policy_is_current && !outweighed)
        fprintf(out,
                "policy: keep the current policy (%s); no other strategy is significantly "
                "cheaper at any size\n",
                cur);
    else if (r->policy_is_current)
        fprintf(out,
                "policy: keep the current policy (%s); where another strategy is significantly "
                "cheaper at a size, it saves too little over the distribution's clears\n",
                cur);
    else if (have_single)
        fprintf(out, "policy: %s the current policy (%s), %s the best single threshold\n",
                compare(r->policy_gain, x, sizeof x), cur,
                compare(r->policy_gain_over_single, y, sizeof y));
    else
        fprintf(out,
                "policy: %s the current policy (%s); no single threshold saves "
                "significant time\n",
                compare(r->policy_gain, x, sizeof x), cur);
    for (size_t i = 0; i < r->n_pairs; i++) {
        const tune_pair_t *p = &r->pairs[i];
        strat_label(r, p->from, l, sizeof l);
        strat_label(r, p->to, c, sizeof c);
        if (!p->found) {
            fprintf(out,
                    "single threshold %s -> %s: never switch; no threshold saves "
                    "significant time\n",
                    l, c);
            continue;
        }
        unit_format_size(p->threshold_bytes, a, sizeof a);
        fprintf(out, "single threshold %s -> %s%s: switch at %s; %s the current policy\n", l, c,
                i == r->best_pair ? " (the best)" : "", a, compare(p->gain, y, sizeof y));
    }
    if (r->hw_switch) {
        fmt_size(r->hw_switch_bytes, a, sizeof a);
        snprintf(x, sizeof x, "%s%s%s", r->function[TUNE_TEMPORAL],
                 r->current_as == TUNE_CURRENT ? " or " : "",
                 r->current_as == TUNE_CURRENT ? cur : "");
        fprintf(out, "hardware switch point: %s stops allocating from %s (%s)",
                r->function[TUNE_TEMPORAL], a, r->hw_switch_key);
        if (!r->hw_checked)
            fprintf(out, "; no size of the distribution reaches it\n");
        else if (r->hw_agrees)
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain at most "
                    "%.1f%% over %s: no software threshold beats it\n",
                    100 * fmax(0, r->hw_software_gain), x);
        else if (policy_uses_sw_above_hw(r))
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain up to "
                    "%.1f%% over %s, and the policy uses them there\n",
                    100 * r->hw_software_gain, x);
        else
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain up to "
                    "%.1f%% over %s at some size, too little over the distribution's clears "
                    "for the policy to use them\n",
                    100 * r->hw_software_gain, x);
    }
}

static int print_text(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    char a[96], b[32], c[32];
    fprintf(out, "# clearsim tune: %s%s%s\n", r->machine, r->set[0] ? " --set " : "", r->set);
    if (r->dist_name[0])
        fprintf(out, "# sizes: %s%s%s%s\n", r->dist_name, r->dist_source[0] ? " (source: " : "",
                r->dist_source, r->dist_source[0] ? ")" : "");
    else
        fprintf(out, "# sizes: %s\n", r->dist_source[0] ? r->dist_source : "given");
    if (r->reuse_subpage && r->delay_bytes) {
        unit_format_size(r->delay_bytes, c, sizeof c);
        snprintf(a, sizeof a, "4KiB at once, the rest after %s of other reads", c);
    } else if (r->reuse_subpage)
        snprintf(a, sizeof a, "the first 4KiB");
    else
        snprintf(a, sizeof a, "%.3g%% of each clear", 100 * r->reuse_fraction);
    if (r->window_bytes)
        unit_format_size(r->window_bytes, b, sizeof b);
    fprintf(out, "# reuse: the consumer touches %s%s%s\n", a, r->window_bytes ? ", at most " : "",
            r->window_bytes ? b : "");
    fprintf(out, "# strategies:");
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT))
            fprintf(out, " %s=%s", tune_strategy_name((tune_strategy_t)s), r->function[s]);
    fprintf(out, "; current policy: %s\n\n", r->function[TUNE_CURRENT]);

    /* table: one row per size, total time per clear for each strategy */
    size_t per = 0;
    tune_strategy_t strat[TUNE_STRATEGIES];
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT))
            strat[per++] = (tune_strategy_t)s;
    fprintf(out, "%10s", "size");
    for (size_t k = 0; k < per; k++)
        fprintf(out, "  %22s", tune_strategy_name(strat[k]));
    fprintf(out, "\n%10s", "");
    for (size_t k = 0; k < per; k++)
        fprintf(out, "  %22s", "clear + re-fetch");
    fputc('\n', out);
    for (size_t i = 0; per && i < r->n_curve / per; i++) {
        unit_format_size(r->curve[i * per].size_bytes, a, sizeof a);
        fprintf(out, "%10s", a);
        for (size_t k = 0; k < per; k++) {
            const tune_point_t *p = &r->curve[i * per + k];
            char cell[80];
            fmt_time(p->clear_seconds, b, sizeof b);
            fmt_time(p->refetch_seconds, c, sizeof c);
            snprintf(cell, sizeof cell, "%s + %s", b, c);
            fprintf(out, "  %22s", cell);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    print_policy(out, r);
    fmt_time(r->budget_seconds, b, sizeof b);
    if (!r->cap_needed) {
        fprintf(out,
                "extent cap (preempt %s, budget %s): none needed; %s preemption can "
                "reschedule inside an extent\n",
                caller_preempt_name(r->preempt), b, caller_preempt_name(r->preempt));
    } else if (!r->cap_found) {
        fprintf(out,
                "extent cap (preempt %s, budget %s): none fits; even a 4KiB clear takes "
                "longer\n",
                caller_preempt_name(r->preempt), b);
    } else {
        char d[32];
        unit_format_size(r->cap_bytes, a, sizeof a);
        unit_format_size(r->cap_pow2_bytes, d, sizeof d);
        fmt_time(r->cap_clear_seconds, c, sizeof c);
        fprintf(out,
                "extent cap (preempt %s, budget %s, %s): %s, power of two %s (%s per extent, "
                "%.2f GB/sec); throughput %s %.2f%% %s one 1GiB extent\n",
                caller_preempt_name(r->preempt), b, r->function[TUNE_CURRENT], a, d, c,
                r->cap_bytes_per_sec / (double)(1ull << 30),
                r->throughput_loss >= 0 ? "lost:" : "gained:", 100 * fabs(r->throughput_loss),
                r->throughput_loss >= 0 ? "against" : "over");
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "cannot write the output");
    return 0;
}

int tune_print(FILE *out, report_format_t fmt, const tune_result_t *r, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_JSON:
        return print_json(out, r, err, errlen);
    case REPORT_FMT_CSV:
        return print_csv(out, r, err, errlen);
    default:
        return print_text(out, r, err, errlen);
    }
}
