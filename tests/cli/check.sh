#!/usr/bin/env bash
# `clearsim check FILE`: each figure of the file's microbench: section next to
# the model's. Figures set to the model's own values pass (exit 0); one 1.5
# times the model's fails with "<- off" (exit 1); a figure's own tolerance,
# --tolerance and the section's each decide; a file without figures or one
# that cannot be read exits 1, a usage error 2, each with one line.
source "$(dirname "$0")/common.bash"

case $(uname -m) in
x86_64) base=zen3-epyc-7j13 ld=load8 ;;
aarch64) base=graviton3 ld=load_x16 ;;
*) skip "no bundled machine file for $(uname -m)" ;;
esac
src="$CLEARSIM_SOURCE_DIR/configs/$base.yaml"
[[ -f $src ]] || fail "no $src"
# the base file without a microbench: section of its own (this test writes one)
strip_mb() { awk '/^microbench:/{skip=1; next} skip && /^[^ #]/{skip=0} !skip' "$src"; }

# column NAME of the CSV row in $OUT
col() { awk -F, -v k="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==k) c=i} NR==2{print $c}' "$OUT"; }

cs run --machine "$base" --workload load -f "$ld" -s 16KB -l 64 --format csv -q
[[ $RC -eq 0 ]] || fail "run load: exit $RC"
gbps=$(awk -v b="$(col bytes_per_sec)" 'BEGIN{printf "%.6g", b / 1073741824}')
cs run --machine "$base" --workload latency -f chase -s 1MB --format csv -q
[[ $RC -eq 0 ]] || fail "run latency: exit $RC"
ns=$(col ns_per_load)
ghz=$(awk '/^  freq:/{print $2; exit}' "$src")

# mk NAME LOAD_GBPS [EXTRA_FIGURE_KEYS] [SECTION_TOLERANCE]: the base file
# renamed, with two figures
mk() {
    local f="$TMPD/$1.yaml"
    strip_mb | sed "s/^name: $base\$/name: $1/" >"$f"
    {
        echo "microbench:"
        echo "  clock: $ghz"
        [[ -z ${4:-} ]] || echo "  tolerance: $4"
        echo "  figures:"
        echo "    - {id: l1-load, workload: load, function: $ld, size: 16KiB, loops: 64, gbps: $2${3:+, $3}, source: \"test\"}"
        echo "    - {id: l2-chase, workload: latency, function: chase, size: 1MiB, loops: 1, ns_per_load: $ns, source: \"test\"}"
    } >>"$f"
    echo "$f"
}

f=$(mk agree "$gbps")
cs check "$f" -q
[[ $RC -eq 0 ]] || fail "check on the model's own figures: exit $RC"
grep -q '^l1-load ' "$OUT" && grep -q '^l2-chase ' "$OUT" || fail "check: a figure is not listed"
grep -q 'summary: 2 figures, 0 outside' "$OUT" || fail "check: no summary line"
grep -q 'off' "$OUT" && fail "check: a figure equal to the model's is marked off"

off=$(awk -v g="$gbps" 'BEGIN{printf "%.6g", g * 1.5}')
f=$(mk apart "$off")
cs check "$f" -q
[[ $RC -eq 1 ]] || fail "check with a figure 1.5 x the model's: exit $RC, expected 1"
grep '^l1-load ' "$OUT" | grep -q -- '-33.3%  <- off' || fail "check: the figure 1.5 x the model is not -33.3% off"
grep -q 'summary: 2 figures, 1 outside 10%' "$OUT" || fail "check: the default tolerance is not 10%"

# threshold: -33.3% is within 0.34, outside 0.33
f=$(mk own "$off" "tolerance: 0.34")
cs check "$f" -q
[[ $RC -eq 0 ]] || fail "check: a figure's own tolerance 0.34 does not admit -33.3%: exit $RC"
f=$(mk own2 "$off" "tolerance: 0.33")
cs check "$f" -q
[[ $RC -eq 1 ]] || fail "check: a figure's own tolerance 0.33 admits -33.3%: exit $RC"
f=$(mk sect "$off" "" 0.34)
cs check "$f" -q
[[ $RC -eq 0 ]] || fail "check: the section's tolerance 0.34 does not admit -33.3%: exit $RC"
cs check "$f" --tolerance 0.2 -q
[[ $RC -eq 1 ]] || fail "check --tolerance 0.2 over the section's 0.34: exit $RC"

strip_mb | sed "s/^name: $base\$/name: nofig/" >"$TMPD/nofig.yaml"
cs check "$TMPD/nofig.yaml" -q
[[ $RC -eq 1 ]] || fail "check on a file without figures: exit $RC, expected 1"
grep -q 'no microbench' "$ERR" "$OUT" || fail "check without figures does not say so"

expect_error 2 "--tolerance" check "$f" --tolerance 2
expect_error 2 "check" check
expect_error 2 "unexpected argument" check "$f" "$f"
expect_error 1 "nosuch" check "$TMPD/nosuch.yaml"
echo "PASS"
