#!/usr/bin/env bash
# `clearsim native` follows the run JSON contract plus the `native` object
# (docs/JSON.md); csv has the same fields; what the host lacks is a one-line
# runtime error (exit 1); bad options are usage errors (exit 2). Nothing here
# asserts a speed.
source "$(dirname "$0")/common.bash"
need_python

[[ $(uname -m) == x86_64 ]] || skip "rep_stosb is an x86_64 kernel; this host is $(uname -m)"

cs native -s 4MB -f rep_stosb --repeat 3 --format json -q
[[ $RC -eq 0 ]] || fail "native --format json: exit $RC"
python3 - "$OUT" <<'PY' || fail "native json does not follow the contract"
import json, math, re, sys
doc = json.load(open(sys.argv[1]))
keys = ["machine", "set", "machine_file_sha256", "clearsim_version", "workload", "function", "caller", "fault", "preempt", "page_bytes",
        "base_page_bytes", "thp", "size_bytes", "chunk_bytes", "extent_cap_bytes", "loops", "fill", "bytes", "cycles",
        "seconds", "bytes_per_sec", "extrapolated", "error_bound", "bulk_lines", "counters", "traffic",
        "native"]
assert list(doc) == keys, list(doc)
assert doc["machine"] == "host" and doc["workload"] == "memset"
assert doc["function"] == "rep_stosb" and doc["caller"] == "chunked"
assert doc["size_bytes"] == 4 << 20 and doc["bytes"] == 4 << 20 and doc["loops"] == 1
assert doc["extrapolated"] is False
assert isinstance(doc["seconds"], float) and doc["seconds"] > 0
assert isinstance(doc["bytes_per_sec"], float) and doc["bytes_per_sec"] > 0
std = ["cycles", "instructions", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads",
       "LLC-load-misses", "dTLB-load-misses"]
c = doc["counters"]
assert list(c) == std, list(c)
for name, v in c.items():
    assert v is None or (isinstance(v, int) and v >= 0), (name, v)
n = doc["native"]
nkeys = ["repeat", "cpu", "warm_up_runs", "warm_up_seconds", "seconds", "bytes_per_sec", "page_mode", "page_how", "huge_bytes",
         "counters_via", "counters_reason", "host_model", "kernel_release", "kernel_version",
         "kernel_preempt", "preempt_source", "thp_enabled", "base_page_bytes", "date_utc",
         "clock_ghz"]
assert list(n) == nkeys, list(n)
assert doc["set"] == ""
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", n["date_utc"]), n["date_utc"]
assert list(n["clock_ghz"]) == ["before", "after"], n["clock_ghz"]
for q in ("before", "after"):
    g = n["clock_ghz"][q]
    assert g is None or 0.2 < g < 10, (q, g)
assert n["repeat"] == 3 and isinstance(n["cpu"], int) and n["cpu"] >= 0
# the default warm-up repeats the workload for at least 100 ms, at least once
assert isinstance(n["warm_up_runs"], int) and n["warm_up_runs"] >= 1, n["warm_up_runs"]
assert n["warm_up_seconds"] >= 0.1, n["warm_up_seconds"]
for q in ("seconds", "bytes_per_sec"):
    assert list(n[q]) == ["mean", "stddev", "ci95"], list(n[q])
    assert n[q]["mean"] > 0 and n[q]["stddev"] >= 0 and n[q]["ci95"] >= 0, n[q]
assert n["seconds"]["mean"] == doc["seconds"]
assert n["bytes_per_sec"]["mean"] == doc["bytes_per_sec"]
assert n["page_mode"] == "4k" and n["huge_bytes"] == 0
# counters: all counted, or a reason stated once (then cycles is null too)
if n["counters_reason"] is None:
    assert all(isinstance(v, int) for v in c.values()), c
    assert isinstance(doc["cycles"], int) and doc["cycles"] == c["cycles"]
else:
    assert isinstance(n["counters_reason"], str) and n["counters_reason"]
    if c["cycles"] is None:
        assert doc["cycles"] is None
# no traffic breakdown natively: null, never zero
t = doc["traffic"]
assert all(v is None for lvl in ("l1", "l2", "l3") for v in t[lvl].values()), t
assert t["dram_read_bytes"] is None and t["dram_write_bytes"] is None
for k in ("host_model", "kernel_release", "kernel_preempt", "page_how"):
    assert isinstance(n[k], str) and n[k], k
PY

# csv: a header and one row with the same fields, the native statistics among them
cs native -s 1MB -f memset --fill 0x5a --repeat 2 --format csv -q
[[ $RC -eq 0 ]] || fail "native --format csv: exit $RC"
python3 - "$OUT" <<'PY' || fail "native csv: header and row differ"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 2 and len(rows[0]) == len(rows[1]), rows
row = dict(zip(*rows))
assert row["machine"] == "host" and row["fill"] == "90" and row["native.repeat"] == "2", row
assert float(row["native.seconds.mean"]) > 0 and float(row["native.bytes_per_sec.ci95"]) >= 0
PY

# text: perf-bench style throughput line
cs native -s 1MB --caller repeat -l 2 --repeat 2 -q
[[ $RC -eq 0 ]] || fail "native (text): exit $RC"
grep -q 'GB/sec' "$OUT" || fail "native (text): no GB/sec line"
grep -q 'seconds per run' "$OUT" || fail "native (text): no seconds line"

# mmap with 4 KiB pages, both fault modes
for fault in demand populate; do
    cs native --workload mmap -s 2MB --fault $fault --repeat 2 --format json -q
    [[ $RC -eq 0 ]] || fail "native --workload mmap --fault $fault: exit $RC"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["native"]["page_mode"]=="4k" and d["bytes_per_sec"]>0, d' "$OUT" ||
        fail "native mmap $fault json"
done

# what the host lacks: exit 1, one line, naming it
if ! grep -qw clzero /proc/cpuinfo; then
    expect_error 1 "function 'clzero' needs CPU feature clzero" native -f clzero -s 1MB
fi
free1g=$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages 2>/dev/null || echo 0)
if [[ $free1g -lt 2 ]]; then
    expect_error 1 "--page 1GiB" native --workload mmap -p 1GB -s 2GB
fi

# usage errors: exit 2
expect_error 2 "unrecognized option '--machine'" native --machine zen3-epyc-7j13
expect_error 2 "--repeat '0'" native --repeat 0
expect_error 2 "--cpu 'x'" native --cpu x
expect_error 2 "--warm-up '10001'" native --warm-up 10001
# --warm-up 0: a single warm-up run
cs native -s 64KB -f rep_stosb --repeat 1 --warm-up 0 --format json -q
[[ $RC -eq 0 ]] || fail "native --warm-up 0: exit $RC"
python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["native"]; assert n["warm_up_runs"] == 1, n' "$OUT" ||
    fail "--warm-up 0 did more than one warm-up run"
expect_error 2 "--fill" native --workload mmap --fill 3
cs native --help
[[ $RC -eq 0 ]] && grep -q '^usage: clearsim native' "$OUT" || fail "native --help"
echo "PASS"
