#!/usr/bin/env bash
# folio_gains.sh - the folio-clearing gains on this host, natively, with the host's state
# measured in the same passes (issue 44). Each pass runs, back to back on one CPU:
#   probes: a DRAM read (load64, 512 MiB) and a DRAM write of data (avx512_nt, fill 0x5a,
#           512 MiB): the host's memory state in that pass;
#   probe-latency: a dependent chase over 256 MiB on 2 MiB pages (its GiB/s is 64 B per load);
#   fault-2m-demand: perf bench mem mmap -p 2MB -f demand over 1 GiB, where the host kernel
#           faults and clears each folio (the fault path's cost is that time less the
#           page-at-a-time clear's, when the host kernel clears page-at-a-time);
#   cases:  1 GiB of prefaulted 2 MiB THP folios cleared page-at-a-time (rep stosb, 4 KiB
#           calls in process_huge_page order for a fault at subpage 0) and in one call per
#           folio (extent, preempt lazy) with rep_stosb, clzero, movnti, avx512_nt;
# and the pass order rotates so that no case always follows the same one.
# usage: folio_gains.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-4}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 512MiB"
  "probe-write|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 512MiB"
  "probe-latency|--workload latency -f chase --page 2MB -s 256MiB"
  "fault-2m-demand|--workload mmap --fault demand --page 2MB -s 1GiB"
  "page-rep_stosb|--workload memset --caller page --page 2MB -s 1GiB -f rep_stosb"
  "extent-rep_stosb|--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB -f rep_stosb"
  "extent-clzero|--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB -f clzero"
  "extent-movnti|--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB -f movnti"
  "extent-avx512_nt|--workload memset --caller extent --preempt lazy --page 2MB -s 1GiB -f avx512_nt"
)
native_passes "$cs" "$passes" "$cpu" 5 "${cases[@]}"
