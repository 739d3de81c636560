#!/usr/bin/env bash
# make-examples.sh - make the example images of README.md (docs/img/*.png) with
# clearsim's own commands: sweep, tune and plot.
#
# Usage: bash plots/make-examples.sh [CLEARSIM_BINARY]   (default: build/clearsim)
# Needs gnuplot (bash .ci/setup installs gnuplot-nox). Takes a few minutes with
# a Release build; set JOBS to change the threads used (default: nproc).
# The images are predictions, so they have the inputs of docs/PREDICTIONS.md:
# regenerate that first; docs/img/FINGERPRINT then records its fingerprint, and
# tests/cli/predictions.sh fails when the images are older than the inputs.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-build/clearsim}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
[[ -x "$bin" ]] || { echo "make-examples: $bin is not built (bash .ci/setup)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "make-examples: gnuplot is missing" >&2; exit 1; }

out=docs/img
"$bin" report --check docs/PREDICTIONS.md >/dev/null ||
    { echo "make-examples: docs/PREDICTIONS.md is out of date: regenerate it first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# 1. throughput against the chunk size per function: perf bench mem memset -s 64MB -k CHUNK
"$bin" sweep --machine zen3-epyc-7j13 -s 64MB --sweep function=rep_stosb,movnti,clzero,avx2 \
    --sweep chunk=4KB..64MB:x4 --jobs "$jobs" -q -o "$tmp/chunks.csv"
"$bin" plot --kind throughput -i "$tmp/chunks.csv" -o "$out/throughput-zen3.png" \
    --title 'zen3-epyc-7j13: memset of 64 MiB in chunks (predicted)'

# 2. machines: clear_pages of 2 MiB folios as extents, each machine's default function
machines=$("$bin" machines --format json |
    python3 -c 'import json,sys; print(",".join(m["name"] for m in json.load(sys.stdin)["machines"]))')
"$bin" sweep --sweep "machine=$machines" --workload mmap -p 2MB -s 256MB --caller extent \
    --jobs "$jobs" -q -o "$tmp/machines.csv"
"$bin" plot --kind machines -i "$tmp/machines.csv" -o "$out/machines.png" \
    --title 'perf bench mem mmap -p 2MB -s 256MB, clear_pages extents (predicted)'

# 3. tuning curves: the consumer reads back the whole cleared region
"$bin" tune --machine zen3-epyc-7j13 --sizes 4KB..64MB:x4 --reuse 1 --preempt full \
    --jobs "$jobs" -q --format csv -o "$tmp/tune.csv"
"$bin" plot --kind tuning -i "$tmp/tune.csv" -o "$out/tuning-zen3.png" \
    --title 'zen3-epyc-7j13: clearing + re-fetch of the whole region (dashed: clearing only)'

# docs/VALIDATION.md's plot, when the corpus has files (clearsim validate)
if compgen -G "data/published/*.yaml" >/dev/null; then
    "$bin" report --validation --check docs/VALIDATION.md --trust data/validation.csv >/dev/null ||
        { echo "make-examples: docs/VALIDATION.md is out of date: regenerate it first" >&2; exit 1; }
    "$bin" validate --jobs "$jobs" -q --format csv -o "$tmp/validation.csv"
    "$bin" plot --kind validation -i "$tmp/validation.csv" -o "$out/validation.png" \
        --title 'clearsim: predicted against published'
fi

grep '^Inputs fingerprint: ' docs/PREDICTIONS.md >"$tmp/FINGERPRINT"
mv "$tmp/FINGERPRINT" "$out/FINGERPRINT"
echo "make-examples: wrote $out/throughput-zen3.png $out/machines.png $out/tuning-zen3.png $out/validation.png $out/FINGERPRINT"
