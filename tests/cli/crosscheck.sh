#!/usr/bin/env bash
# crosscheck --quick on this host: every case is measured natively and predicted; the table
# has one row per case with both figures and the signed error, the summary line gives the
# median and largest error over the cases printed (recomputed here from the table), the CSV has
# the documented columns with the same figures, and the data file it emits loads in
# `calibrate --check` with the same machine. The core clock is measured around each native
# case, the model predicts the case at it, and the data records their mean and each case's own.
# Cases whose 95% interval is wider than --ci are measured again in batches of --repeat runs
# (the runs column, the header's count of batches) within the --remeasure budget. Accuracy is not judged here (it depends on the
# host's state: docs/MODEL.md section 12); `clearsim crosscheck --machine host` reports it.
#
# Skips: a host no bundled machine file matches (clearsim detect makes one), and sanitizer
# builds (the 1 GiB model runs would take many minutes there). Not timed.
source "$(dirname "$0")/common.bash"
need_python

if grep -qa -- '__asan_init' "$CLEARSIM_BIN"; then
    skip "$CLEARSIM_BIN is a sanitizer build: the model's 1 GiB runs would take minutes"
fi
cs crosscheck --machine host --help
[[ $RC -eq 0 ]] || fail "crosscheck --help: exit $RC"
cs machines
"$CLEARSIM_BIN" crosscheck --machine host --quick --repeat 2 --ci 1 --remeasure 3 --jobs 2 -q \
    --output "$TMPD/x.csv" --emit-data "$TMPD/x.yaml" >"$OUT" 2>"$ERR" </dev/null || {
    if grep -q 'no machine file matches' "$ERR"; then
        skip "no bundled machine file matches this host: $(head -c 300 "$ERR")"
    fi
    fail "crosscheck exited non-zero"
}
# -q: nothing on stderr but the one warning that --machine host chose a file of another system
# (a guest, or another clock), which is printed whatever -q says.
grep -v '^clearsim: crosscheck: warning: --machine host: ' "$ERR" >"$TMPD/err.rest" || true
[[ ! -s "$TMPD/err.rest" ]] || fail "crosscheck -q wrote on stderr: $(head -c 300 "$TMPD/err.rest")"
[[ $(wc -l <"$ERR") -le 1 ]] || fail "crosscheck -q warned more than once"
MACHINE=$(sed -n "s/^# crosscheck: host '.*' natively vs model '\([^']*\)'.*/\1/p" "$OUT")
[[ -n "$MACHINE" ]] || fail "no header line naming the model"

# The clock: measured around each native case, which the model predicts at (the table's
# GHz column and the csv's predicted_at_ghz); the header gives their range and mean, and the
# emitted data records the mean as its clock (which calibrate then predicts at).
CLOCK=$(grep '^# core clock: ' "$OUT") || fail "no core clock line"
if [[ "$CLOCK" != *"not measurable"* ]]; then
    python3 - "$CLOCK" "$OUT" "$TMPD/x.csv" "$TMPD/x.yaml" <<'PY' || fail "clock figures disagree: $CLOCK"
import csv, re, sys
m = re.match(r"# core clock: ([0-9.]+)\.\.([0-9.]+) GHz around the native runs \(mean ([0-9.]+)\); "
             r"the machine file says ([0-9.]+) GHz; each case is predicted at its own", sys.argv[1])
assert m, sys.argv[1]
lo, hi, mean, _ = map(float, m.groups())
assert 0.1 < lo <= mean <= hi < 10, (lo, mean, hi)
ghz = [float(l.split()[-2]) for l in open(sys.argv[2]) if re.match(r"^\S+\s+[0-9.]+\s.*%\s+[0-9.]+\s+\d+$", l)]
assert ghz and all(lo - 0.006 <= g <= hi + 0.006 for g in ghz), (ghz, lo, hi)
assert abs(sum(ghz) / len(ghz) - mean) <= 0.011, (ghz, mean)
with open(sys.argv[3]) as f:
    at = sorted(float(r["predicted_at_ghz"]) for r in csv.DictReader(f))
assert len(at) == len(ghz) and all(abs(a - b) <= 0.006 for a, b in zip(at, sorted(ghz))), at
c = [l for l in open(sys.argv[4]) if l.startswith("clock: ")]
assert len(c) == 1 and abs(float(c[0].split()[1].rstrip("GHz")) - mean) <= 0.011, c
own = [float(l.split()[1].rstrip("GHz")) for l in open(sys.argv[4]) if l.startswith("    clock: ")]
assert len(own) == len(ghz) and all(abs(a - b) <= 0.0051 for a, b in zip(sorted(own), sorted(ghz))), own
PY
fi

# The table, the summary and the CSV print the same figures at their own precision: the CSV
# keeps whole bytes/s and the error to 0.001 points, the table GiB/s to 0.001 and the error to
# 0.1 points, the summary to 0.1 points. Each printed figure is checked against the CSV's, at the
# printed precision; the CSV's error is checked against its own two rates.
python3 - "$OUT" "$TMPD/x.csv" <<'PY' || fail "table, summary and csv disagree"
import csv, re, statistics, sys
rows = {}
summary = again = None
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+)\s+([0-9.]+)\s+(-|[0-9.]+)\s+([0-9.]+)\s+([+-][0-9.]+)%\s+([0-9.]+)\s+(\d+)$",
                 line)
    if m:
        meas, pred, err, runs = float(m.group(2)), float(m.group(4)), float(m.group(5)), int(m.group(7))
        assert meas > 0 and pred > 0 and 0.1 <= float(m.group(6)) <= 10, line
        assert runs >= 2 and runs % 2 == 0 and runs <= 24, line
        rows[m.group(1)] = (meas, pred, err, runs)
    b = re.match(r"^# measured again: (\d+) cases whose 95% interval was wider than 1% of the mean, "
                 r"in (\d+) batches of 2 runs", line)
    if b:
        again = (int(b.group(1)), int(b.group(2)))
    s = re.match(r"^summary: (\d+) cases, median \|error\| ([0-9.]+)%, max \|error\| ([0-9.]+)%", line)
    if s:
        summary = (int(s.group(1)), float(s.group(2)), float(s.group(3)))
assert summary, "no summary line"
shares = [float(l.split()[3].split("..")[0]) for l in open(sys.argv[1]) if l.startswith("# core share: ")]
assert len(shares) <= 1, shares
assert summary[0] == len(rows) >= 6, (summary, len(rows))
assert again, "no 'measured again' line"
extra = [r[3] // 2 - 1 for r in rows.values() if r[3] > 2]
assert again == (len(extra), sum(extra)) and again[1] >= 1, (again, extra)
kinds = {k.split("-")[0] for k in rows}
assert "repeat" in kinds and "fault" in kinds and len(kinds) >= 4, kinds
with open(sys.argv[2]) as f:
    r = list(csv.DictReader(f))
assert len(r) == len(rows), (len(r), len(rows))
half = lambda digits: 0.5 * 10 ** -digits + 1e-9  # what rounding to `digits` may move
errs = []
for row in r:
    meas, pred, err, runs = rows[row["case"]]
    assert int(row["runs"]) == runs, row
    m_bps, p_bps = float(row["measured_bytes_per_sec"]), float(row["predicted_bytes_per_sec"])
    e = float(row["error_pct"])
    assert abs(100 * (p_bps - m_bps) / m_bps - e) <= half(3) + 1e-6 * abs(e), row
    assert abs(m_bps / 2**30 - meas) <= half(3), (row, meas)
    assert abs(p_bps / 2**30 - pred) <= half(3), (row, pred)
    assert abs(e - err) <= half(1) + half(3), (row, err)
    share = float(row["host_adds_per_cycle"])  # 0: the ISA has no probe loop
    assert share == 0 or 0.05 < share < 16, row
    errs.append(abs(e))
assert abs(statistics.median(errs) - summary[1]) <= half(1) + half(3), (errs, summary)
assert abs(max(errs) - summary[2]) <= half(1) + half(3), (errs, summary)
PY

cs crosscheck --machine host --clock turbo
[[ $RC -eq 2 ]] && grep -q -- "--clock turbo: expected measured or file" "$ERR" ||
    fail "--clock turbo: exit $RC, $(head -c 200 "$ERR")"

cs calibrate --machine "$MACHINE" --data "$TMPD/x.yaml" --check --jobs 2 -q
[[ $RC -eq 0 || $RC -eq 1 ]] || fail "calibrate --check on the emitted data: exit $RC"
grep -q "^# check $MACHINE: " "$OUT" || fail "calibrate --check printed no header"
N=$(grep -c '^  - id: ' "$TMPD/x.yaml")
[[ $N -ge 6 ]] || fail "emitted data has $N cases"
echo "ok: crosscheck --quick, $N cases"
