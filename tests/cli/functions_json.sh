#!/usr/bin/env bash
# `functions --format json` follows docs/JSON.md and lists every clearing kernel of
# the reference set (x86-64, arm64 and memset) with the right ISA; text lists as many.
source "$(dirname "$0")/common.bash"
need_python

cs functions --format json
[[ $RC -eq 0 ]] || fail "functions --format json: exit $RC"
python3 - "$OUT" <<'PY' || fail "functions json does not follow the contract"
import json, sys
doc = json.load(open(sys.argv[1]))
assert list(doc) == ["functions"], list(doc)
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

# text: a header and one line per kernel, as many as in json
n_json=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions"]))' "$OUT")
cs functions
[[ $RC -eq 0 ]] || fail "functions: exit $RC"
n_text=$(($(wc -l <"$OUT") - 1))
[[ $n_json -eq $n_text ]] || fail "functions: $n_text text lines, $n_json json entries"
grep -qE '^rep_stosb +x86_64 ' "$OUT" || fail "functions: no rep_stosb x86_64 line"
grep -qE '^dc_zva +arm64 ' "$OUT" || fail "functions: no dc_zva arm64 line"
echo "PASS"
