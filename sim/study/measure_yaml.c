/*
 * measure_yaml.c - the machine file `detect --measure` writes (see
 * measure.h): detect's writer with the measured and fitted values, a header
 * that says how each kind of value was found, and the figures as the
 * microbench: section.
 */
#include "sim/study/measure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/study/microbench.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

#define MEASURE_TOLERANCE "0.15" /* microbench.tolerance the measured file states */

static char *header_text(const measure_t *ms, const char *command)
{
    const host_info_t *h = &ms->h;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f,
            "# Machine file for this host, measured by 'clearsim detect --measure' (clearsim "
            "%s), %s.\n",
            CLEARSIM_VERSION, ms->date);
    fprintf(f, "# Host: %s (%s family 0x%x model 0x%x stepping %u)%s%s%s; core clock %.2f GHz.\n",
            h->model_name[0] ? h->model_name : "?", h->vendor, h->family, h->model, h->stepping,
            h->hypervisor ? ", a guest of hypervisor '" : "",
            h->hypervisor ? (h->hypervisor_vendor[0] ? h->hypervisor_vendor : "?") : "",
            h->hypervisor ? "'" : "", ms->clock_ghz);
    char kp[192];
    host_kernel_pages_comment(h, kp, sizeof kp);
    fputs(kp, f);
    if (command)
        fprintf(f, "# Command: %s\n", command);
    fprintf(f, "# Every timing value is measured ('# measured: ...') or fitted, with calibrate's "
               "fitter, to the\n"
               "# microbenchmark figures of microbench: below ('# fitted: ...'). The clears among "
               "them are\n"
               "# at L1 size (issue costs, fences, calls, startup), and non-temporal stores and "
               "line zeroing\n"
               "# over 1 GiB set the write path (the footprint of the cases it serves; a native "
               "measurement\n"
               "# of the silicon at hand may set a mechanism, DEVELOPERS.md): crosscheck's chunked "
               "cases of\n"
               "# those kernels are then no test of it; its other cases are. A timing no figure\n"
               "# determines says so ('# not measured: ...', with why).\n");
    fprintf(f,
            "# Values no microbenchmark observes (geometry past sysfs, prefetchers, policies, "
            "the kernel's\n"
            "# own costs) are from %s (%s): marked '%s'.\n",
            ms->base_name, ms->base_why[0] ? ms->base_why : "the base",
            ms->same_silicon ? "structural: the same silicon" : "assumed: not the same CPU");
    fprintf(f, "# name: must equal this file's base name (clearsim detect --name NAME).\n");
    fclose(f);
    return text;
}

/* A YAML double-quoted string (the figures' sources). */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static char *tail_text(const measure_t *ms)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    char s[32];
    fprintf(f, "microbench:\n");
    fprintf(f, "  clock: %.3fGHz", ms->clock_ghz);
    fprintf(f, "%*s# measured: the median clock of the figures\n", 22, "");
    const char *boost = ms->h.boost > 0 ? "on" : ms->h.boost == 0 ? "off" : "unknown";
    fprintf(f, "  boost: %s%*s# detected: %s\n", boost, (int)(26 - strlen(boost)), "",
            ms->h.boost_how);
    fprintf(f, "  tolerance: %s%*s# clearsim check: a figure and the model agree within it\n",
            MEASURE_TOLERANCE, 25, "");
    if (ms->adds_per_cycle > 0) {
        snprintf(s, sizeof s, "%.2f", ms->adds_per_cycle);
        fprintf(f,
                "  adds_per_cycle: %s%*s# measured: the median core's share after the figures "
                "(independent adds per cycle: about the ALU count with the core to itself, less "
                "when another thread shares it)\n",
                s, (int)(18 - strlen(s)), "");
    }
    fprintf(f, "  figures:\n");
    for (size_t i = 0; i < ms->n; i++) {
        const measure_fig_t *g = &ms->f[i];
        const machine_mb_t *b = &g->mb;
        if (g->skipped) {
            fprintf(f, "    # %s: not run here: %s\n", b->id, g->why);
            continue;
        }
        fprintf(f, "    - {id: %s, workload: %s", b->id, b->workload);
        if (b->function[0])
            fprintf(f, ", function: %s", b->function);
        unit_format_size(b->size_bytes, s, sizeof s);
        fprintf(f, ", size: %s", s);
        if (b->chunk_bytes) {
            unit_format_size(b->chunk_bytes, s, sizeof s);
            fprintf(f, ", chunk: %s", s);
        }
        if (b->page_bytes) {
            unit_format_size(b->page_bytes, s, sizeof s);
            fprintf(f, ", page: %s", s);
        }
        if (b->fault[0])
            fprintf(f, ", fault: %s", b->fault);
        if (b->fill)
            fprintf(f, ", fill: 0x%02x", b->fill);
        if (b->loops)
            fprintf(f, ", loops: %u", b->loops);
        if (b->tolerance > 0)
            fprintf(f, ", tolerance: %g", b->tolerance);
        fprintf(f, ", %s: %.4g, source: ",
                b->metric == MACHINE_MB_NS_PER_LOAD ? "ns_per_load" : "gbps", b->value);
        quoted(f, b->source);
        fprintf(f, "}%s\n", g->stage ? "" : "");
    }
    fclose(f);
    return text;
}

char *measure_machine_yaml(measure_t *ms, const char *name, const char *command, char *err,
                           size_t errlen)
{
    if (!ms->fitted) {
        errbuf_set(err, errlen, "internal: measure_machine_yaml before measure_fit");
        return NULL;
    }
    char note[MACHINE_TEXT_MAX + 160];
    if (ms->same_silicon)
        snprintf(note, sizeof note,
                 "structural: from %s (the same silicon: %s family 0x%x model "
                 "0x%x)",
                 ms->base_name, ms->h.vendor, ms->h.family, ms->h.model);
    else
        snprintf(note, sizeof note, "assumed: from %s (the nearest file; not this CPU)",
                 ms->base_name);
    /* a timing no figure of this host determined (a figure skipped, or
     * missing from --figures): say so, not "structural" */
    char note_timing[MACHINE_TEXT_MAX + 160];
    snprintf(note_timing, sizeof note_timing,
             "not measured: from %s; no figure of this host determined it", ms->base_name);
    char *header = header_text(ms, command), *tail = tail_text(ms);
    if (!header || !tail) {
        free(header);
        free(tail);
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    detect_extra_t x = {.values = ms->v,
                        .n_values = ms->nv,
                        .header = header,
                        .base_note = note,
                        .base_note_timing = note_timing,
                        .skip_top = "microbench",
                        .tail = tail};
    char *text = detect_machine_yaml_ex(&ms->h, name, ms->base_path, NULL, &x, err, errlen);
    free(header);
    free(tail);
    return text;
}
