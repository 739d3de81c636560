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
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 1GiB"
  "probe-write|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 1GiB"
  "probe-write-ahead|--workload ntstore -f avx512_nt_ahead --fill 90 --page 2MB -s 1GiB"
  "page-rep_stosb|--workload memset --caller page --page 2MB -s 1GiB -f rep_stosb"
  "extent-rep_stosb|$x -f rep_stosb"
  "extent-rep_stosb_ahead|$x -f rep_stosb_ahead"
  "extent-avx512_nt|$x -f avx512_nt"
  "extent-avx512_nt_ahead|$x -f avx512_nt_ahead"
  "extent-movnti|$x -f movnti"
  "extent-movnti_ahead|$x -f movnti_ahead"
  "extent-clzero|$x -f clzero"
  "extent-clzero_ahead|$x -f clzero_ahead"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
