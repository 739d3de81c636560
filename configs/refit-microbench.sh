#!/usr/bin/env bash
# Refit bundled machine files to their own microbench: sections after a model change, in place
# (docs/ADDING-A-MACHINE.md, step 5), carry refitted values into the keys derived as equal to
# them (configs/sync-derived.py), and check each file (what tests/cli/bundled_check.sh pins).
#
# usage: bash configs/refit-microbench.sh NAME...   (e.g. the files of issue 46:
#        zen2-epyc-7742 xeon-8270cl xeon-e5-2630v4 altra-q80-26 graviton2)
# CLEARSIM_BIN (default build/clearsim) is the binary; -j follows CLEARSIM_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
here=configs
bin=${CLEARSIM_BIN:-build/clearsim}
jobs=${CLEARSIM_JOBS:-2}
[[ $# -gt 0 ]] || { echo "usage: $0 NAME..." >&2; exit 2; }
for name in "$@"; do
    f=$here/$name.yaml
    [[ -f $f ]] || { echo "$0: no $f" >&2; exit 2; }
    "$bin" calibrate --machine "$f" --microbench -o "$f" -q -j "$jobs"
    python3 "$here/sync-derived.py" "$f"
    "$bin" check "$f" -q -j "$jobs" | tail -1
done
