#!/usr/bin/env bash
# `run --format json` on zen3-epyc-7j13 follows docs/JSON.md (every key, its
# type), csv has the same fields, text has the perf-style lines, and machine
# file errors are runtime errors (exit 1) naming the file.
source "$(dirname "$0")/common.bash"
need_python

[[ -f "$CLEARSIM_SOURCE_DIR/configs/zen3-epyc-7j13.yaml" ]] || fail "configs/zen3-epyc-7j13.yaml is missing"

cs run --machine zen3-epyc-7j13 --size 1MB --loops 2 --fill 0x5a --format json -q
[[ $RC -eq 0 ]] || fail "run --format json: exit $RC"
python3 - "$OUT" <<'PY' || fail "run json does not follow the contract"
import json, sys
doc = json.load(open(sys.argv[1]))
keys = ["machine", "set", "machine_file_sha256", "clearsim_version", "workload", "function", "caller", "fault", "preempt", "page_bytes",
        "base_page_bytes", "thp", "size_bytes", "chunk_bytes", "extent_cap_bytes", "loops", "fill", "bytes", "cycles",
        "seconds", "bytes_per_sec", "extrapolated", "error_bound", "bulk_lines", "counters", "traffic", "bound_by", "validation"]
assert list(doc) == keys, list(doc)
v = doc["validation"]
assert list(v) == ["cases", "median_abs_err", "median_gain_err"], v
assert isinstance(v["cases"], int) and v["cases"] >= 0, v
for k in ("median_abs_err", "median_gain_err"):
    assert v[k] is None or (isinstance(v[k], float) and v[k] >= 0), v
b = doc["bound_by"]
assert isinstance(b, dict) and list(b) == ["resource", "label", "share"], b
assert isinstance(b["resource"], str) and 0 < b["share"] <= 1, b
assert doc["set"] == "", doc["set"]
# provenance: the version that ran, and the SHA-256 of the machine file's bytes
import hashlib, os, subprocess
src = os.environ["CLEARSIM_SOURCE_DIR"] + "/configs/zen3-epyc-7j13.yaml"
assert doc["machine_file_sha256"] == hashlib.sha256(open(src, "rb").read()).hexdigest(), doc["machine_file_sha256"]
ver = subprocess.run([os.environ["CLEARSIM_BIN"], "--version"], capture_output=True, text=True).stdout.split()[1]
assert doc["clearsim_version"] == ver, (doc["clearsim_version"], ver)
for k in ("machine", "workload", "function", "caller", "fault", "preempt"):
    assert isinstance(doc[k], str), k
for k in ("page_bytes", "size_bytes", "chunk_bytes", "extent_cap_bytes", "loops", "fill",
          "bytes", "cycles"):
    assert isinstance(doc[k], int) and doc[k] >= 0, k
for k in ("seconds", "bytes_per_sec", "error_bound"):
    assert doc[k] is None or isinstance(doc[k], (int, float)), k
assert isinstance(doc["extrapolated"], bool)
# the inputs, as given (function defaults to rep_stosb on an ERMS x86 machine)
assert doc["machine"] == "zen3-epyc-7j13", doc["machine"]
assert doc["workload"] == "memset" and doc["caller"] == "chunked"
assert doc["function"] == "rep_stosb", doc["function"]
assert doc["size_bytes"] == 1048576 and doc["loops"] == 2 and doc["fill"] == 0x5a
# the measured region clears loops x size bytes
assert doc["bytes"] == 2 * 1048576, doc["bytes"]
assert doc["cycles"] > 0 and doc["seconds"] > 0 and doc["bytes_per_sec"] > 0
c = doc["counters"]
std = ["cycles", "instructions", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads",
       "LLC-load-misses", "dTLB-load-misses"]
assert list(c)[:len(std)] == std, list(c)
for name, v in c.items():
    assert v is None or (isinstance(v, int) and v >= 0), (name, v)
t = doc["traffic"]
assert list(t) == ["l1", "l2", "l3", "dram_read_bytes", "dram_write_bytes"], list(t)
for lvl in ("l1", "l2", "l3"):
    assert list(t[lvl]) == ["hits", "misses", "writebacks"], (lvl, list(t[lvl]))
    assert all(isinstance(v, int) and v >= 0 for v in t[lvl].values()), lvl
assert isinstance(t["dram_read_bytes"], int) and isinstance(t["dram_write_bytes"], int)
PY

# csv: a header and one row, the same number of fields
cs run --machine zen3-epyc-7j13 --size 1MB --format csv -q
[[ $RC -eq 0 ]] || fail "run --format csv: exit $RC"
[[ $(wc -l <"$OUT") -eq 2 ]] || fail "run --format csv: not two lines"
python3 - "$OUT" <<'PY' || fail "run csv: header and row differ"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 2 and len(rows[0]) == len(rows[1]), rows
row = dict(zip(*rows))
assert row["machine"] == "zen3-epyc-7j13" and row["size_bytes"] == "1048576", row
assert "counters.cycles" in row and "traffic.l1.hits" in row, rows[0]
PY

# text: perf-bench style header, throughput in binary GB/sec and bytes/sec, counters
cs run --machine zen3-epyc-7j13 --size 1MB -q
[[ $RC -eq 0 ]] || fail "run: exit $RC"
grep -q "^# Running 'mem/memset' benchmark:$" "$OUT" || fail "text: no '# Running' header"
grep -qE '^ +[0-9]+\.[0-9]{6} GB/sec' "$OUT" || fail "text: no GB/sec line"
grep -qE '^ +[0-9]+ bytes/sec$' "$OUT" || fail "text: no bytes/sec line"
grep -qE '^ +([0-9]{1,3}(,[0-9]{3})*|<not supported>) +cycles$' "$OUT" ||
    fail "text: no cycles counter line"

# the mmap workload of the README's quick start
cs run --machine zen3-epyc-7j13 --workload mmap --page 2MB --size 64MB --caller extent \
    --format json -q
[[ $RC -eq 0 ]] || fail "run --workload mmap: exit $RC"
python3 - "$OUT" <<'PY' || fail "run mmap json: wrong inputs"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "mmap" and d["caller"] == "extent", d
assert d["page_bytes"] == 2 << 20 and d["size_bytes"] == 64 << 20, d
assert d["bytes"] == 64 << 20, d["bytes"]
PY

# runtime errors: exit 1, one line, naming the file
expect_error 1 "$TMPD/nope.yaml" run --machine "$TMPD/nope.yaml"
printf 'name: broken\nisa: [x86_64\n' >"$TMPD/broken.yaml"
expect_error 1 "$TMPD/broken.yaml:" run --machine "$TMPD/broken.yaml"
expect_error 1 "no_such_machine" run --machine no_such_machine
echo "PASS"
