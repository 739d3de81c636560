#!/usr/bin/env bash
# `clearsim detect --measure --figures FILE`: the fit of a measured machine
# file, from figures kept in FILE (no native runs; a Zen 3 guest's figures
# without the DRAM-scale ones, so that it takes seconds). The file it writes
# loads, runs and checks; every value says where it came from; the values of
# the stages that had figures are fitted, those of the stages without are
# "not measured", not passed off as structural.
source "$(dirname "$0")/common.bash"

[[ $(uname -m) == x86_64 ]] || skip "the fixture's figures are x86-64 kernels (avx2, clzero, rep_stosb)"
fx="$CLEARSIM_SOURCE_DIR/tests/fixtures/measure/zen3-guest-figures.yaml"
out="$TMPD/fitted.yaml"

cs detect --measure --figures "$fx" -o "$out" -q
[[ $RC -eq 0 ]] || fail "detect --measure --figures: exit $RC"
[[ ! -s "$OUT" ]] || fail "detect --measure -o: printed on stdout"
grep -q '^name: fitted ' "$out" || fail "the name is not the file's base name"
grep -q '^microbench:' "$out" || fail "the file does not keep its figures"

# every value line names its origin
bad=$(grep -E '^ *[a-z_0-9A-Z-]+: [^ #]' "$out" | grep -v -E '# (detected|measured|fitted|structural|not measured|unused|set by|assumed|clearsim check)' | grep -v -E '^ *- \{id:' || true)
[[ -z $bad ]] || fail "values without their origin: $bad"

# stage 1 had its four figures: fitted
for key in stores_per_cycle insns_per_cycle load_bandwidth; do
    grep -E "^  $key: " "$out" | grep -q '# fitted: stage 1 to load-l1' || fail "core.$key is not fitted in stage 1"
done
grep -E '^  latency: ' "$out" | head -1 | grep -q '# measured: lat-l1' || fail "l1.latency is not measured from lat-l1"
# no DRAM figures: the memory path is not measured, and says so
awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m && /^  latency:/' "$out" | grep -q 'not measured: from .*no figure of this host determined it' ||
    fail "memory.latency without a figure is not marked 'not measured'"
bad=$(awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m && /^  (latency|read_bandwidth|combined_bandwidth):/ && !/not measured: /' "$out")
[[ -z $bad ]] || fail "a memory timing without a figure is not marked 'not measured': $bad"

cs run --machine "$out" -s 1MB -q
[[ $RC -eq 0 ]] || fail "run --machine <fitted file>: exit $RC"
# check of the fitted file: in the Release run (the Sanitize build, 10x slower, runs the fit
# above, and check's code path in check.sh and bundled_check.sh)
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    cs check "$out" -q --jobs 2
    [[ $RC -eq 0 || $RC -eq 1 ]] || fail "check <fitted file>: exit $RC"
    grep -q '^summary: [0-9]* figures' "$OUT" || fail "check <fitted file>: no summary"
    grep -q '^lat-l1 ' "$OUT" || fail "check <fitted file>: lat-l1 is not checked"
fi

# one non-temporal store width (Zen 3: movnti): its issue rate is not told from the
# write path's, and is not passed off as measured
grep -E '^  nt_store_cycles: ' "$out" | grep -q '# not measured: ' || fail "core.nt_store_cycles with one NT width is not 'not measured'"

# two widths (a Zen 5 guest: movnti and avx512_nt): the issue rate is fitted in
# stage 7 with the write path, and both figures come back
fx5="$CLEARSIM_SOURCE_DIR/tests/fixtures/measure/zen5-guest-figures.yaml"
out5="$TMPD/fitted5.yaml"
cs detect --measure --figures "$fx5" -o "$out5" -q
[[ $RC -eq 0 ]] || fail "detect --measure --figures (zen5): exit $RC"
grep -E '^  nt_store_cycles: ' "$out5" | grep -q '# fitted: stage 7 to ntstore-l1, ntstore-l1-wide' ||
    fail "core.nt_store_cycles is not fitted in stage 7 with two NT widths"
# an interval wider than the key's range is no interval: "?", and it says so
# (a fitted key stays within 1/16..16 x its start, so an interval of 1000 x its value is
# wider than its range)
huge=""
if command -v python3 >/dev/null 2>&1; then
    huge=$(python3 - "$out5" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"\s+[a-z_0-9]+: ([0-9.eE+-]+)[A-Za-z/]*\s+# fitted: .*\(\+- ([0-9.eE+-]+)", line)
    if m and float(m.group(2)) > 1000 * abs(float(m.group(1))):
        print(line.strip())
PY
    )
else
    echo "note: python3 is not installed: the interval check is left out (bash .ci/setup installs it)" >&2
fi
[[ -z $huge ]] || fail "a fitted key shows an interval wider than its range as a number: $huge"
unsaid=$(grep -F '(+- ?)' "$out5" | grep -v -e 'these figures barely move it' -e 'at the bound of its range' || true)
[[ -z $unsaid ]] || fail "a fitted key without an interval does not say why: $unsaid"
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    cs check "$out5" -q --jobs 2
    for id in ntstore-l1 ntstore-l1-wide; do
        line=$(grep "^$id " "$OUT") || fail "check (zen5): $id is not checked"
        [[ $line != *"<- off"* ]] || fail "check (zen5): $id is not reproduced: $line"
    done
fi

# an L3 figure that reads like an L2 hit (a tenant's burst, a share smaller than it looked):
# the fit stops l3.latency at its floor, l2.latency + 1 cycle, so that the file still loads,
# and says it is at the bound (the Release run: the Sanitize build's fit of the zen5 fixture
# above runs the same code)
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    mkdir -p "$TMPD/l3fast"
    fx3="$TMPD/l3fast/zen5-guest-figures.yaml" # the name the figures file says
    sed -E -e '/id: lat-sweep-2MiB,/s/ns_per_load: [0-9.]+/ns_per_load: 3.0/' \
        -e '/id: load-l3,/s/gbps: [0-9.]+/gbps: 172.1/' -e '/id: store-l3,/s/gbps: [0-9.]+/gbps: 172.1/' "$fx5" >"$fx3"
    grep -q 'lat-sweep-2MiB.*ns_per_load: 3.0,' "$fx3" || fail "the L3-like-L2 fixture was not made"
    out3="$TMPD/fitted3.yaml"
    cs detect --measure --figures "$fx3" -o "$out3" -q
    [[ $RC -eq 0 ]] || fail "detect --measure --figures (an L3 as fast as the L2): exit $RC: $(head -c 300 "$ERR")"
    l2=$(awk '/^l2:/{m=1; next} /^[a-z]/{m=0} m && /^  latency:/{sub(/cycles/, "", $2); print $2}' "$out3")
    l3line=$(awk '/^l3:/{m=1; next} /^[a-z]/{m=0} m && /^  latency:/' "$out3")
    l3=$(awk '{sub(/cycles/, "", $2); print $2}' <<<"$l3line")
    awk -v a="$l3" -v b="$l2" 'BEGIN { exit !(a > b) }' || fail "l3.latency $l3 is not above l2.latency $l2"
    [[ $l3line == *"at the bound of its range"* ]] || fail "l3.latency at its floor does not say so: $l3line"
fi

# core.rfo_window from a narrow and a wide copy (8 MiB here, so that the model runs them in
# seconds; detect measures them at DRAM scale): a narrow copy as fast as the wide one picks
# fill_buffers, one at 0.62 of it store_buffer, each with both model ratios in its comment
# (measure_rfo_pick's margin is tested in test_bench). The Release run only: the fit is slow
# under the Sanitize build.
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    for want in fill_buffers:29.5 store_buffer:18.6; do
        mkdir -p "$TMPD/rfo"
        fxr="$TMPD/rfo/zen5-guest-figures.yaml"
        sed -E "/id: store-l3,/a\\    - {id: copy-dram, workload: copy, function: copy64, size: 8MiB, loops: 1, gbps: 30.0, source: \"a test figure\"}\\n    - {id: copy-dram-narrow, workload: copy, function: copy8, size: 8MiB, loops: 1, gbps: ${want#*:}, source: \"a test figure\"}" "$fx5" >"$fxr"
        grep -q "id: copy-dram-narrow.*gbps: ${want#*:}," "$fxr" || fail "the copy fixture was not made"
        cs detect --measure --figures "$fxr" -o "$TMPD/rfo/out.yaml" -q
        [[ $RC -eq 0 ]] || fail "detect --measure --figures (copies): exit $RC: $(head -c 300 "$ERR")"
        line=$(grep -E '^  rfo_window: ' "$TMPD/rfo/out.yaml")
        [[ $line == "  rfo_window: ${want%%:*} "*"# measured: copy-dram-narrow / copy-dram"*"with store_buffer"*"with fill_buffers"* ]] ||
            fail "copies at ${want#*:} / 30.0: want ${want%%:*}, got: $line"
    done
fi

# the write path at the cases' footprint (1 GiB: non-temporal stores of data and of zeros, and
# CLZERO): with those, they fit memory.write_bandwidth and the zero-line shares, the L1-size
# non-temporal and CLZERO figures leave the fit (kept for check) and give the issue costs as
# measured; their lines come from detect --measure on a Zen 5 guest (data/native/
# zen5-guest-20261206d.yaml)
mkdir -p "$TMPD/dram"
fxd="$TMPD/dram/zen5-guest-figures.yaml"
awk '{ print }
/id: fence-nt-2KiB,/ {
  i = $0; sub(/-.*/, "", i)
  print i "- {id: ntstore-dram-data, workload: ntstore, function: avx512_nt, size: 1GiB, fill: 0x5a, loops: 1, gbps: 24.24, source: \"measured 2026-12-06T23:50Z\"}"
  print i "- {id: ntstore-dram, workload: ntstore, function: avx512_nt, size: 1GiB, loops: 1, gbps: 26.05, source: \"measured 2026-12-06T23:50Z\"}"
  print i "- {id: store-dram-data, workload: store, function: avx512, size: 1GiB, fill: 0x5a, loops: 1, gbps: 13.0, source: \"a test figure\"}"
  print i "- {id: store-dram-zero, workload: store, function: avx512, size: 1GiB, loops: 1, gbps: 20.0, source: \"a test figure\"}"
}
/id: fence-lz-4KiB,/ {
  i = $0; sub(/-.*/, "", i)
  print i "- {id: linezero-dram, workload: linezero, function: clzero, size: 1GiB, loops: 1, gbps: 40.52, source: \"measured 2026-12-06T23:50Z\"}"
}' "$fx5" >"$fxd"
[[ $(grep -c 'id: ntstore-dram\|id: linezero-dram\|id: store-dram-' "$fxd") -eq 5 ]] || fail "the DRAM-scale write fixture was not made"
outd="$TMPD/fitted-dram.yaml"
cs detect --measure --figures "$fxd" -o "$outd" -q
[[ $RC -eq 0 ]] || fail "detect --measure --figures (DRAM-scale writes): exit $RC: $(head -c 300 "$ERR")"
awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m' "$outd" | grep -E "^  write_bandwidth: " |
    grep -q '# fitted: stage 7 to fence-nt-256B, fence-nt-2KiB, ntstore-dram-data, ntstore-dram ' ||
    fail "memory.write_bandwidth is not fitted to the DRAM-scale stores"
# a line of zeros' share: the two fills' ratio (24.24 / 26.05), not fitted beside the link
awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m' "$outd" | grep -E "^  zero_data_fraction: 0.9305 " |
    grep -q '# measured: ntstore-dram-data / ntstore-dram (24.24 / 26.05 GiB/s)' ||
    fail "memory.zero_data_fraction is not the DRAM-scale fills' ratio: $(grep zero_data_fraction "$outd")"
# a written-back line of zeros: the fills of data (13.0) and of zeros (20.0) with the widest
# temporal store, each line read and written back on one bus: 2 x 13.0 / 20.0 - 1 = 0.3
awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m' "$outd" | grep -E "^  zero_writeback_fraction: 0.3 " |
    grep -q '# measured: 2 x store-dram-data / store-dram-zero - 1 (13.00 / 20.00 GiB/s)' ||
    fail "memory.zero_writeback_fraction is not the fills' share: $(grep zero_writeback_fraction "$outd")"
awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m' "$outd" | grep -E '^  zero_write_fraction: ' |
    grep -q '# fitted: stage 8 to linezero-dram, ' || fail "memory.zero_write_fraction is not fitted to linezero-dram"
grep -E '^  nt_store_cycles: ' "$outd" | grep -q '# measured: ntstore-l1 (movnti at L1 size)' ||
    fail "core.nt_store_cycles is not measured from ntstore-l1 when the DRAM-scale stores fit the write path"
grep -E '^  line_zero_cycles: ' "$outd" | grep -q '# measured: linezero-l1 (clzero at L1 size)' ||
    fail "core.line_zero_cycles is not measured from linezero-l1"
for id in ntstore-l1 ntstore-l1-wide linezero-l1 ntstore-dram-data ntstore-dram linezero-dram store-dram-data store-dram-zero; do
    grep -q "id: $id," "$outd" || fail "the fitted file lost the figure $id"
done
# the data stores set the link: 24.24 GiB/s at the figures' clock, within 15%
ghz=$(awk '/^core:/{m=1; next} /^[a-z]/{m=0} m && /^  freq:/{sub(/GHz/, "", $2); print $2}' "$outd")
bpc=$(awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m && /^  write_bandwidth:/{sub(/B\/cycle/, "", $2); print $2}' "$outd")
awk -v b="$bpc" -v g="$ghz" 'BEGIN { r = b * g * 1e9 / 2^30 / 24.24; exit !(r > 0.85 && r < 1.15) }' ||
    fail "memory.write_bandwidth $bpc B/cycle at $ghz GHz is not ntstore-dram-data's 24.24 GiB/s"

# A Zen 3 guest's figures as detect measured them (data/native/zen3-guest-20261207b.yaml, its
# base zen3-epyc-7j13 with 8 write-combining buffers): 32-byte NT stores of data at 19.31 and of
# zeros at 43.04 GiB/s over 1 GiB, no host miss. From 8 buffers every stream was bound by them,
# and the fit ran the link to a bound of its range (0.41 or 104 B a cycle, data -94% or +58%).
# Now the buffers start at the lines in flight the zeros' stream needs for the drain's time and
# the zeros' share is the fills' ratio: the link is fitted to the data stream. Release only (a
# 40 s fit).
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    mkdir -p "$TMPD/z3"
    outz="$TMPD/z3/zen3-refit.yaml"
    cs detect --measure --figures "$CLEARSIM_SOURCE_DIR/data/native/zen3-guest-20261207b.yaml" \
        --name zen3-refit -o "$outz" -q
    [[ $RC -eq 0 ]] || fail "detect --measure --figures (Zen 3 guest): exit $RC: $(head -c 300 "$ERR")"
    line=$(awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m' "$outz" | grep -E '^  write_bandwidth: ' || true)
    [[ -n $line ]] || fail "the Zen 3 refit has no memory.write_bandwidth"
    bpc=$(sed -E 's/^  write_bandwidth: ([0-9.]+)B\/cycle.*/\1/' <<<"$line")
    python3 -c "import sys; sys.exit(0 if 5.53 <= float(sys.argv[1]) <= 7.48 else 1)" "$bpc" ||
        fail "the Zen 3 link is not the data stream's 6.51 B a cycle within 15%: $line"
    grep -E '^  zero_data_fraction: 0.4487 ' "$outz" | grep -q '# measured: ntstore-dram-data / ntstore-dram' ||
        fail "the Zen 3 zeros' share is not the fills' ratio: $(grep zero_data_fraction "$outz")"
fi

# a guest whose host maps its memory in 4 KiB pages: the DRAM chase on 2 MiB pages (lat-dram,
# 128 MiB) at least 1.3 x the sweep's largest point inside the 16 MiB its 4 KiB TLB entries
# reach (lat-sweep-15552KiB, 141.2 ns) and on 4 KiB pages (lat-walk) at most 1.2 x lat-dram:
# memory.latency comes from that point, tlb.walk is not measured and says why; with lat-walk
# past 1.2 x lat-dram (a host with large pages) the two chases fit as before. The figures are
# the Zen 5 guest's of 2026-12-07 (data/native/zen5-guest-20261207.yaml). The Sanitize build
# takes the host-pages branch only: the other fits the two 128 MiB chases, two minutes there,
# through the code the zen5 fixture's fit above already ran.
walks="258.7 330"
[[ "${CLEARSIM_SANITIZE:-0}" != 1 ]] || walks="258.7"
for walk in $walks; do
    mkdir -p "$TMPD/hp$walk"
    fxh="$TMPD/hp$walk/zen5-guest-figures.yaml"
    awk -v w="$walk" '{ print }
    /id: lat-sweep-dram,/ {
      i = $0; sub(/-.*/, "", i)
      print i "- {id: lat-dram, workload: latency, function: chase, size: 128MiB, loops: 1, ns_per_load: 272.5, source: \"measured 2026-12-07T00:00Z\"}"
      print i "- {id: lat-walk, workload: latency, function: chase, size: 128MiB, page: 4KiB, loops: 1, ns_per_load: " w ", source: \"measured\"}"
    }' "$fx5" >"$fxh"
    [[ $(grep -c 'id: lat-dram,\|id: lat-walk,' "$fxh") -eq 2 ]] || fail "the host-pages fixture was not made"
    outh="$TMPD/hp$walk/out.yaml"
    cs detect --measure --figures "$fxh" -o "$outh" -q
    [[ $RC -eq 0 ]] || fail "detect --measure --figures (host pages, lat-walk $walk): exit $RC: $(head -c 300 "$ERR")"
    lat=$(awk '/^memory:/{m=1; next} /^[a-z]/{m=0} m && /^  latency:/' "$outh")
    walkline=$(awk '/^tlb:/{m=1; next} /^[a-z]/{m=0} m && /^  walk:/' "$outh")
    if [[ $walk == 258.7 ]]; then
        [[ $lat == *"# fitted: stage 5 to lat-sweep-15552KiB "* ]] ||
            fail "memory.latency on a guest with the host's 4 KiB pages is not fitted inside the TLB's reach: $lat"
        [[ $walkline == *"not measured: "*"maps its memory in 4 KiB pages"* ]] ||
            fail "tlb.walk on such a guest does not say why it is not measured: $walkline"
        ns=$(sed -E 's/^ *latency: ([0-9.]+)ns.*/\1/' <<<"$lat")
        awk -v n="$ns" 'BEGIN { exit !(n > 100 && n < 160) }' || fail "memory.latency $ns ns is not near 141 ns"
        grep -q 'id: lat-dram,' "$outh" && grep -q 'id: lat-walk,' "$outh" || fail "the chases left the file"
    else
        [[ $lat == *"# fitted: stage 5 to lat-dram, lat-walk "* ]] ||
            fail "memory.latency with lat-walk 1.21 x lat-dram is not fitted to the two chases: $lat"
    fi
done

# A guest whose stores pay its host's 4 KiB pages' TLB miss (figures of the Zen 5 guest,
# data/native/zen5-guest-20261207h.yaml's run at 05:09 UTC): the zero stores over 1 GiB at
# 21.09 GiB/s against 61.13 with a load ahead. The twins fit the write path, the miss is
# ntstore-dram's time a page less the model's issue time, and a line of zeros costs the
# twins' ratio. At 4% slower than the twin (threshold - 1 of HOSTMISS_NOISE) there is no
# miss, and the plain figures fit it. With the miss, a fill of data under the read and write
# links together sets the bus to twice it, and zero write-backs cost the twins' share. The
# figures' footprint is 64 MiB here (1 GiB on the host), so that each fit takes seconds;
# Release only: the Sanitize build would take minutes. The third pair is slower than its
# twin by more than the noise but faster than the model's issue time of the stores (under
# 14 ns a page): no time is left for a miss, and nothing may act as if there were one (the
# twins fitting the write path, tlb.walk kept for it) while no miss is written.
if [[ "${CLEARSIM_SANITIZE:-0}" != 1 ]]; then
    for pair in 21.09:61.13 58.78:61.13 400:440; do
        plain=${pair%:*} twin=${pair#*:}
        mkdir -p "$TMPD/hm$plain"
        fxm="$TMPD/hm$plain/zen5-guest-figures.yaml"
        {
            cat "$fx5"
            echo "    - {id: ntstore-dram-data, workload: ntstore, function: avx512_nt, size: 64MiB, fill: 0x5a, loops: 1, gbps: 19.04, source: \"measured 2026-12-07T05:09Z\"}"
            echo "    - {id: ntstore-dram, workload: ntstore, function: avx512_nt, size: 64MiB, loops: 1, gbps: $plain, source: \"measured 2026-12-07T05:09Z\"}"
            echo "    - {id: ntstore-dram-data-ahead, workload: ntstore, function: avx512_nt_ahead, size: 64MiB, fill: 0x5a, loops: 1, gbps: 34.75, source: \"measured 2026-12-07T05:09Z\"}"
            echo "    - {id: ntstore-dram-ahead, workload: ntstore, function: avx512_nt_ahead, size: 64MiB, loops: 1, gbps: $twin, source: \"measured 2026-12-07T05:09Z\"}"
            echo "    - {id: store-dram-data, workload: store, function: avx512, size: 64MiB, fill: 0x5a, loops: 1, gbps: 23.51, source: \"data/native/zen5-guest-2026-12-07T1134-fill-bus.csv pass 0\"}"
            echo "    - {id: load-dram, workload: load, function: load64, size: 64MiB, loops: 1, gbps: 32.45, source: \"data/native/zen5-guest-2026-12-07T1134-fill-bus.csv pass 0\"}"
            echo "    - {id: copy-dram, workload: copy, function: copy64, size: 64MiB, loops: 1, gbps: 12.0, source: \"a test figure\"}"
            # the chases of the 12:54 run (data/native/zen5-guest-20261207i.yaml), inside the
            # host TLB's reach; with the miss they walk alike in the model
            [[ $plain == 58.78 ]] || {
                echo "    - {id: lat-dram, workload: latency, function: chase, size: 32MiB, loops: 1, ns_per_load: 172, source: \"measured 2026-12-07T12:54Z\"}"
                echo "    - {id: lat-walk, workload: latency, function: chase, size: 32MiB, page: 4KiB, loops: 1, ns_per_load: 170.2, source: \"measured 2026-12-07T12:54Z\"}"
            }
            # CLZERO and its twin (zen5-guest-20261207j.yaml's plain figure at 14:09; the
            # twin faster than linezero-l1's 65 GiB/s, as zen5-guest-20261207k.yaml's was)
            echo "    - {id: linezero-dram, workload: linezero, function: clzero, size: 64MiB, loops: 1, gbps: 39.24, source: \"measured 2026-12-07T14:09Z\"}"
            echo "    - {id: linezero-dram-ahead, workload: linezero, function: clzero_ahead, size: 64MiB, loops: 1, gbps: 70.0, source: \"a test figure\"}"
        } >"$fxm"
        outm="$TMPD/hm$plain/fitted.yaml"
        cs detect --measure --figures "$fxm" -o "$outm" -q
        [[ $RC -eq 0 ]] || fail "detect --measure --figures (host miss, $plain): exit $RC: $(head -c 300 "$ERR")"
        wb=$(grep -E '^  write_bandwidth: ' "$outm")
        hp=$(grep -E '^  host_page: ' "$outm")
        if [[ $plain == 21.09 ]]; then
            [[ $hp == *"host_page: 4KiB "*"# measured: ntstore-dram 21.09 GiB/s against ntstore-dram-ahead 61.13"* ]] ||
                fail "tlb.host_page is not measured: $hp"
            [[ $wb == *"ntstore-dram-data-ahead, ntstore-dram-ahead"* && $wb != *"ntstore-dram-data,"* ]] ||
                fail "the twins do not fit the write path: $wb"
            grep -E '^  zero_data_fraction: 0.5685 ' "$outm" | grep -q '# measured: ntstore-dram-data-ahead / ntstore-dram-ahead' ||
                fail "zero_data_fraction is not the twins' ratio: $(grep zero_data_fraction "$outm")"
            # 4096 B / 21.09 GiB/s = 180.9 ns a page, less the model's issue time
            nl=$(grep -E '^    nt_line: ' "$outm")
            [[ $nl == *"# measured: ntstore-dram's 180.9 ns a 4 KiB page less the model's issue time of it"* ]] ||
                fail "tlb.host_miss.nt_line: $nl"
            python3 - "$nl" <<'PY' || fail "nt_line is not the page's time less the issue time: $nl"
import re, sys
m = re.search(r"nt_line: ([0-9.]+)ns .* 180\.9 ns .* of it, ([0-9.]+) ns", sys.argv[1])
assert m and abs(float(m.group(1)) + float(m.group(2)) - 180.9) < 0.11, sys.argv[1]
PY
            # lat-dram alone sets memory.latency; tlb.walk is the base's and says why
            grep -E '^  latency: [0-9.]+ns ' "$outm" | grep -q '# fitted: stage 5 to lat-dram (' ||
                fail "memory.latency is not fitted to lat-dram alone: $(grep -E '^  latency: [0-9.]+ns' "$outm")"
            wl=$(awk '/^tlb:/{m=1; next} /^[a-z]/{m=0} m && /^  walk:/' "$outm")
            [[ $wl == *"walk: 28cycles "*"# same silicon: from zen5-epyc-9005; "*"lat-walk 170.2 ns against lat-dram 172.0 ns does not set it"* ]] ||
                fail "tlb.walk on a guest with the host's miss is not the base's: $wl"
            # CLZERO's share of the miss: 4096 B at 39.24 GiB/s, 97.2 ns, less its issue time at
            # the twin's 70.0 (faster than linezero-l1's 65), 54.5 ns; the twin's rate gives
            # CLZERO's cost a line, fits the line-zeroing path, and against the data twin
            # (34.75 GiB/s) a line-zeroing command's share of a data line, 0.4964
            lzl=$(grep -E '^    line_zero: ' "$outm")
            [[ $lzl == *"line_zero: 42.7"*"ns "*"# measured: linezero-dram's 97.2 ns a 4 KiB page less its issue time at linezero-dram-ahead's rate, 54.5 ns"* ]] ||
                fail "tlb.host_miss.line_zero is not CLZERO's page less its issue time: $lzl"
            grep -E '^  line_zero_cycles: ' "$outm" | grep -q '# measured: linezero-dram-ahead (clzero_ahead over the cases. footprint) [0-9.]* B a cycle, over linezero-l1.s ' ||
                fail "core.line_zero_cycles is not the faster twin's: $(grep -E '^  line_zero_cycles: ' "$outm")"
            grep -E '^  buffers: ' "$outm" | grep -q 'fitted: stage 8 to linezero-dram-ahead, ' ||
                fail "the CLZERO twin does not fit the line-zeroing path: $(grep -E '^  buffers: ' "$outm")"
            grep -E '^  zero_write_fraction: 0.4964 ' "$outm" | grep -q '# measured: ntstore-dram-data-ahead / linezero-dram-ahead' ||
                fail "zero_write_fraction is not the twins' ratio: $(grep -E '^  zero_write_fraction: ' "$outm")"
            grep -E '^    nt_narrow: ' "$outm" | grep -q '# same silicon: nt_line x zen5-epyc-9005' ||
                fail "tlb.host_miss.nt_narrow is not in the base's proportion"
            # the fill of data at 23.51 GiB/s, under the links together: the bus is twice it,
            # and a written-back line of zeros costs the twins' share
            bus=$(grep -E '^  combined_bandwidth: ' "$outm")
            [[ $bus == *"# measured: store-dram-data x 2 (a read and a write-back a line)"* ]] ||
                fail "the bus is not twice the fill: $bus"
            ghzm=$(awk '/^core:/{m=1; next} /^[a-z]/{m=0} m && /^  freq:/{sub(/GHz/, "", $2); print $2}' "$outm")
            awk -v b="$(sed -E 's/^ *combined_bandwidth: ([0-9.]+).*/\1/' <<<"$bus")" -v g="$ghzm" \
                'BEGIN { r = b * g * 1e9 / 2^30 / 47.02; exit !(r > 0.999 && r < 1.001) }' ||
                fail "the bus is not 2 x 23.51 GiB/s: $bus"
            grep -E '^  zero_writeback_fraction: 0.5685 ' "$outm" | grep -q '# measured: as zero_data_fraction' ||
                fail "zero_writeback_fraction is not the twins' share: $(grep zero_writeback "$outm")"
        else
            [[ -z $hp || $hp == *"host_page: 0 "* ]] || fail "a miss within the noise set tlb.host_page: $hp"
            ! grep -E '^  walk: ' "$outm" | grep -q 'does not set it' ||
                fail "without a miss tlb.walk was kept for one: $(grep -E '^  walk: ' "$outm")"
            [[ $wb == *"ntstore-dram-data, ntstore-dram"* && $wb != *"-ahead"* ]] ||
                fail "without a miss the plain figures do not fit the write path: $wb"
            # and the plain CLZERO figure the line-zeroing path, with no host miss of its own
            zw=$(grep -E '^  zero_write_fraction: ' "$outm")
            [[ $zw == *"fitted: stage 8 to linezero-dram, "* ]] ||
                fail "without a miss linezero-dram does not fit the line-zeroing path: $zw"
            ! grep -E '^    line_zero: ' "$outm" | grep -q '# measured:' ||
                fail "a miss within the noise measured tlb.host_miss.line_zero: $(grep -E '^    line_zero: ' "$outm")"
        fi
    done
    # the same host with a fill of zeros beside the fill of data (detect since 2026-12-07): the
    # written-back zeros' share is the fills', 2 x 23.51 / 31.0 - 1 = 0.5168 (the Zen 5 guest's
    # fill_bus.sh ran zeros at 28-33 GiB/s), written once, not the twins' 0.5685
    fxz="$TMPD/hm21.09/zf/zen5-guest-figures.yaml"
    mkdir -p "$(dirname "$fxz")"
    {
        cat "$TMPD/hm21.09/zen5-guest-figures.yaml"
        echo "    - {id: store-dram-zero, workload: store, function: avx512, size: 64MiB, loops: 1, gbps: 31.0, source: \"a test figure\"}"
    } >"$fxz"
    cs detect --measure --figures "$fxz" -o "$TMPD/hm21.09/zf/fitted.yaml" -q
    [[ $RC -eq 0 ]] || fail "detect --measure --figures (host miss, both fills): exit $RC: $(head -c 300 "$ERR")"
    zwb=$(grep -E '^  zero_writeback_fraction: ' "$TMPD/hm21.09/zf/fitted.yaml")
    [[ $(wc -l <<<"$zwb") -eq 1 && $zwb == *"zero_writeback_fraction: 0.5168 "*"# measured: 2 x store-dram-data / store-dram-zero - 1 (23.51 / 31.00 GiB/s)"* ]] ||
        fail "with both fills and the host's miss, zero_writeback_fraction is not the fills' share: $zwb"
fi

expect_error 2 "--measure" detect --figures "$fx"
expect_error 1 "nosuch" detect --measure --figures "$TMPD/nosuch.yaml" -o "$TMPD/x.yaml"
[[ ! -e "$TMPD/x.yaml" ]] || fail "a failed detect --measure left its output file"
echo "PASS"
