#!/usr/bin/env bash
# ahead_kernels.sh - the store TLB miss of a guest's 4 KiB host pages through clearsim's own
# kernels (issue 44): per interleaved pass, one call per 2 MiB folio over 1 GiB with each
# streaming kernel plain and as its _ahead twin (one load from each next 4 KiB page 256 B
# before the stream reaches it; rep_stosb_ahead: from every page of the folio before the call),
# page-at-a-time rep stosb, and the crosscheck --gains probes (read, NT data) with the data probe's
# _ahead twin. The difference plain - ahead per 4 KiB page is the miss's cost by kind.
# usage: ahead_kernels.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-6}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
x="--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB"
# The host's features decide the kernels: the probes and the vector pair are the widest NT
# stores it has (AVX-512, else AVX2, else MOVNTI's probes and no vector pair); without CLZERO
# (Intel) CLZERO's pair drops out. The Zen 3 run of 2026-12-07 19:46 predates avx2_nt (MOVNTI).
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $flags " == *" $1 "* ]]; }
vec=""
if has avx512f; then vec=avx512_nt load=load64; elif has avx2; then vec=avx2_nt load=load32; else load=load8; fi
nt=${vec:-movnti}
cases=(
  "probe-read|--workload load -f $load --page 2MB -s 1GiB"
  "probe-write|--workload ntstore -f $nt --fill 90 --page 2MB -s 1GiB"
  "probe-write-ahead|--workload ntstore -f ${nt}_ahead --fill 90 --page 2MB -s 1GiB"
  "page-rep_stosb|--workload memset --caller page --page 2MB -s 1GiB -f rep_stosb"
  "extent-rep_stosb|$x -f rep_stosb"
  "extent-rep_stosb_ahead|$x -f rep_stosb_ahead"
  "extent-movnti|$x -f movnti"
  "extent-movnti_ahead|$x -f movnti_ahead"
)
if [[ -n $vec ]]; then
  cases+=("extent-$vec|$x -f $vec" "extent-${vec}_ahead|$x -f ${vec}_ahead")
fi
if has clzero; then
  cases+=("extent-clzero|$x -f clzero" "extent-clzero_ahead|$x -f clzero_ahead")
fi
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
