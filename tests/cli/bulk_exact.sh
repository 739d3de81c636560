#!/usr/bin/env bash
# Exact bulk stepping is exact (issue 22; docs/MODEL.md "Exact bulk stepping"): on every bundled
# machine, every clearing function it has clears 96 MiB in one call (bulk stepping inside one
# operation), and three workloads step across kernel calls (a 512 MiB memset in 1 MiB chunks; an
# mmap of 512 MiB in 2 MiB folios, page by page; 4 MiB cleared 24 times: the same footprint
# each loop); two mappings of 3 GiB also step by whole 1 GiB pages, and six 1 GiB folios step
# while the prefetchers gain streams, and four runs hold a streaming load's walk in flight
# across the periods (loads over 4 KiB pages, the _ahead kernels). Each runs with --exact
# (bulk stepping on) and with --exact --no-bulk (every line simulated, the reference path), and
# the two results must agree:
#  - every counter and traffic figure identically (integers);
#  - cycles within one, or a relative 1e-8 where that is more, and seconds and GB/s within a
#    relative 1e-8: per-line simulation rounds every time it adds at the unit in the last place
#    of the absolute time, so a period measured once and applied n times differs from the
#    per-line sum of the later periods by that rounding (docs/MODEL.md "Exact bulk stepping":
#    about a cycle per stepped 1 GiB folio, 1.4e8 cycles);
#  - bound_by.share (attribution) within 2e-4, or within the case's kernel calls / cycles where
#    that is larger: up to one cycle per stepped period (a period holds at least one call) may
#    be counted under another bound.* counter. The floor: per-line simulation gives each whole
#    cycle to the bound that leads when the time crosses it, a step shares its periods' cycles
#    by the time each bound led (models/model_bulk.c step), and the two part by up to a cycle
#    per change of leader inside the stepped periods. Seen at most 1.3e-4: zen3-epyc-7j13's
#    4 MiB x 24 after its 2026-12-07 rebuild, 22 loops in one step (0.99185 against 0.99198;
#    cycles, counters and traffic identical). A wrong bound for whole periods moves it by more.
# At least half of the cases must actually step (bulk_lines > 0), else nothing was compared.
# The 96 MiB clears on a machine whose L3 is a third of that or less (the Zen files: 32 MiB)
# must step more than half their lines: their warm-up pass fills the L3 and the measured clear
# drains the warm-up's last lines from it, which bulk stepping follows (cache_snap_grown). Each
# such clear stepped 22-46% of its lines before it did, 66-96% after (2026-12-05).
#
# Known gap (issue 46; not covered here until the model is fixed): graviton2's 96 MiB STP clear
# steps none of its lines (bulk_lines 0; the exact and per-line results still agree, and are
# compared). The same file with memory.combined_bandwidth at altra-q80-26's 17.35 GB/s instead
# of its own fitted 25.33 steps 3014656 lines: in that regime bulk stepping finds no period
# (cause not diagnosed; models/ is the lead's). Only the more-than-half requirement is waived
# for that one case.
#
# Not timed. About 40 s in a Release build (the --no-bulk runs dominate); a sanitizer build runs
# the reference path many times slower, so the test skips itself there (exit 77).
source "$(dirname "$0")/common.bash"
need_python

if grep -qa -- '__asan_init' "$CLEARSIM_BIN"; then
    skip "$CLEARSIM_BIN is a sanitizer build: the --no-bulk runs (about 40 s in Release) would take many minutes"
fi

cs machines --format json
[[ $RC -eq 0 ]] || fail "clearsim machines: exit $RC"
cp "$OUT" "$TMPD/machines.json"
cs functions --format json
[[ $RC -eq 0 ]] || fail "clearsim functions: exit $RC"
cp "$OUT" "$TMPD/functions.json"

python3 - "$CLEARSIM_BIN" "$TMPD" <<'EOF' || fail "bulk stepping differs from per-line simulation (above)"
import json, re, subprocess, sys

binary, tmp = sys.argv[1], sys.argv[2]
machines = json.load(open(f"{tmp}/machines.json"))["machines"]
functions = json.load(open(f"{tmp}/functions.json"))["functions"]
STREAMS = {"rep_stosb", "rep_stosq", "unrolled", "movnti", "clzero", "stp", "stnp", "dc_zva",
           "mops", "memset"}


def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out


def run(args):
    p = subprocess.run([binary, "run", "--format", "json", "-q"] + args, capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr.strip()


# Each case with its kernel calls: a stepped period holds at least one call, so the calls
# bound the periods, and the attribution's one cycle per period is calls / cycles of the
# share (fractional per-call costs, a startup of 9.9 cycles say, are truncated per period).
MB = 1 << 20


def l3_bytes(path):
    """The machine file's l3.size (0 if it has none)."""
    m = re.search(r"^l3:\n(?:[ \t]+#.*\n)*[ \t]+size:[ \t]*([0-9]+)[ \t]*(KiB|MiB)", open(path).read(),
                  re.M)
    return int(m.group(1)) << (10 if m.group(2) == "KiB" else 20) if m else 0


KNOWN_GAP = {("graviton2", "stp")}  # see "Known gap" above
cases = []
fill_drain = set()  # (machine, function): the 96 MiB clear fills and drains the L3
for m in machines:
    for f in functions:
        if f["isa"] == m["isa"] and f["name"] in STREAMS:
            cases.append(([m["name"], "-s", "96MB", "-f", f["name"]], 1))
            if 0 < l3_bytes(m["path"]) * 3 <= 96 * MB:
                fill_drain.add((m["name"], f["name"]))
    cases.append(([m["name"], "-s", "512MB", "-k", "1MB"], 512))
    cases.append(([m["name"], "--workload", "mmap", "-s", "512MB", "-p", "2MB", "--caller", "page"],
                  512 * MB // 4096))
    cases.append(([m["name"], "-s", "4MB", "-l", "24"], 24))
# moves by whole 1 GiB direct-map pages (run.c's third level), past two page ends
cases.append((["zen3-epyc-7j13", "--workload", "mmap", "-s", "3GB", "-p", "2MB", "--caller", "page"],
              3072 * MB // 4096))
cases.append((["graviton3", "--workload", "mmap", "-s", "3GB", "-p", "4KB"], 3072 * MB // 4096))
# folio by folio while the prefetchers gain a generation of streams each folio (pf_grow): six
# 1 GiB folios cleared in 8 MiB extents step three folios at once from the third
cases.append((["zen3-epyc-7j13", "--workload", "mmap", "-s", "6GB", "-p", "1GB", "--caller",
               "extent"], 6 * 128))

# lines of zeros kept apart from data (memory.zero_writeback_fraction below 1): a write-allocate
# clear whose write-backs reach memory, and a memset whose warm-up (fill 0xff) leaves data lines
# that its clears of zeros replace
for a in (["-s", "96MB", "-f", "unrolled"], ["-s", "4MB", "-l", "24"]):
    cases.append((["zen5-epyc-9005"] + a + ["--set", "memory.zero_writeback_fraction=0.6"],
                  24 if "-l" in a else 1))

# a streaming load's walk in flight (docs/MODEL.md section 8) on a guest's 4 KiB host pages:
# loads over 4 KiB pages, and the _ahead kernels' loads of the next page, in calls of 1 MiB and
# page by page; the walk's page and time step with the periods
HOST = ["--set", "tlb.host_page=4KiB", "--set", "tlb.host_miss.nt_line=120ns"]
for a, calls in ((["--workload", "load", "-f", "load64", "-s", "96MB", "-p", "4KB"], 1),
                 (["--workload", "mmap", "-s", "256MB", "-p", "2MB", "--caller", "page", "-f",
                   "rep_stosb_ahead"], 256 * MB // 4096),
                 (["-s", "256MB", "-k", "1MB", "-f", "clzero_ahead"], 256),
                 (["-s", "256MB", "-k", "1MB", "-f", "avx512_nt_ahead"], 256)):
    cases.append((["zen5-epyc-9005"] + a + HOST, calls))

bad = stepped = compared = 0
for c, calls in cases:
    args = ["--machine", c[0]] + c[1:] + ["--exact"]
    rc, out, err = run(args)
    if rc != 0:
        if "needs CPU feature" in err:
            continue  # the machine lacks it: nothing to compare
        print(f"FAIL clearsim run {' '.join(args)}: exit {rc}: {err}")
        bad += 1
        continue
    rc2, out2, err2 = run(args + ["--no-bulk"])
    if rc2 != 0:
        print(f"FAIL clearsim run {' '.join(args)} --no-bulk: exit {rc2}: {err2}")
        bad += 1
        continue
    a, b = flat(json.loads(out)), flat(json.loads(out2))
    compared += 1
    stepped += a.get("bulk_lines", 0) > 0
    if (c[0], c[-1]) in fill_drain and "96MB" in c and (c[0], c[-1]) not in KNOWN_GAP:
        lines = 2 * 96 * MB // 64  # warm-up and measured clear
        if a.get("bulk_lines", 0) * 2 <= lines:
            print(f"FAIL {' '.join(c)}: stepped {a.get('bulk_lines', 0)} of {lines} lines"
                  " (the L3's fill and drain not followed?)")
            bad += 1
    if b.get("bulk_lines") != 0:
        print(f"FAIL {' '.join(args)} --no-bulk: bulk_lines {b.get('bulk_lines')}")
        bad += 1
    diffs = []
    share_tol = max(2e-4, calls / b["cycles"]) if b.get("cycles") else 2e-4
    for k in sorted(set(a) | set(b)):
        va, vb = a.get(k), b.get(k)
        if k == "bulk_lines" or va == vb:
            continue
        if k in ("cycles", "counters.cycles") and isinstance(va, int) and isinstance(vb, int) \
                and abs(va - vb) <= max(1, 1e-8 * abs(vb)):
            continue
        if k in ("seconds", "bytes_per_sec") and isinstance(va, float) and isinstance(vb, float) \
                and abs(va - vb) <= 1e-8 * abs(vb):
            continue
        if k == "bound_by.share" and abs(va - vb) <= share_tol:
            continue
        if k in ("bound_by.name", "bound_by.label") and abs(a["bound_by.share"] -
                                                              b["bound_by.share"]) <= share_tol:
            continue  # a near tie between two bounds
        diffs.append(f"{k}: {va} (bulk) vs {vb} (per line)")
    print(f"{'FAIL' if diffs else 'ok  '} {' '.join(c)}: bulk_lines {a.get('bulk_lines', 0)}")
    for d in diffs[:8]:
        print(f"       {d}")
    bad += bool(diffs)
if compared == 0 or stepped * 2 < compared:
    print(f"FAIL only {stepped} of {compared} cases stepped in bulk (at least half expected)")
    bad += 1
sys.exit(1 if bad else 0)
EOF
