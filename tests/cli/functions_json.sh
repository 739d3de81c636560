#!/usr/bin/env bash
# `functions --format json` follows docs/JSON.md and lists every clearing kernel of
# the reference set (x86-64, arm64 and memset) with the right ISA, and the
# microbenchmark kernels with their workload; text lists as many of each.
source "$(dirname "$0")/common.bash"
need_python

cs functions --format json
[[ $RC -eq 0 ]] || fail "functions --format json: exit $RC"
python3 - "$OUT" <<'PY' || fail "functions json does not follow the contract"
import json, sys
doc = json.load(open(sys.argv[1]))
assert list(doc) == ["functions", "microbenchmarks"], list(doc)
mbs = doc["microbenchmarks"]
names = {m["name"]: m for m in mbs}
for m in mbs:
    for key in ("name", "workload", "isa", "needs", "width_bytes", "description"):
        assert key in m, (m, key)
    assert m["workload"] in ("load", "copy", "latency"), m
assert names["chase"]["workload"] == "latency" and names["chase"]["isa"] == "any", names["chase"]
assert names["load64"]["needs"] == ["avx512f"] and names["load64"]["width_bytes"] == 64, names["load64"]
assert names["copy_nt_q32"]["isa"] == "arm64", names["copy_nt_q32"]
fns = doc["functions"]
assert isinstance(fns, list) and fns, "empty list"
seen = {}
for f in fns:
    for key in ("name", "isa", "needs"):
        assert key in f, (f, key)
    assert isinstance(f["name"], str) and f["name"], f
    assert f["isa"] in ("x86_64", "arm64", "any"), f
    assert isinstance(f["needs"], list) and all(isinstance(n, str) for n in f["needs"]), f
    assert f["name"] not in seen, ("duplicate", f["name"])
    seen[f["name"]] = f
expected = {
    "rep_stosb": "x86_64", "rep_stosq": "x86_64", "unrolled": "x86_64",
    "movnti": "x86_64", "clzero": "x86_64",
    "mops": "arm64", "dc_zva": "arm64", "stnp": "arm64", "stp": "arm64",
    "memset": "any",
}
for name, isa in expected.items():
    assert name in seen, ("missing", name)
    assert seen[name]["isa"] == isa, (name, seen[name]["isa"], isa)
assert "clzero" in seen["clzero"]["needs"], seen["clzero"]
assert "mops" in seen["mops"]["needs"], seen["mops"]
assert "dczva" in seen["dc_zva"]["needs"], seen["dc_zva"]
PY

# text: a header and one line per clearing kernel, then a blank line, a
# heading and one line per microbenchmark kernel, as many as in json
n_json=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions"]))' "$OUT")
n_mb=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["microbenchmarks"]))' "$OUT")
cs functions
[[ $RC -eq 0 ]] || fail "functions: exit $RC"
n_text=$(awk 'NR > 1 && /^$/ {exit} NR > 1 {n++} END {print n}' "$OUT")
[[ $n_json -eq $n_text ]] || fail "functions: $n_text text lines, $n_json json entries"
n_text_mb=$(awk 'f > 1 {n++} /^$/ || f {f++} END {print n}' "$OUT")
[[ $n_mb -eq $n_text_mb ]] || fail "functions: $n_text_mb microbenchmark lines, $n_mb json entries"
grep -qE '^chase +any ' "$OUT" || fail "functions: no chase line"
grep -qE '^rep_stosb +x86_64 ' "$OUT" || fail "functions: no rep_stosb x86_64 line"
grep -qE '^dc_zva +arm64 ' "$OUT" || fail "functions: no dc_zva arm64 line"
echo "PASS"
