#!/usr/bin/env bash
# bench.sh - `clearsim bench mem memset|mmap` takes the published perf command lines as they
# are written (the issue's and ../shared/reference/'s, pasted below), with perf's meanings
# (-f demand|populate for mmap, perf's function names for memset, -f all|help) and prints
# perf's layout; the same works in `run` (-f all).
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
need_python

# perf bench's command lines as published, after "perf" (each with --machine added)
published=(
    "bench mem mmap -p 2MB -f demand -s 64GB -l 10 --machine zen5-epyc-9005"
    "bench mem memset -k 4KB -s 4GB -f x86-64-stosq --machine zen3-epyc-7j13"
    # ../shared/reference/calibration-milan.md: the demand-fault workload, $PG = 4KB, 2MB, 1GB
    "bench mem map -p 4KB -f demand -s 64GB -l 5 --machine zen3-epyc-7j13"
    "bench mem map -p 2MB -f demand -s 64GB -l 5 --machine zen3-epyc-7j13"
    "bench mem map -p 1GB -f demand -s 64GB -l 5 --machine zen3-epyc-7j13"
)
for c in "${published[@]}"; do
    # 64 GiB of 4 KiB faults simulate for about a minute (per-fault statistics, issue 22):
    # the Release run takes it, the Sanitize build (10x slower) does not
    if [[ "${CLEARSIM_SANITIZE:-0}" == 1 && "$c" == *"-p 4KB"* ]]; then
        continue
    fi
    read -ra argv <<<"$c"
    cs "${argv[@]}" -q
    [[ $RC -eq 0 ]] || fail "clearsim $c: exit $RC"
    grep -q "^# Running 'mem/m" "$OUT" || fail "clearsim $c: not perf's layout"
    grep -Eq '^ +[0-9]+\.[0-9]{6} GB/sec$' "$OUT" || fail "clearsim $c: no GB/sec line"
done

# the issue's two, as written
cs bench mem mmap --machine zen5-epyc-9005 -p 2MB -f demand -s 64GB -l 10 -q
[[ $RC -eq 0 ]] || fail "bench mem mmap: exit $RC"
grep -q "^# function 'demand' " "$OUT" || fail "bench mem mmap: -f demand is not perf's function"
grep -q "^# Copying 64GB bytes ...$" "$OUT" || fail "bench mem mmap: no '# Copying 64GB bytes ...'"
grep -q "^# machine 'zen5-epyc-9005' (simulated)$" "$OUT" || fail "bench: no machine line"
cs bench mem memset --machine zen3-epyc-7j13 -k 4KB -s 4GB -f x86-64-stosq -q
[[ $RC -eq 0 ]] || fail "bench mem memset: exit $RC"
grep -q "^# function 'x86-64-stosq' (rep stosq" "$OUT" || fail "bench mem memset: perf's name not kept"
# it predicts what run predicts for the same point
bench_gbs=$(awk '/GB\/sec/ {print $1}' "$OUT")
cs run --machine zen3-epyc-7j13 -k 4KB -s 4GB -f rep_stosq -q
run_gbs=$(awk '/GB\/sec/ {print $1; exit}' "$OUT")
[[ "$bench_gbs" == "$run_gbs" ]] || fail "bench ($bench_gbs) and run ($run_gbs) differ on one point"

# -f all (perf's default) runs every function the machine has; -f help lists them
cs bench mem memset --machine zen3-epyc-7j13 -s 64KB -q
[[ $RC -eq 0 ]] || fail "bench mem memset (all): exit $RC"
[[ $(grep -c "^# function " "$OUT") -eq 12 ]] || fail "bench -f all on zen3: not its 12 functions"
grep -q "^# function 'x86-64-stosb'" "$OUT" && grep -q "^# function 'clzero'" "$OUT" &&
    grep -q "^# function 'default'" "$OUT" || fail "bench -f all: functions missing"
! grep -q "^# function 'stp'" "$OUT" || fail "bench -f all on x86-64 ran an arm64 kernel"
[[ $(grep -c "^# Running " "$OUT") -eq 1 ]] || fail "bench -f all: more than one Running line"
cs bench mem mmap --machine graviton3 -s 64MB -q
[[ $(grep -c "^# function " "$OUT") -eq 2 ]] || fail "bench mem mmap -f all: not demand and populate"
cs bench mem memset --machine graviton3 -f help
[[ $RC -eq 0 ]] && grep -q "^  dc_zva " "$OUT" && ! grep -q "rep_stosb" "$OUT" ||
    fail "bench -f help on graviton3"
cs bench mem memset --machine zen3-epyc-7j13 -s 1MB -f x86-64-stosb -c -q
grep -Eq '^ +[0-9]+\.[0-9]{6} cycles/byte$' "$OUT" || fail "bench -c: no cycles/byte"
cs bench mem memset --machine zen3-epyc-7j13 -s 1MB -f default --format json -q
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["function"]=="memset", d' "$OUT" ||
    fail "bench --format json: not run's record"

# run -f all / -f help
cs run --machine zen3-epyc-7j13 -f all -q
[[ $RC -eq 0 && $(grep -c "^# function " "$OUT") -eq 12 ]] || fail "run -f all: exit $RC or not 12 functions"
cs run --machine zen3-epyc-7j13 -f all -s 64KB --format json -q
python3 - "$OUT" <<'EOF' || fail "run -f all --format json: not an array of the machine's functions"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 12, d
assert [r["function"] for r in d][:3] == ["rep_stosb", "rep_stosq", "unrolled"], [r["function"] for r in d]
EOF
cs run --machine zen3-epyc-7j13 -f all -s 64KB --format csv -q
[[ $(wc -l <"$OUT") -eq 13 ]] || fail "run -f all --format csv: not one header and 12 rows"
cs run -f help
[[ $RC -eq 0 ]] && grep -q "^  stp " "$OUT" && grep -q "^  rep_stosb  *x86-64-stosb" "$OUT" ||
    fail "run -f help without a machine: not every function with perf's names"

# -f all and -f help for every workload: the workload's own functions the machine runs
for w in mmap fault load copy latency store ntstore linezero fence startup; do
    cs run --machine zen3-epyc-7j13 --workload $w -f help
    [[ $RC -eq 0 && $(grep -c '^  ' "$OUT") -ge 1 ]] || fail "run --workload $w -f help: exit $RC or empty"
done
cs run --machine zen3-epyc-7j13 --workload load -f help
[[ $(grep -c '^  ' "$OUT") -eq 2 ]] && grep -q "^  load8 " "$OUT" && grep -q "^  load32 " "$OUT" ||
    fail "run --workload load -f help on zen3: not load8 and load32"
cs run --machine zen3-epyc-7j13 --workload mmap -p 2MB -s 64MB -f all -q
[[ $RC -eq 0 && $(grep -c "^# function " "$OUT") -eq 12 ]] || fail "run --workload mmap -f all: exit $RC"
cs run --machine graviton3 --workload load -s 1MB -f all -q --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["function"] for r in d]==["load_x16","load_q32"], d' "$OUT" ||
    fail "run --workload load -f all on graviton3: not its two load kernels"

# usage errors
expect_error 2 "did you mean 'memset'?" bench mem memst --machine zen3-epyc-7j13
expect_error 2 "give 'bench mem memset' or 'bench mem mmap'" bench
expect_error 2 "mmap's functions are demand and populate (did you mean 'demand'?)" \
    bench mem mmap --machine zen3-epyc-7j13 -f demnd
expect_error 2 "--machine is required" bench mem memset -s 1MB
expect_error 2 "unrecognized option '-k'" bench mem mmap --machine zen3-epyc-7j13 -k 4KB
expect_error 2 "did you mean 'x86-64-stosq'?" bench mem memset --machine zen3-epyc-7j13 -f x86-64-stosqq
echo PASS
