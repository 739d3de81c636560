#!/usr/bin/env bash
# fill_bus.sh - does a temporal fill at DRAM scale (each line read for ownership, then written
# back) meet a limit that reads and writes share, and does a line of zeros written back cost
# less than one of data there (issue 44)? Per interleaved pass, over 1 GiB in 2 MiB folios:
# the read probe, the NT write probes with a load ahead (data, zeros), and one call per folio of
# temporal stores (rep stosb with its pages loaded first, the widest vector stores, 8-byte movq)
# with zeros and with data (fill 0x5a).
# usage: fill_bus.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-3}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
x="--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB"
# The host's widest kernels: AVX-512 where it runs, else AVX2 (Zen 3); the loads likewise.
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $flags " == *" $1 "* ]]; }
if has avx512f; then v=avx512 load=load64; elif has avx2; then v=avx2 load=load32; else
  echo "fill_bus.sh: needs AVX2 or AVX-512 (x86-64)" >&2; exit 1; fi
cases=(
  "probe-read|--workload load -f $load --page 2MB -s 1GiB"
  "probe-write-ahead|--workload ntstore -f ${v}_nt_ahead --fill 90 --page 2MB -s 1GiB"
  "probe-zero-ahead|--workload ntstore -f ${v}_nt_ahead --page 2MB -s 1GiB"
  "extent-rep_stosb_ahead|$x -f rep_stosb_ahead"
  "extent-rep_stosb_ahead-data|$x -f rep_stosb_ahead --fill 90"
  "extent-$v|$x -f $v"
  "extent-$v-data|$x -f $v --fill 90"
  "extent-unrolled-data|$x -f unrolled --fill 90"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
