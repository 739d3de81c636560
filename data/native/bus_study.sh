#!/usr/bin/env bash
# bus_study.sh - does one core's DRAM traffic on this host meet a shared bus, and do its copies
# measure it? Per interleaved pass over 1 GiB of 2 MiB pages: a read, a write of data
# (non-temporal), a temporal copy (a read, a read for ownership and a write-back a line) and a
# non-temporal copy (a read and a write a line) of data, each half the size each way, and one
# rep stosb call per folio through the kernel's extent caller (issue 44). A bus that bounds the
# copies runs the non-temporal copy 1.5x the temporal one; copies bounded by the reads in flight
# run both alike.
# usage: bus_study.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-5}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 1GiB"
  "probe-write|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 1GiB"
  "copy64|--workload copy -f copy64 --fill 90 --page 2MB -s 512MiB"
  "copy_nt64|--workload copy -f copy_nt64 --fill 90 --page 2MB -s 512MiB"
  "copy8|--workload copy -f copy8 --fill 90 --page 2MB -s 512MiB"
  "extent-rep_stosb|--workload memset --caller extent --preempt lazy -f rep_stosb --page 2MB -s 1GiB"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
