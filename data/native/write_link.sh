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
echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')$(grep -qw hypervisor /proc/cpuinfo && echo ', a guest'); kernel $(uname -r); $(date -u +%FT%TZ)"
echo "pass,case,utc,gib_per_s,ci95_gib_per_s,clock_ghz"
n=${#cases[@]}
for ((p = 0; p < passes; p++)); do
  for ((i = 0; i < n; i++)); do
    c=${cases[$(((i + p) % n))]}
    name=${c%%|*}
    args=${c#*|}
    # shellcheck disable=SC2086
    "$cs" native $args --repeat 3 --cpu "$cpu" -q --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
nat = r["native"]
b = nat["bytes_per_sec"]
clk = nat["clock_ghz"]
print("%d,%s,%s,%.3f,%.3f,%.2f-%.2f" % (int(sys.argv[1]), sys.argv[2], nat["date_utc"], b["mean"] / 2**30,
      b["ci95"] / 2**30, clk["before"], clk["after"]))
' "$p" "$name"
  done
done
