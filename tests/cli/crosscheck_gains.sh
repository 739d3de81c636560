#!/usr/bin/env bash
# crosscheck --gains on this host, small: 2 passes over 64 MiB of 2 MiB folios, one timed run a
# case. The table has a row per case with a native and a model figure per pass; each gain's
# native range is the least and greatest over the passes of the way's rate over the base's,
# as recomputed here from the CSV, whose probes are the pass's figures; the model's figures per
# pass are those of the machine file with the pass's probes as memory.latency (a chase),
# memory.read_bandwidth,
# memory.write_bandwidth, memory.zero_data_fraction (the data probe over the zero probe, at
# most 1), memory.zero_writeback_fraction (twice the fill of data over the fill of zeros, less
# one, within 0.02..1) and memory.combined_bandwidth (the read and data probes together, or
# twice the fill), the write probes' _ahead twins' when they ran, and the host page's miss when
# the zero probe paid it and the data probes do not deny it (`clearsim run` with the same --set, at the pass's clock, checked for one case). The
# way that clears with the zero probe's kernel is not judged, and the summary says so.
# Accuracy is not judged (it depends on the host's state: docs/MODEL.md section 13). Usage
# errors: --passes and --size without --gains, --quick with it.
#
# Skips: a host without 2 MiB pages (THP or hugetlb) or one no bundled machine file matches;
# sanitizer builds. Not timed.
source "$(dirname "$0")/common.bash"
need_python

cs crosscheck --machine zen3-epyc-7j13 --passes 3
[[ $RC -eq 2 ]] && grep -q -- "--passes applies only with --gains" "$ERR" ||
    fail "--passes without --gains: exit $RC, $(head -c 200 "$ERR")"
cs crosscheck --machine zen3-epyc-7j13 -s 64MB
[[ $RC -eq 2 ]] && grep -q -- "--size applies only with --gains" "$ERR" ||
    fail "--size without --gains: exit $RC, $(head -c 200 "$ERR")"
cs crosscheck --machine zen3-epyc-7j13 --gains --quick
[[ $RC -eq 2 ]] && grep -q -- "--quick does not apply with --gains" "$ERR" ||
    fail "--gains --quick: exit $RC, $(head -c 200 "$ERR")"
cs crosscheck --machine zen3-epyc-7j13 --gains --passes 1
[[ $RC -eq 2 ]] && grep -q -- "--passes" "$ERR" || fail "--passes 1: exit $RC"

# each pass adds its own --set (the host's state): more than MACHINE_SET_MAX - 12 of the
# user's are refused before anything runs
cs crosscheck --machine zen3-epyc-7j13 --gains --set os.resched=1ns --set os.fault_1g=50000ns \
    --set memory.turnaround=0ns --set memory.write_queue=1 --set tlb.walk=28cycles
[[ $RC -ne 0 ]] && grep -q -- "--gains takes at most 4 --set" "$ERR" ||
    fail "--gains with 5 --set: exit $RC, $(head -c 200 "$ERR")"

if grep -qa -- '__asan_init' "$CLEARSIM_BIN"; then
    skip "$CLEARSIM_BIN is a sanitizer build: the model's runs would take minutes"
fi
"$CLEARSIM_BIN" crosscheck --gains --machine host --passes 2 -s 64MiB --repeat 1 --jobs 2 -q \
    --output "$TMPD/g.csv" >"$OUT" 2>"$ERR" </dev/null || {
    if grep -q 'no machine file matches\|need 2 MiB pages\|no clear_page kernel\|for the probes' "$ERR"; then
        skip "$(head -c 300 "$ERR")"
    fi
    fail "crosscheck --gains exited non-zero: $(head -c 300 "$ERR")"
}
MACHINE=$(sed -n "s/^# crosscheck --gains: host '.*' natively vs model '\([^']*\)' (\([^)]*\)).*/\2/p" "$OUT")
[[ -n "$MACHINE" ]] || fail "no header line naming the model's file"
python3 - "$OUT" "$TMPD/g.csv" "$CLEARSIM_BIN" "$MACHINE" <<'PY' || fail "table, gains and csv disagree"
import csv, json, re, subprocess, sys
out, path, cs, machine = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
passes = sorted({int(r["pass"]) for r in rows})
assert passes == [0, 1], passes
cases = [r["case"] for r in rows if r["pass"] == "0"]
roles = {r["case"]: r["role"] for r in rows}
assert roles.get("probe-read") == "probe-read" and roles.get("probe-write") == "probe-write", roles
assert roles.get("probe-zero") == "probe-zero", roles
assert roles.get("probe-latency-ns") == "probe-latency", roles  # a chase: ns a load
# the fill: a temporal store of data, one call per folio, over the cases' footprint
if "probe-fill" in roles:
    assert roles["probe-fill"] == "probe-fill", roles
    pf = [r["args"] for r in rows if r["case"] == "probe-fill"][0]
    assert "--caller extent" in pf and "--fill 90" in pf, pf
    # and the same fill of zeros
    assert roles.get("probe-fill-zero") == "probe-fill-zero", roles
    pfz = [r["args"] for r in rows if r["case"] == "probe-fill-zero"][0]
    assert pfz == pf.replace(" --fill 90", ""), (pf, pfz)
# the probes' _ahead twins, when the data probe's kernel has one
ahead_probes = "probe-write-ahead" in roles
assert ahead_probes == ("probe-zero-ahead" in roles), roles
# the zero probe: the data probe's kernel and footprint, fill 0
pw = [r["args"] for r in rows if r["case"] == "probe-write"][0]
pz = [r["args"] for r in rows if r["case"] == "probe-zero"][0]
assert pz == pw.replace("--fill 90", "--fill 0") and pz != pw, (pw, pz)
zero_kernel = pz.split(" -f ")[1].split()[0]
base = [c for c in cases if roles[c] == "base"]
ways = [c for c in cases if roles[c] == "way"]
assert len(base) == 1 and base[0].startswith("page-") and ways, cases
by = {(int(r["pass"]), r["case"]): r for r in rows}
# the table: a row per case, a native and a model figure per pass
table = {}
for line in open(out):
    if line.startswith("gain over"):
        break  # the gains' table follows
    f = line.split()
    if f and f[0] in roles:
        table[f[0]] = f[1:]
assert set(table) == set(cases), (table.keys(), cases)
for c in cases:
    for k in passes:
        r = by[(k, c)]
        assert abs(float(table[c][2 * k]) - float(r["native_gib_per_s"])) <= 0.006, (c, k)
        assert float(r["native_gib_per_s"]) > 0
        # every row of a pass carries that pass's probes
        assert r["probe_read_gib_per_s"] == by[(k, "probe-read")]["native_gib_per_s"]
        assert r["probe_write_gib_per_s"] == by[(k, "probe-write")]["native_gib_per_s"]
        assert r["probe_zero_gib_per_s"] == by[(k, "probe-zero")]["native_gib_per_s"]
        assert abs(float(r["probe_latency_ns"]) - float(by[(k, "probe-latency-ns")]["native_gib_per_s"])) <= 0.006
        # the links: the _ahead probes' when they ran (a load took the host's miss)
        ahead = ahead_probes and r["probe_write_ahead_gib_per_s"] != ""
        if ahead_probes:
            assert r["probe_write_ahead_gib_per_s"] == by[(k, "probe-write-ahead")]["native_gib_per_s"]
            assert r["probe_zero_ahead_gib_per_s"] == by[(k, "probe-zero-ahead")]["native_gib_per_s"]
        w = r["probe_write_ahead_gib_per_s" if ahead else "probe_write_gib_per_s"]
        z = r["probe_zero_ahead_gib_per_s" if ahead else "probe_zero_gib_per_s"]
        share = min(1.0, float(w) / float(z))
        assert abs(float(r["model_zero_data_fraction"]) - share) <= 2e-3, (c, k, share)
        # the bus: the links together, or twice the data fill (a line read, one written back)
        bus = float(r["probe_read_gib_per_s"]) + float(w)
        if "probe-fill" in roles:
            fill = float(by[(k, "probe-fill")]["native_gib_per_s"])
            assert abs(float(r["probe_fill_gib_per_s"]) - fill) <= 2e-4, (c, k, fill)
            bus = min(bus, 2 * fill)
        assert abs(float(r["model_combined_gib_per_s"]) - bus) <= 2e-3, (c, k, bus)
        # a written-back zero line: the fills' share (2 x data / zeros - 1, 0.02..1), else the NT one
        wb = share
        if "probe-fill-zero" in roles:
            fz = float(by[(k, "probe-fill-zero")]["native_gib_per_s"])
            assert abs(float(r["probe_fill_zero_gib_per_s"]) - fz) <= 2e-4, (c, k, fz)
            wb = min(1.0, max(0.02, 2 * fill / fz - 1))
        assert abs(float(r["model_zero_writeback_fraction"]) - wb) <= 2e-3, (c, k, wb)
        if ahead:  # the host's miss: the zero probe's page time less the model's issue time
            page = lambda g: 4096 / (float(g) * 2**30) * 1e9
            plain, twin = page(r["probe_zero_gib_per_s"]), page(z)
            miss = float(r["model_host_miss_ns"])
            denied = page(r["probe_write_ahead_gib_per_s"]) > page(r["probe_write_gib_per_s"]) * 1.05
            if plain <= twin * 1.05 or denied:
                assert miss == 0, (c, k, miss)
            else:
                assert 0 <= miss <= plain + 1e-6, (c, k, miss, plain)
        if roles[c] in ("base", "way"):
            assert abs(float(table[c][2 * k + 1]) - float(r["model_gib_per_s"])) <= 0.006, (c, k)
# each gain: the native range over the passes, from the csv
gains = {}
for line in open(out):
    m = re.match(r"^(\S+)\s+([0-9.]+)\.\.([0-9.]+)\s+([0-9.]+)\.\.([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(within|OUTSIDE)", line)
    if m:
        gains[m.group(1)] = [float(x) for x in m.groups()[1:7]] + [m.group(8), "not judged" in line]
assert set(gains) == set(ways), (gains.keys(), ways)
for w in ways:
    nat = [float(by[(k, w)]["native_gib_per_s"]) / float(by[(k, base[0])]["native_gib_per_s"]) for k in passes]
    mod = [float(by[(k, w)]["model_gib_per_s"]) / float(by[(k, base[0])]["model_gib_per_s"]) for k in passes]
    g = gains[w]
    assert abs(g[0] - min(nat)) <= 0.006 and abs(g[1] - max(nat)) <= 0.006, (w, g, nat)
    assert abs(g[2] - min(mod)) <= 0.006 and abs(g[3] - max(mod)) <= 0.006, (w, g, mod)
    mean = sum(mod) / len(mod)
    assert abs(g[4] - mean) <= 0.006, (w, g, mean)
    within = min(nat) / 1.15 <= mean <= max(nat) * 1.15
    assert (g[6] == "within") == within, (w, g, nat, mean)
    assert g[7] == (w == "extent-" + zero_kernel), (w, zero_kernel, g)
judged = [w for w in ways if not gains[w][7]]
n_in = sum(1 for w in judged if gains[w][6] == "within")
summ = [l for l in open(out) if l.startswith("summary: ")]
assert len(summ) == 1 and summ[0].startswith("summary: %d gains over %s, %d judged, %d of them within"
                                             % (len(ways), base[0], len(judged), n_in)), summ
# one model figure of pass 0, again with `clearsim run` and the pass's probes and clock
r = by[(0, ways[0])]
clock = [float(by[(0, c)]["clock_ghz"]) for c in cases if float(by[(0, c)]["clock_ghz"]) > 0]
if clock:
    ghz = sum(clock) / len(clock)
    args = r["args"].split()
    ahead = r["probe_write_ahead_gib_per_s"] != ""
    sets = ["core.freq=%.6fGHz" % ghz, "memory.latency=%sns" % r["probe_latency_ns"],
            "memory.read_bandwidth=%sGB/s" % r["probe_read_gib_per_s"],
            "memory.write_bandwidth=%sGB/s" % r["probe_write_ahead_gib_per_s" if ahead else "probe_write_gib_per_s"],
            "memory.zero_data_fraction=%s" % r["model_zero_data_fraction"],
            "memory.zero_writeback_fraction=%s" % r["model_zero_writeback_fraction"],
            "memory.combined_bandwidth=%sGB/s" % r["model_combined_gib_per_s"]]
    miss = float(r["model_host_miss_ns"]) if ahead else 0
    if miss > 0:  # tlb.host_*: 4 KiB host pages, the file's entries, its kinds' proportions
        p = subprocess.run([cs, "machines", "--provenance", machine, "--format", "json"],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        vals = {v["key"]: v["value"] for v in json.loads(p.stdout)["values"]}
        ns = lambda key: float(vals.get("tlb.host_miss." + key, "0ns").rstrip("ns") or 0)
        entries = int(vals.get("tlb.host_entries", "0")) or int(vals["tlb.entries_4k"])
        sets += ["tlb.host_page=4KiB", "tlb.host_entries=%d" % entries]
        for kind in ("nt_line", "nt_narrow", "string", "line_zero"):
            v = miss * ns(kind) / ns("nt_line") if ns("nt_line") > 0 else miss
            sets.append("tlb.host_miss.%s=%.3fns" % (kind, v))
    p = subprocess.run([cs, "run", "--machine", machine, *args, "--format", "json",
                        *[x for s in sets for x in ("--set", s)]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)["bytes_per_sec"] / 2**30
    # the clock is printed to 3 decimals in the csv: a small difference is allowed
    assert abs(got - float(r["model_gib_per_s"])) <= 0.01 * got, (got, r)
PY
echo "ok: crosscheck --gains, $(grep -c '' "$TMPD/g.csv") rows"
