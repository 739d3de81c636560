#!/usr/bin/env bash
# Every bundled machine file reproduces its own microbench: section: `clearsim
# check` on each file with figures passes (exit 0: every figure within its
# tolerance). The figures are published microbenchmarks (docs/research/
# microbench-sources.md) that `calibrate --microbench` fitted the file to, so
# a model change that moves a file off its own figures fails here. Every
# bundled file has one (issue 18); a file without is listed, and the count fails.
source "$(dirname "$0")/common.bash"

# a value marked '# derived: = KEY' still equals KEY (a refit cannot leave it stale)
need_python
python3 "$(dirname "$0")/derived_values.py" "$CLEARSIM_SOURCE_DIR/configs" >"$OUT" ||
    fail "derived values out of date: $(cat "$OUT")"
# and the check can fail: a file whose derived value differs is named
mkdir -p "$TMPD/cfg"
sed 's/^  write_bandwidth: 17.2GB\/s   # derived: = memory.read_bandwidth/  write_bandwidth: 9GB\/s   # derived: = memory.read_bandwidth/' \
    "$CLEARSIM_SOURCE_DIR/configs/ampereone-a192.yaml" >"$TMPD/cfg/ampereone-a192.yaml"
if python3 "$(dirname "$0")/derived_values.py" "$TMPD/cfg" >"$OUT"; then
    fail "derived_values.py accepted a stale derived value"
fi
grep -q "memory.write_bandwidth: 9GB/s is marked '= memory.read_bandwidth'" "$OUT" ||
    fail "derived_values.py: $(cat "$OUT")"

n=0
checked=" "
for f in $(bundled_machines zen5-epyc-9005 graviton3); do
    name=$(basename "$f" .yaml)
    if ! grep -q '^microbench:' "$f"; then
        echo "note: $name has no microbench: section"
        continue
    fi
    cs check "$f" --jobs 2 -q
    [[ $RC -eq 0 ]] || fail "check $name: exit $RC: $(grep -E 'off|summary' "$OUT" | head -5)"
    grep -q '^summary: .*, 0 outside' "$OUT" || fail "check $name: $(tail -1 "$OUT")"
    n=$((n + 1))
    checked="$checked$name "
done
if [[ "${CLEARSIM_SANITIZE:-0}" == 1 ]]; then
    [[ $n -ge 2 ]] || fail "sanitize build: zen5-epyc-9005 and graviton3 must have figures"
else
    [[ $n -ge 13 ]] || fail "only $n bundled files have figures (every bundled file must: issue 18)"
    # the five files built from public data in issue 46 (docs/research/rome-cascadelake-broadwell-n1.md):
    # each reproduces its own microbenchmark figures, and none is lost from the bundle
    for name in zen2-epyc-7742 xeon-8270cl xeon-e5-2630v4 altra-q80-26 graviton2; do
        [[ $checked == *" $name "* ]] || fail "$name: not bundled, or without a microbench: section (issue 46)"
    done
fi
echo "ok: $n bundled machine files reproduce their microbenchmark figures"

# calibrate --microbench: exactly one of --data and --microbench; a file without fit keys
expect_error 2 "one of --data and --microbench" calibrate --machine graviton3
expect_error 2 "one of --data and --microbench" calibrate --machine graviton3 --microbench \
    --data "$CLEARSIM_SOURCE_DIR/data/calibration/zen3-epyc-7j13.yaml"
# (a copy of graviton3 without its fit list and its figures' stages: every bundled file has both)
sed '/^  fit:$/,/^  figures:$/{/^  fit:$/d;/^    - {key:/d}; s/, stage: [0-9]*//' \
    "$CLEARSIM_SOURCE_DIR/configs/graviton3.yaml" \
    >"$TMPD/cfg/graviton3.yaml"
grep -q '^    - {key:' "$TMPD/cfg/graviton3.yaml" && fail "the test's copy of graviton3 still has fit keys"
expect_error 1 "microbench.fit names no key to fit" calibrate --machine "$TMPD/cfg/graviton3.yaml" --microbench -q
# --check on a bundled file's own figures: they hold (exit 0), without fitting
cs calibrate --machine neoverse-v2 --microbench --check -q --jobs 2
[[ $RC -eq 0 ]] || fail "calibrate --microbench --check neoverse-v2: exit $RC: $(tail -3 "$OUT")"
grep -q '^# check neoverse-v2: microbench:' "$OUT" || fail "calibrate --microbench --check: no header line"
echo "ok: calibrate --microbench options"
