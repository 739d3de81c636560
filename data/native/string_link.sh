#!/usr/bin/env bash
# string_link.sh - what one rep stosb per 2 MiB folio costs on the guest's write link, zeros
# against data (issue 44): per interleaved pass, over 1 GiB, each line-writing kernel with a
# load ahead of every 4 KiB page (the _ahead twins: the host page's TLB miss taken by the load,
# so the link shows) with zeros and with data (fill 0x5a), and rep stosb plain both ways. If
# the string engine's zero lines went to memory as cheaply as CLZERO's or the NT stores' full
# zero lines, rep_stosb_ahead with zeros would run well above it with data.
# usage: string_link.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-4}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
x="--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB"
cases=(
  "probe-write-ahead|--workload ntstore -f avx512_nt_ahead --fill 90 --page 2MB -s 1GiB"
  "probe-zero-ahead|--workload ntstore -f avx512_nt_ahead --page 2MB -s 1GiB"
  "extent-rep_stosb_ahead|$x -f rep_stosb_ahead"
  "extent-rep_stosb_ahead-data|$x -f rep_stosb_ahead --fill 90"
  "extent-rep_stosb|$x -f rep_stosb"
  "extent-rep_stosb-data|$x -f rep_stosb --fill 90"
  "extent-clzero_ahead|$x -f clzero_ahead"
  "extent-avx512_nt_ahead-data|$x -f avx512_nt_ahead --fill 90"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
