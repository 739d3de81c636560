/*
 * pick.h - --machine NAME|PATH|host resolved and loaded; for `host`, which
 * catalogued machine file describes this host, how it matched, and whether
 * it describes another system.
 */
#ifndef CLEARSIM_PICK_H
#define CLEARSIM_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "models/base/machine.h"
#include "sim/host/host.h"

/* What --machine resolved to, and for `host` how the file was chosen. */
typedef struct host_pick {
    char path[MACHINE_TEXT_MAX]; /* the machine file loaded */
    char how[1024];              /* host only: "<name> (<path>): vendor amd, family 0x19, ..." */
    char warning[1024];          /* host only: why the file describes another system, or "" */
} host_pick_t;

/* The catalogued machine file (user directories and bundled ones,
 * sim/machine/catalog.h) that matches this host: same isa, vendor, family and
 * model. A file measured on this CPU (detect --measure; same model name and
 * kind of system) comes first. Else a hypervisor guest prefers files that say
 * identity.guest: true, bare metal the others; within that group several
 * matches are narrowed by model_name. Returns 0 with pick filled, or -1 with
 * a one-line reason (none - with how to make one with 'clearsim detect' - or
 * several). pick->warning is set when the chosen file describes another kind
 * of system (a guest against bare metal) or another clock (the core measured
 * here runs more than HOST_PICK_CLOCK_TOLERANCE away from the file's
 * core.freq), and points to 'clearsim detect'. */
#define HOST_PICK_CLOCK_TOLERANCE 0.10
int host_pick_machine(host_pick_t *pick, char *err, size_t errlen);
/* The judgement behind pick->warning: does the file `name` (a guest's file
 * or not, at file_ghz) describe another system than host h, whose core was
 * measured at measured_ghz (0: not measured)? A clock further than
 * HOST_PICK_CLOCK_TOLERANCE x file_ghz away counts. Returns true with the
 * warning text, else false with warning "". */
bool host_pick_judge(const host_info_t *h, const char *name, bool file_guest, double file_ghz,
                     double measured_ghz, char *warning, size_t len);

/* The one resolver of --machine NAME|PATH|host: a bundled or user machine
 * name, a path to a file, or `host` (host_pick_machine). Returns the loaded
 * machine with pick filled (how and warning only for host; pick may be NULL),
 * or NULL with a one-line reason. */
machine_t *host_machine_open(const char *arg, host_pick_t *pick, char *err, size_t errlen);

#endif
