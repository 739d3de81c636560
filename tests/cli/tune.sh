#!/usr/bin/env bash
# tune.sh - clearsim tune: the direction and order of magnitude of its
# recommendations, not hand-picked numbers.
#  - no reuse: the recommended non-temporal threshold is far below the L3
#    size (at most L3/8), on zen5-epyc-9005 (zen3-epyc-7j13 when that file is
#    absent) and graviton3. A machine whose own write streaming already stops
#    allocating in every cache level far below the L3 size (write_streaming.l3
#    at most L3/8: graviton3, 1 MiB) may need no non-temporal stores at all;
#    there this check is reported as not checked (issue 6);
#  - full reuse of regions that fit L2: the threshold is at least the L2 size
#    (or there is none), on both machines;
#  - a 1 ms budget on zen3-epyc-7j13 under voluntary: the extent cap is
#    within a factor of 2 of budget x the predicted clear bandwidth of
#    'clearsim run' (cold 8MiB clears);
#  - full preemption needs no cap; the json keys of docs/JSON.md; errors.
# Sizes stay small: every cost is a model run over a buffer 1.25 x the caches.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
need_python

cfg_size() { # cfg_size MACHINE LEVEL -> bytes, from configs/MACHINE.yaml
    python3 - "$CLEARSIM_SOURCE_DIR/configs/$1.yaml" "$2" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^%s:\s*\n(?:\s+#.*\n)*\s+size:\s*([0-9.]+)\s*([KMG]i?B)" % sys.argv[2], text, re.M)
units = {"KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20, "GB": 1 << 30, "GiB": 1 << 30}
print(int(float(m.group(1)) * units[m.group(2)]))
EOF
}

# The x86 machine: Milan, whose temporal and non-temporal clearing paths are calibrated to
# published clears. (zen5-epyc-9005's MOVNTI issue cost is still Zen 3's, no Zen 5 figure
# being published, so which strategy wins there is not a fact to test.)
X86=zen3-epyc-7j13

for M in "$X86" graviton3; do
    L2=$(cfg_size "$M" l2)
    L3=$(cfg_size "$M" l3)
    [[ $L2 -gt 0 && $L3 -gt $L2 ]] || fail "$M: cache sizes not found ($L2, $L3)"
    # bytes of a streaming run after which the machine's write streaming stops
    # allocating in every cache level (0: no write streaming, or never)
    WSL3=$(python3 - "$CLEARSIM_SOURCE_DIR/configs/$M.yaml" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
ws = re.search(r"^write_streaming:\s*\n((?:[ #].*\n)+)", t, re.M)
on = ws and re.search(r"^\s+enabled:\s*true", ws.group(1), re.M)
l3 = ws and re.search(r"^\s+l3:\s*([0-9]+)\s*([KMG]i?B|B)", ws.group(1), re.M)
u = {"B": 1, "KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20, "GB": 1 << 30,
     "GiB": 1 << 30}
print(int(l3.group(1)) * u[l3.group(2)] if on and l3 else 0)
EOF
    )

    # no reuse: from 4 KiB to L3/4
    cs tune --machine "$M" --sizes "4KB..$((L3 / 4))B:x16" --reuse 0 --preempt full --jobs 2 \
        --format json -q
    [[ $RC -eq 0 ]] || fail "tune $M --reuse 0: exit $RC"
    python3 - "$OUT" "$L3" "$M" "$WSL3" <<'EOF' || fail "tune $M --reuse 0"
import json, sys
d = json.load(open(sys.argv[1])); l3 = int(sys.argv[2]); wsl3 = int(sys.argv[4])
assert d["machine"] == sys.argv[3]
t = d["nt_threshold_bytes"]
if t is None and 0 < wsl3 <= l3 // 8:
    # The machine's own write streaming stops allocating far below L3, and STNP never
    # beats STP: there is no threshold to check (issue 6 keeps this open).
    print("NOTE: %s: NOT CHECKED: no non-temporal threshold; write streaming stops "
          "allocating after %d bytes" % (sys.argv[3], wsl3), file=sys.stderr)
    sys.exit(0)
assert t is not None, "no reuse: non-temporal clearing should win somewhere"
assert t <= l3 // 8, "threshold %d is not far below the L3 size %d" % (t, l3)
EOF

    # full reuse of regions that fit L2: L2/4, L2, and one size above
    cs tune --machine "$M" --sizes "$((L2 / 4))B..$((L2 * 4))B:x4" --reuse 1 --preempt full \
        --jobs 2 --format json -q
    [[ $RC -eq 0 ]] || fail "tune $M --reuse 1: exit $RC"
    python3 - "$OUT" "$L2" <<'EOF' || fail "tune $M --reuse 1"
import json, sys
d = json.load(open(sys.argv[1])); l2 = int(sys.argv[2])
t = d["nt_threshold_bytes"]
assert t is None or t >= l2, "threshold %d is below the L2 size %d" % (t, l2)
# the re-fetch after a non-temporal clear costs more than after a temporal one
by = {}
for p in d["curve"]:
    by.setdefault(p["size_bytes"], {})[p["strategy"]] = p
for size, s in by.items():
    if size <= l2:
        assert s["nontemporal"]["refetch_seconds"] > s["temporal"]["refetch_seconds"], size
        assert s["temporal"]["reuse_bytes"] == size
EOF
done

# extent cap: 1 ms under voluntary on zen3
cs tune --machine zen3-epyc-7j13 --sizes 64KB --preempt voluntary --latency-budget 1ms \
    --format json -q --jobs 2
[[ $RC -eq 0 ]] || fail "tune extent cap: exit $RC"
cp "$OUT" "$TMPD/cap.json"
cs run --machine zen3-epyc-7j13 -f rep_stosb -s 64MB -k 8MB --format json -q
[[ $RC -eq 0 ]] || fail "run for the bandwidth: exit $RC"
python3 - "$TMPD/cap.json" "$OUT" <<'EOF' || fail "tune extent cap"
import json, sys
d = json.load(open(sys.argv[1])); run = json.load(open(sys.argv[2]))
keys = ["machine", "set", "nt_threshold_bytes", "extent_cap_bytes", "current_function", "strategies",
        "reuse", "current_expected_seconds", "thresholds", "extent_cap", "curve"]
assert list(d) == keys, list(d)
c = d["extent_cap"]
assert c["needed"] is True and c["preempt"] == "voluntary" and c["latency_budget_seconds"] == 0.001
cap = d["extent_cap_bytes"]
assert cap == c["cap_bytes"] and cap % 4096 == 0 and c["clear_seconds"] <= 0.001
assert c["cap_pow2_bytes"] <= cap < 2 * c["cap_pow2_bytes"]
want = 0.001 * run["bytes_per_sec"]
assert want / 2 <= cap <= want * 2, "cap %d vs budget x bandwidth %.0f" % (cap, want)
assert c["uncapped_reference_bytes"] == 1 << 30
assert c["throughput_loss"] < 1
p = d["curve"][0]
assert list(p) == ["size_bytes", "weight", "strategy", "function", "reuse_bytes", "buffer_bytes",
                   "clear_seconds", "refetch_seconds", "total_seconds", "extrapolated",
                   "error_bound"], list(p)
assert [s["strategy"] for s in d["strategies"]] == ["temporal", "nontemporal", "linezero"]
EOF

# full preemption: no cap needed
cs tune --machine zen3-epyc-7j13 --sizes 64KB --preempt full --format json -q
python3 -c "
import json,sys; d=json.load(open('$OUT'))
assert d['extent_cap_bytes'] is None and d['extent_cap']['needed'] is False" ||
    fail "tune --preempt full: a cap was reported"

# size files
printf 'size,weight\n4KB,3\n64KB,1\n' >"$TMPD/sizes.csv"
cs tune --machine graviton3 --sizes-file "$TMPD/sizes.csv" --preempt full --format csv -q
[[ $RC -eq 0 ]] || fail "tune --sizes-file csv: exit $RC"
[[ $(grep -c '^graviton3,,4096,3,' "$OUT") -eq 4 ]] || fail "tune csv: 4 strategies at 4KiB, weight 3"
printf 'size,weight\n4KB,3\n64KB\n' >"$TMPD/bad.csv"
expect_error 1 "bad.csv:3" tune --machine graviton3 --sizes-file "$TMPD/bad.csv"
printf '4KB: 2\n2MB: x\n' >"$TMPD/bad.yaml"
expect_error 1 "bad.yaml:2" tune --machine graviton3 --sizes-file "$TMPD/bad.yaml"

expect_error 2 "--machine is required" tune --sizes 4KB
expect_error 2 "--reuse" tune --machine zen3-epyc-7j13 --reuse 1.5
expect_error 2 "--latency-budget" tune --machine zen3-epyc-7j13 --latency-budget 100cycles
expect_error 2 "not a multiple of 64" tune --machine zen3-epyc-7j13 --sizes 100B
expect_error 2 "given twice" tune --machine zen3-epyc-7j13 --sizes 4KB,4096
expect_error 2 "not both" tune --machine zen3-epyc-7j13 --sizes 4KB --sizes-file "$TMPD/sizes.csv"
echo "PASS"
