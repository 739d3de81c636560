#!/usr/bin/env bash
# Every native kernel's per-call cost is plausible: on this host, clearing a 256 MiB buffer in
# 4 KiB calls costs per call no more than the 2 MiB calls' rate gives those 4 KiB plus a
# bounded excess. Both see the same buffer and the same memory; only the calls differ.
#
# The bound, on a measured basis: a kernel passes when its 4 KiB calls run at a quarter of
# the 2 MiB-call rate or more, or when each call's excess time, 4 KiB / rate(4 KiB) -
# 4 KiB / rate(2 MiB), is under 2 us. What the test exists to catch costs far more:
#   - a CPUID in the call: 8.8-13.3 us a CPUID (leaf 7) in the Emerald Rapids KVM guest of
#     2026-12-02 (a VM exit; data/native/cpuid_cost.c, two runs), so a 4 KiB call would run at
#     under 0.03 of the 2 MiB rate;
#   - an mmap, munmap or page fault per call: several us each.
# What a real kernel's own call costs stays under it: the one sfence of a non-temporal or
# line-zeroing call waits for its lines to reach memory, a few DRAM write round trips (the
# Zen 5 guest of 2026-12-02: avx512_nt's 4 KiB calls at 0.153 of its 2 MiB rate, about
# 0.5 us of excess a call, which the former ratio-only rule failed).
#
# The best of two attempts is judged, so the load of other tenants does not decide it. No
# absolute speed is asserted.
#
# Skips: a kernel the host cannot run is skipped with its reason; the test skips when none
# runs.
source "$(dirname "$0")/common.bash"
need_python

rate() { # rate FUNCTION CHUNK: bytes/s, the mean of 3 timed runs
    cs native -s 256MB -k "$2" -f "$1" --repeat 3 --format json -q
    [[ $RC -eq 0 ]] || return 1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes_per_sec"])' "$OUT"
}

ran=0
for f in $("$CLEARSIM_BIN" functions --format json |
    python3 -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["functions"]))'); do
    cs native -s 64KB -f "$f" --repeat 1 -q
    if [[ $RC -ne 0 ]]; then
        echo "skip $f: $(head -c 200 "$ERR")"
        continue
    fi
    ok=0
    for attempt in 1 2; do
        small=$(rate "$f" 4KB) || fail "native -f $f -k 4KB: exit $RC"
        big=$(rate "$f" 2MB) || fail "native -f $f -k 2MB: exit $RC"
        ratio=$(python3 -c "print(f'{$small / $big:.3f}')")
        echo "$f: 4 KiB calls $(python3 -c "print(f'{$small / 2**30:.2f}')") GiB/s," \
            "2 MiB calls $(python3 -c "print(f'{$big / 2**30:.2f}')") GiB/s, ratio $ratio"
        excess_us=$(python3 -c "print(f'{(4096 / $small - 4096 / $big) * 1e6:.3f}')")
        echo "$f: excess per 4 KiB call $excess_us us"
        if python3 -c "import sys; sys.exit(0 if $small >= 0.25 * $big or $excess_us < 2 else 1)"; then
            ok=1
            break
        fi
    done
    [[ $ok -eq 1 ]] || fail "$f: 4 KiB calls run at $ratio of the 2 MiB-call rate (< 0.25), $excess_us us more a call (>= 2 us), twice"
    ran=$((ran + 1))
done
[[ $ran -gt 0 ]] || skip "no clearing kernel runs natively on this host"
echo "ok: $ran native kernels, per-call cost plausible"
