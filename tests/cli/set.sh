#!/usr/bin/env bash
# --set KEY=VALUE on run, sweep, tune and crosscheck, and a sweep over a
# machine key: the key table's checks with the option named, exit 2, the
# clock conversion, and the override recorded in the output.
source "$(dirname "$0")/common.bash"
need_python
M=zen3-epyc-7j13

# unknown key, bad value, list key, no '=': exit 2, one line naming --set
expect_error 2 "--set 'l2.mshr=3': unknown machine key 'l2.mshr' (did you mean 'l2.mshrs'?)" \
    run --machine $M --set l2.mshr=3
expect_error 2 "--set l2.mshrs=0: l2.mshrs: 0: must be between" run --machine $M --set l2.mshrs=0
expect_error 2 "--set core.freq=fast: core.freq: fast:" run --machine $M --set core.freq=fast
expect_error 2 "--set 'features=erms': features is a list or a section" \
    run --machine $M --set features=erms
expect_error 2 "--set 'l2.mshrs': expected KEY=VALUE" run --machine $M --set l2.mshrs
expect_error 2 "--set 'l2.mshrs=': no value" run --machine $M --set l2.mshrs=
expect_error 2 "--set l2.mshrs=0:" sweep --machine $M --set l2.mshrs=0 --sweep size=1MiB
expect_error 2 "--set l2.mshrs=0:" tune --machine $M --set l2.mshrs=0 --sizes 4KB
expect_error 2 "--set 'nope=1'" crosscheck --machine $M --set nope=1
expect_error 2 "--clock file" crosscheck --machine $M --set core.freq=3GHz
expect_error 2 "--emit-data with --set or --libc" crosscheck --machine $M --set l2.mshrs=8 --emit-data x.yaml
# a sweep over more than 4096 machines is a usage error, before any runs
expect_error 2 "more than 4096 machines" sweep --machine $M --sweep l2.mshrs=1..100:+1 --sweep l1.mshrs=1..100:+1
# a bad value in a cross-check names the option too (L2 smaller than L1)
expect_error 2 "--set l2.size=16KiB" run --machine $M --set l2.size=16KiB

# the clock: an L1-resident clear at 4 GHz is twice as fast as at 2 GHz
rate() { # ARGS...: GB/s of one run
    cs run --machine $M -s 16KiB -l 64 --format json -q "$@"
    [[ $RC -eq 0 ]] || fail "run $*: exit $RC"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes_per_sec"])' "$OUT"
}
r4=$(rate --set core.freq=4GHz)
r2=$(rate --set core.freq=2GHz)
python3 - "$r4" "$r2" <<'PY' || fail "core.freq 4GHz / 2GHz: $r4 / $r2, expected 2 within 5%"
import sys
r4, r2 = map(float, sys.argv[1:])
assert abs(r4 / r2 - 2) <= 0.1, r4 / r2
PY

# the output records each override, in order; a key given twice keeps the later value
cs run --machine $M -s 64KiB --set l2.mshrs=8 --set memory.latency=90ns --set l2.mshrs=12 \
    --format json -q
[[ $RC -eq 0 ]] || fail "run --set: exit $RC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["set"] == "l2.mshrs=12 memory.latency=90ns", d["set"]' "$OUT" ||
    fail "run json: set is not 'l2.mshrs=12 memory.latency=90ns'"
cs run --machine $M -s 64KiB --set l2.mshrs=8 -q
grep -q "^# machine '$M' (simulated; --set l2.mshrs=8)" "$OUT" || fail "run text: the override is not shown"

# an override changes the prediction where the mechanism says it should: a
# DRAM-bound temporal clear with fewer L2 miss slots is slower
slow=$(rate -f unrolled -s 64MiB -l 1 --set l2.mshrs=4)
fast=$(rate -f unrolled -s 64MiB -l 1)
python3 -c "import sys; assert $slow < 0.8 * $fast, ($slow, $fast)" ||
    fail "l2.mshrs=4 does not slow a DRAM-bound clear ($slow against $fast)"

# sweep over a machine key: one point per value, the override in the set column
cs sweep --machine $M -f unrolled -s 64MiB --sweep l2.mshrs=4..16:x2 --format csv -q
[[ $RC -eq 0 ]] || fail "sweep l2.mshrs: exit $RC"
python3 - "$OUT" <<'PY' || fail "sweep over l2.mshrs: wrong points"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["sweep.l2.mshrs"] for r in rows] == ["4", "8", "16"], rows
assert [r["set"] for r in rows] == ["l2.mshrs=4", "l2.mshrs=8", "l2.mshrs=16"]
bps = [float(r["bytes_per_sec"]) for r in rows]
assert bps[0] < bps[1] < bps[2], bps
PY
cs sweep --machine $M -s 1MiB --sweep memory.latency=80ns..120ns:+20ns --format csv -q
[[ $RC -eq 0 ]] || fail "sweep memory.latency: exit $RC"
python3 -c 'import csv,sys; v=[r["sweep.memory.latency"] for r in csv.DictReader(open(sys.argv[1]))]; assert v == ["80ns","100ns","120ns"], v' "$OUT" ||
    fail "sweep memory.latency=80ns..120ns:+20ns: wrong values"
# a value the key refuses is that point's error, not the sweep's
cs sweep --machine $M -s 1MiB --sweep l2.mshrs=0,8 --format csv -q
[[ $RC -eq 1 ]] || fail "sweep l2.mshrs=0,8: exit $RC (point 0 fails)"
grep -q '^0,0,.*--set l2.mshrs=0: l2.mshrs: 0: must be between' "$OUT" || fail "sweep: point 0 has no error"
expect_error 2 "same unit" sweep --machine $M --sweep memory.latency=80ns..2us:+10ns
expect_error 2 "not a machine key" sweep --machine $M --sweep features.x=1,2
expect_error 2 "sweep the machine key itself" sweep --machine $M --sweep set=l2.mshrs=4

# tune records the override
cs tune --machine $M --sizes 4KB --set l2.mshrs=12 --format json -q
[[ $RC -eq 0 ]] || fail "tune --set: exit $RC"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["set"] == "l2.mshrs=12"' "$OUT" ||
    fail "tune json: set is not recorded"
exit 0
