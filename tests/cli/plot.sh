#!/usr/bin/env bash
# plot.sh - clearsim plot renders every kind to a non-empty PNG (checked by its
# signature) or SVG, and fails with one clear line on a bad csv, a missing
# column, a missing gnuplot or a bad output name. Skips when gnuplot is not
# installed (bash .ci/setup installs gnuplot-nox).
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is not installed (Debian: gnuplot-nox)"

is_png() { # the 8-byte PNG signature, and more than a header
    [[ -s "$1" ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] &&
        [[ $(wc -c <"$1") -gt 1000 ]]
}

# throughput, from a small sweep (one point has an error and is left out)
cs sweep --machine zen3-epyc-7j13 --sweep function=rep_stosb,movnti,stp \
    --sweep size=4KB..256KB:x4 -q -o "$TMPD/sweep.csv" --keep-going
[[ $RC -eq 1 ]] || fail "sweep for the plot: exit $RC (the stp points fail)"
cs plot --input "$TMPD/sweep.csv" --output "$TMPD/thr.png" --title "zen3: memset"
[[ $RC -eq 0 ]] || fail "plot throughput: exit $RC"
is_png "$TMPD/thr.png" || fail "plot throughput: not a PNG"
[[ ! -s "$OUT" && ! -s "$ERR" ]] || fail "plot printed something on success"
cs plot --input "$TMPD/sweep.csv" --output "$TMPD/thr.svg"
[[ $RC -eq 0 ]] || fail "plot svg: exit $RC"
grep -q '<svg' "$TMPD/thr.svg" || fail "plot svg: not an SVG"

# machines, from a sweep over machines
cs sweep --sweep machine=zen3-epyc-7j13,graviton3 -s 256KB -q -o "$TMPD/machines.csv"
cs plot --kind machines -i "$TMPD/machines.csv" -o "$TMPD/machines.png"
[[ $RC -eq 0 ]] || fail "plot machines: exit $RC"
is_png "$TMPD/machines.png" || fail "plot machines: not a PNG"

# tuning: the columns of 'clearsim tune --format csv' (a hand-made curve)
cat >"$TMPD/tune.csv" <<'EOF'
machine,set,size_bytes,weight,strategy,function,reuse_bytes,buffer_bytes,clear_seconds,refetch_seconds,total_seconds,bytes_per_sec,extrapolated,error_bound
m,,4096,1,temporal,rep_stosb,0,4096,1e-6,0,1e-6,4096000000,false,0
m,,4096,1,nontemporal,movnti,0,4096,2e-6,0,2e-6,2048000000,false,0
m,,65536,1,temporal,rep_stosb,0,65536,1e-5,0,1e-5,6553600000,false,0
m,,65536,1,nontemporal,movnti,0,65536,5e-6,0,5e-6,13107200000,false,0
EOF
cs plot --kind tuning -i "$TMPD/tune.csv" -o "$TMPD/tune.png"
[[ $RC -eq 0 ]] || fail "plot tuning: exit $RC"
is_png "$TMPD/tune.png" || fail "plot tuning: not a PNG"

# tuning with tune's policy column: the bands reach gnuplot as variables (a stand-in
# gnuplot records its arguments), and a real one draws them
cat >"$TMPD/tunep.csv" <<'EOF'
machine,set,size_bytes,weight,strategy,function,reuse_bytes,buffer_bytes,clear_seconds,refetch_seconds,total_seconds,bytes_per_sec,extrapolated,error_bound,policy
m,,4096,1,temporal,rep_stosb,0,4096,1e-6,0,1e-6,4096000000,false,0,true
m,,4096,1,nontemporal,movnti,0,4096,2e-6,0,2e-6,2048000000,false,0,false
m,,65536,1,temporal,rep_stosb,0,65536,1e-5,0,1e-5,6553600000,false,0,false
m,,65536,1,nontemporal,movnti,0,65536,5e-6,0,5e-6,13107200000,false,0,true
m,,1048576,1,temporal,rep_stosb,0,1048576,1e-4,0,1e-4,10485760000,false,0,false
m,,1048576,1,nontemporal,movnti,0,1048576,8e-5,0,8e-5,13107200000,false,0,true
EOF
cat >"$TMPD/fake-gnuplot" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$TMPD/gp-args"
exit 3
EOF
chmod +x "$TMPD/fake-gnuplot"
CLEARSIM_GNUPLOT="$TMPD/fake-gnuplot" cs plot --kind tuning -i "$TMPD/tunep.csv" -o "$TMPD/x.png"
[[ $RC -eq 1 ]] || fail "plot with a failing gnuplot: exit $RC"
grep -q "nbands=2; bandlo='4096 65536'; bandhi='65536 1048576'; bandname='temporal nontemporal';" \
    "$TMPD/gp-args" || fail "plot tuning: the policy bands are not given to gnuplot: $(cat "$TMPD/gp-args")"
cs plot --kind tuning -i "$TMPD/tunep.csv" -o "$TMPD/tunep.png"
[[ $RC -eq 0 ]] || fail "plot tuning with bands: exit $RC"
is_png "$TMPD/tunep.png" || fail "plot tuning with bands: not a PNG"
sed 's/,true$/,maybe/' "$TMPD/tunep.csv" >"$TMPD/badp.csv"
expect_error 1 "badp.csv:2: column policy" plot --kind tuning -i "$TMPD/badp.csv" -o "$TMPD/x.png"

# predicted against native: the documented crosscheck columns
cat >"$TMPD/cc.csv" <<'EOF'
function,size_bytes,predicted_bytes_per_sec,measured_bytes_per_sec
rep_stosb,1048576,20000000000,18000000000
movnti,1048576,15000000000,16500000000
EOF
cs plot --kind predicted-vs-native -i "$TMPD/cc.csv" -o "$TMPD/pvn.png"
[[ $RC -eq 0 ]] || fail "plot predicted-vs-native: exit $RC"
is_png "$TMPD/pvn.png" || fail "plot predicted-vs-native: not a PNG"

# errors
printf 'function,size_bytes,bytes_per_sec\nrep_stosb,4096,1e9\nmovnti,"4096,1e9\n' >"$TMPD/bad.csv"
expect_error 1 "bad.csv:3" plot -i "$TMPD/bad.csv" -o "$TMPD/x.png"
printf 'function,size_bytes,bytes_per_sec\nrep_stosb,4096\n' >"$TMPD/short.csv"
expect_error 1 "short.csv:2" plot -i "$TMPD/short.csv" -o "$TMPD/x.png"
printf 'function,size_bytes,bytes_per_sec\nrep_stosb,4096,fast\n' >"$TMPD/nan.csv"
expect_error 1 "nan.csv:2" plot -i "$TMPD/nan.csv" -o "$TMPD/x.png"
expect_error 1 "no 'measured_bytes_per_sec' column" plot --kind predicted-vs-native \
    -i "$TMPD/sweep.csv" -o "$TMPD/x.png"
expect_error 1 "no-such.csv" plot -i "$TMPD/no-such.csv" -o "$TMPD/x.png"
[[ ! -e "$TMPD/x.png" ]] || fail "a failed plot left an output file"
expect_error 2 ".png or .svg" plot -i "$TMPD/sweep.csv" -o "$TMPD/x.jpg"
expect_error 2 "--kind" plot --kind pie -i "$TMPD/sweep.csv" -o "$TMPD/x.png"
expect_error 2 "--input" plot -o "$TMPD/x.png"
CLEARSIM_GNUPLOT="$TMPD/no-gnuplot" expect_error 1 "gnuplot not found" \
    plot -i "$TMPD/sweep.csv" -o "$TMPD/x.png"
echo "PASS"
