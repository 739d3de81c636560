#!/usr/bin/env bash
# write_link.sh - what a line costs on this host's write link, by how it was written and what
# it holds, at DRAM scale (512 MiB on 2 MiB pages) and at L1 size (where detect's stage 7
# measures), in interleaved passes so that each pass sees one host state (issue 44).
#   ntstore avx512_nt / movnti, fill 0x5a and 0x00: one 64-byte store a line against eight
#   8-byte stores a line, data against zeros; linezero clzero: a line-zero command;
#   probe-read: load64 over 512 MiB (the read side of the same state).
# usage: write_link.sh [PASSES] [CPU] > out.csv      (clearsim from build/)
set -euo pipefail
passes=${1:-3}
cpu=${2:-1}
cs=${CLEARSIM:-$(dirname "$0")/../../build/clearsim}
# shellcheck source=passes.bash
source "$(dirname "$0")/passes.bash"
cases=(
  "probe-read|--workload load -f load64 --page 2MB -s 512MiB"
  "nt64-data|--workload ntstore -f avx512_nt --fill 90 --page 2MB -s 512MiB"
  "nt64-zero|--workload ntstore -f avx512_nt --fill 0 --page 2MB -s 512MiB"
  "nt8-data|--workload ntstore -f movnti --fill 90 --page 2MB -s 512MiB"
  "nt8-zero|--workload ntstore -f movnti --fill 0 --page 2MB -s 512MiB"
  "clzero|--workload linezero -f clzero --page 2MB -s 512MiB"
  "nt64-zero-l1|--workload ntstore -f avx512_nt --fill 0 -s 16KiB -l 4096"
  "nt64-data-l1|--workload ntstore -f avx512_nt --fill 90 -s 16KiB -l 4096"
  "nt8-zero-l1|--workload ntstore -f movnti --fill 0 -s 16KiB -l 4096"
  "nt8-data-l1|--workload ntstore -f movnti --fill 90 -s 16KiB -l 4096"
)
native_passes "$cs" "$passes" "$cpu" 3 "${cases[@]}"
