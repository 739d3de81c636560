#!/usr/bin/env bash
# `machines` lists the bundled machine files, zen3-epyc-7j13 and graviton3 among them.
source "$(dirname "$0")/common.bash"
need_python

cs machines
[[ $RC -eq 0 ]] || fail "machines: exit $RC"
grep -qE '^zen3-epyc-7j13 +x86_64 ' "$OUT" || fail "machines: no 'zen3-epyc-7j13 x86_64' line"
grep -qE '^graviton3 +arm64 ' "$OUT" || fail "machines: no 'graviton3 arm64' line"
n_files=$(find "$CLEARSIM_SOURCE_DIR/configs" -maxdepth 1 -name '*.yaml' | wc -l)
n_text=$(($(wc -l <"$OUT") - 1))
[[ $n_text -eq $n_files ]] || fail "machines: $n_text lines for $n_files files in configs/"

cs machines --format json
[[ $RC -eq 0 ]] || fail "machines --format json: exit $RC"
python3 - "$OUT" <<'PY' || fail "machines json does not follow the contract"
import json, sys
doc = json.load(open(sys.argv[1]))
assert list(doc) == ["machines"], list(doc)
by_name = {}
for m in doc["machines"]:
    for key in ("name", "isa", "vendor", "model_name", "description", "freq_ghz", "path"):
        assert key in m, (m.get("name"), key)
    assert m["isa"] in ("x86_64", "arm64"), m
    by_name[m["name"]] = m
assert by_name["zen3-epyc-7j13"]["isa"] == "x86_64"
assert by_name["graviton3"]["isa"] == "arm64"
names = [m["name"] for m in doc["machines"]]
assert names == sorted(names), names
PY

# CLEARSIM_CONFIGS points the listing at another directory
mkdir "$TMPD/empty"
CLEARSIM_CONFIGS="$TMPD/empty" cs machines --format json
[[ $RC -eq 0 ]] || fail "machines on an empty configs dir: exit $RC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d=={"machines": []}, d' "$OUT" ||
    fail "machines on an empty configs dir: not an empty list"
CLEARSIM_CONFIGS="$TMPD/none" expect_error 1 "$TMPD/none" machines
echo "PASS"
