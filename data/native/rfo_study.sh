#!/usr/bin/env bash
# rfo_study.sh - does a rep stos call of 2 MiB read its lines from DRAM (for ownership, or by a
# prefetcher) on this host? Per interleaved pass over 1 GiB of 2 MiB pages: the read, data-write
# and copy probes of crosscheck --gains; rep stosb and AVX-512 temporal stores in 2 MiB calls,
# each with data (0x5a) and zeros; and one rep stosb call per folio through the kernel's
# extent caller (issue 44). A call whose lines are read runs at most at the bus over two
# lines a line, which the copy (three lines a line) bounds; one whose lines are not runs
# at the write probe's rate.
# usage: rfo_study.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-4}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 1GiB"
  "probe-write|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 1GiB"
  "probe-copy|--workload copy -f copy64 --fill 90 --page 2MB -s 512MiB"
  "stosb-2M-data|--workload memset -f rep_stosb -k 2MiB --fill 90 --page 2MB -s 1GiB"
  "stosb-2M-zero|--workload memset -f rep_stosb -k 2MiB --fill 0 --page 2MB -s 1GiB"
  "avx512-2M-data|--workload memset -f avx512 -k 2MiB --fill 90 --page 2MB -s 1GiB"
  "avx512-2M-zero|--workload memset -f avx512 -k 2MiB --fill 0 --page 2MB -s 1GiB"
  "extent-rep_stosb|--workload memset --caller extent --preempt lazy -f rep_stosb --page 2MB -s 1GiB"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
