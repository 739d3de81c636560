#!/usr/bin/env bash
# Fast-forward matches exact simulation: on every bundled machine, one workload of 256 MiB to
# 1 GiB is predicted with the statistical fast-forward and with --exact, both with --no-bulk
# (exact bulk stepping, which would otherwise step these cases first, is compared with
# per-line simulation by bulk_exact.sh), and in the default mode (both mechanisms on, as users
# run it), and every numeric field
# of the JSON result (throughput, cycles, every perf counter, every traffic figure) must agree
# within 0.5% (relative to the exact value, or to 1 for a value below 1). The cases are chosen
# so that fast-forward engages on most machines (xeon-8480's 105 MiB L3 is larger than most
# steady stretch here, so there both runs simulate everything and must agree exactly); at least
# six of them must actually extrapolate, else the comparison would prove nothing.
#
# Known gap (not covered here until fixed): on graviton3 and neoverse-v2, mmap with 2 MiB
# extents (e.g. -s 1GB -p 2MB --caller extent) fast-forward undercounts l3.writebacks by ~1.5%
# and DRAM write bytes by ~0.7%.
#
# Not timed. About 25 s in a Release build (the exact runs dominate); an ASan/UBSan build runs
# the exact simulations many times slower, so this test skips itself there (exit 77).
source "$(dirname "$0")/common.bash"
need_python

if grep -qa -- '__asan_init' "$CLEARSIM_BIN"; then
    skip "$CLEARSIM_BIN is a sanitizer build: the exact runs (about 20 s in Release) would take minutes"
fi

CASES=(
    "zen3-epyc-7j13|--workload mmap -s 1GB -p 2MB --caller extent"
    "zen3-epyc-7j13|-s 256MB -k 1MB -f rep_stosb"
    "zen4-epyc-9004|--workload mmap -s 512MB -p 2MB --caller page"
    "zen5-epyc-9005|-s 256MB -k 1MB"
    "xeon-8358|--workload mmap -s 512MB -p 2MB --caller page"
    "xeon-8480|--workload mmap -s 1GB -p 2MB --caller extent"
    "graviton3|-s 256MB -k 1MB"
    "neoverse-v2|-s 256MB -k 1MB -f stnp"
    "ampereone-a192|--workload mmap -s 1GB -p 2MB --caller extent"
    "xeon-8480|-s 256MB -k 1MB -f unrolled"
)

# Every bundled machine is covered: one without a case above gets a 256 MiB memset in 1 MiB
# chunks with its default function.
cs machines
[[ $RC -eq 0 ]] || fail "clearsim machines: exit $RC"
for m in $(awk 'NR > 1 {print $1}' "$OUT"); do
    printf '%s\n' "${CASES[@]}" | grep -q "^$m|" || CASES+=("$m|-s 256MB -k 1MB")
done

i=0
for c in "${CASES[@]}"; do
    m=${c%%|*}
    read -r -a args <<<"${c#*|}"
    cs run --machine "$m" "${args[@]}" --no-bulk --format json -q
    [[ $RC -eq 0 ]] || fail "clearsim run --machine $m ${args[*]}: exit $RC"
    cp "$OUT" "$TMPD/ff.$i.json"
    cs run --machine "$m" "${args[@]}" --no-bulk --exact --format json -q
    [[ $RC -eq 0 ]] || fail "clearsim run --machine $m ${args[*]} --exact: exit $RC"
    cp "$OUT" "$TMPD/exact.$i.json"
    cs run --machine "$m" "${args[@]}" --format json -q
    [[ $RC -eq 0 ]] || fail "clearsim run --machine $m ${args[*]} (default): exit $RC"
    cp "$OUT" "$TMPD/default.$i.json"
    echo "$m ${args[*]}" >"$TMPD/name.$i"
    i=$((i + 1))
done

python3 - "$TMPD" "$i" <<'EOF' || fail "fast-forward differs from exact simulation (above)"
import json, sys

tmp, n = sys.argv[1], int(sys.argv[2])

def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[pre + k] = v
    return out

bad, extrapolated = 0, 0
for i in range(n):
    name = open(f"{tmp}/name.{i}").read().strip()
    ff = json.load(open(f"{tmp}/ff.{i}.json"))
    ex = json.load(open(f"{tmp}/exact.{i}.json"))
    if ex["extrapolated"]:
        print(f"FAIL {name}: --exact reports extrapolated")
        bad += 1
    extrapolated += bool(ff["extrapolated"])
    fx = flat(ex)
    for mode, run in (("fast-forward", ff),
                      ("default", json.load(open(f"{tmp}/default.{i}.json")))):
        fe = flat(run)
        worst, where = 0.0, "-"
        for k, v in fx.items():
            if k in ("error_bound", "bulk_lines"):  # (how much each stepped exactly differs)
                continue
            if k not in fe:
                print(f"FAIL {name}: field {k} missing ({mode})")
                bad += 1
                continue
            d = abs(fe[k] - v) / max(abs(v), 1.0)
            if d > worst:
                worst, where = d, k
        ok = worst <= 0.005
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} ({mode}): extrapolated={run['extrapolated']} "
              f"bulk_lines={run['bulk_lines']} max difference {worst * 100:.4f}% ({where}), "
              f"stated bound {run['error_bound'] * 100:.4f}%")
if extrapolated < 6:
    print(f"FAIL only {extrapolated} of {n} cases extrapolated (at least 6 expected)")
    bad += 1
sys.exit(1 if bad else 0)
EOF
