#!/usr/bin/env bash
# write_state.sh - which probe sees the Zen 5 guest's write-path state that line-zero
# commands (CLZERO) see and data stores do not (issue 44, open point 3): per interleaved pass,
# the crosscheck --gains probes (NT data and zeros over 1 GiB), CLZERO over 1 GiB alone and in
# one call per 2 MiB folio, fenced calls (a CLZERO call of 4 KiB and 1 KiB, one NT line)
# over 1 GiB, and a read probe.
# usage: write_state.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-6}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 1GiB"
  "probe-write|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 1GiB"
  "probe-zero|--workload ntstore -f avx512_nt --fill 0 --page 2MB -s 1GiB"
  "clzero|--workload linezero -f clzero --page 2MB -s 1GiB"
  "extent-clzero|--workload memset --caller extent --preempt lazy -f clzero --page 2MB -s 1GiB"
  "fence-lz-4KiB|--workload fence -f clzero -k 4096 --page 2MB -s 1GiB"
  "fence-lz-1KiB|--workload fence -f clzero -k 1024 --page 2MB -s 256MiB"
  "fence-nt-64B|--workload fence -f avx512_nt -k 64 --page 2MB -s 64MiB"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
