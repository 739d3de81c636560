#!/usr/bin/env bash
# nt_width_footprint.sh - where MOVNTI (eight 8-byte NT stores a line) falls behind one 64-byte
# NT store a line on this host: both widths with data (0x5a) over 8 MiB-1 GiB of 2 MiB pages,
# the small footprints repeated to about 512 MiB a run, in interleaved passes. Inside the reach
# of the TLB's 4 KiB entries (16 MiB on Zen 5) against past it: on a guest whose host backs its
# memory in 4 KiB pages, each new 4 KiB page past that reach walks the host's tables (issue 44).
# usage: nt_width_footprint.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-3}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=()
for s in "8MiB -l 64" "12MiB -l 43" "32MiB -l 16" "128MiB -l 4" "1GiB"; do
  for f in avx512_nt movnti; do
    cases+=("$f-${s%% *}|--workload ntstore -f $f --fill 90 --page 2MB -s $s")
  done
done
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
