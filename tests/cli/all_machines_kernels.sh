#!/usr/bin/env bash
# Every bundled machine loads, and every kernel its ISA and features support runs on it,
# in the memset workload and in both fault callers, with a throughput in the JSON.
set -u
. "$(dirname "$0")/common.bash"
machines=$("$CLEARSIM_BIN" machines --format json | python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(sys.stdin)["machines"]))') || fail "machines"
[[ -n $machines ]] || fail "no machines"
fns=$("$CLEARSIM_BIN" functions --format json | python3 -c 'import json,sys; print(" ".join(f["name"] for f in json.load(sys.stdin)["functions"]))') || fail "functions"
runs=0
for m in $machines; do
    for f in $fns; do
        rc=0
        out=$("$CLEARSIM_BIN" run --machine "$m" -f "$f" -s 8MB -k 1MB --format json 2>&1) || rc=$?
        if [[ $rc -eq 2 ]]; then
            # not for this machine's ISA or features: a one-line usage error, nothing else
            [[ $out == clearsim:*"$f"* && $(printf '%s\n' "$out" | wc -l) -eq 1 ]] ||
                fail "$m $f: unexpected error: $out"
            continue
        fi
        [[ $rc -eq 0 ]] || fail "$m $f: exit $rc: $out"
        printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["bytes_per_sec"] > 0 and d["cycles"] > 0' ||
            fail "$m $f: no throughput"
        for c in page extent; do
            "$CLEARSIM_BIN" run --machine "$m" -f "$f" --workload mmap -p 2MB -s 4MB --caller $c \
                --format json >/dev/null 2>&1 || fail "$m $f mmap $c"
        done
        runs=$((runs + 1))
    done
done
echo "ok: $runs machine/kernel pairs"
