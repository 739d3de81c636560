#!/usr/bin/env bash
# `clearsim validate` on the fixture corpus (tests/fixtures/published/good: made-up figures):
# every case and gain is printed with its error, the per-machine summary, exit 0 whatever
# the errors; json and csv agree with it; filters and their usage errors; a bad corpus file
# is one line naming file:line:col (exit 1). Then `report --validation` writes the trust
# file, and `machines`, `run`, `bench` and `explain` show the trust line with the figures
# of validate's own json output; --check finds the files current.
source "$(dirname "$0")/common.bash"
need_python

FIX="$CLEARSIM_SOURCE_DIR/tests/fixtures/published"

# 1. text: every case, the gain, the summary
cs validate --corpus "$FIX/good" -q
[[ $RC -eq 0 ]] || fail "validate: exit $RC"
for id in fixa-zen5-2m-page fixa-zen5-2m-extent fixa-zen5-memset-ms fixb-milan-2m-page \
    fixb-milan-memset fixa-zen5-extent-gain; do
    grep -q "^$id " "$OUT" || fail "validate: no row for $id"
done
grep -q "^fixb-milan-2m-page .* calibration " "$OUT" || fail "validate: the calibration case is not marked"
grep -q "^zen5-epyc-9005 *3 " "$OUT" || fail "validate: zen5's summary does not count its 3 judge figures"

# 2. json: the same cases; the summary is the median of |error| (by hand, in python)
cs validate --corpus "$FIX/good" -q --format json -j 1
[[ $RC -eq 0 ]] || fail "validate --format json: exit $RC"
cp "$OUT" "$TMPD/v.json"
python3 - "$TMPD/v.json" <<'PY' || fail "validate json: wrong figures"
import json, sys, statistics
d = json.load(open(sys.argv[1]))
assert d["corpus"] == {"sources": 2, "cases": 5, "gains": 1}, d["corpus"]
cases = {c["id"]: c for c in d["cases"]}
# 50 ms for 1 GiB is 20 GiB/s; 9000 MB/s is 9e9 B/s
assert abs(cases["fixa-zen5-memset-ms"]["published_bps"] - 2**30 / 0.05) < 1e-3
assert abs(cases["fixb-milan-memset"]["published_bps"] - 9e9) < 1e-3
for c in d["cases"]:
    assert abs(c["error"] - (c["predicted_bps"] / c["published_bps"] - 1)) < 1e-12, c["id"]
g = d["gains"][0]
assert abs(g["published_ratio"] - 1.5) < 1e-12, g
m = {s["machine"]: s for s in d["machines"]}
z5 = [abs(c["error"]) for c in d["cases"] if c["machine"] == "zen5-epyc-9005"]
assert m["zen5-epyc-9005"]["cases"] == 3
assert abs(m["zen5-epyc-9005"]["median_abs_err"] - statistics.median(z5)) < 1e-12
assert abs(m["zen5-epyc-9005"]["median_gain_err"] - abs(g["error"])) < 1e-12
assert m["zen3-epyc-7j13"]["cases"] == 1 and m["zen3-epyc-7j13"]["exempt"] == 1
PY

# 3. csv: one record per case and gain and machine
cs validate --corpus "$FIX/good" -q --format csv
[[ $RC -eq 0 ]] || fail "validate --format csv: exit $RC"
[[ $(grep -c '^case,' "$OUT") -eq 5 && $(grep -c '^gain,' "$OUT") -eq 1 && \
   $(grep -c '^machine,' "$OUT") -eq 2 ]] || fail "validate csv: wrong record counts"

# 4. filters and usage errors
cs validate --corpus "$FIX/good" -q --machine zen3-epyc-7j13
[[ $RC -eq 0 ]] && ! grep -q zen5 "$OUT" || fail "--machine did not filter"
cs validate --corpus "$FIX/good" -q --source FIXB --format json
[[ $RC -eq 0 ]] || fail "--source: exit $RC"
cs validate --corpus "$FIX/good" -q --machine zen5-epyc-905
[[ $RC -eq 2 ]] && grep -q "no machine named 'zen5-epyc-905'.*zen5-epyc-9005" "$ERR" ||
    fail "--machine with an unknown name: exit $RC, not 'no machine named' with the nearest"
cs validate --corpus "$FIX/good" -q --source FIXC
[[ $RC -eq 2 ]] && grep -q "did you mean" "$ERR" || fail "--source unknown: exit $RC"

# 5. a bad corpus file: one line with file:line:col, the key, the value, the rule
cs validate --corpus "$FIX/bad" -q
[[ $RC -eq 1 ]] || fail "a bad unit: exit $RC, not 1"
grep -q "BADU.yaml:11:11: cases.unit: unknown unit 'furlongs/s'" "$ERR" || fail "a bad unit: $(cat "$ERR")"
[[ $(wc -l <"$ERR") -eq 1 ]] || fail "a bad unit: more than one line"

# 6. report --validation: the Markdown and the trust file, then --check
cs report --validation --corpus "$FIX/good" --output "$TMPD/V.md" --trust "$TMPD/trust.csv" -q
[[ $RC -eq 0 ]] || fail "report --validation: exit $RC"
grep -q "^## zen5-epyc-9005" "$TMPD/V.md" || fail "VALIDATION.md: no zen5 section"
# a spread as its source wrote it ("+- 2.5%", "1%") follows one "±"
grep -q "| 30 GB/s ± 2.5% |" "$TMPD/V.md" && grep -q "| 20 GB/s ± 1% |" "$TMPD/V.md" &&
    ! grep -q "± +-" "$TMPD/V.md" || fail "VALIDATION.md: a spread is not after one ±: $(grep -m1 fixa-zen5-2m-extent "$TMPD/V.md")"
cs report --validation --corpus "$FIX/good" --check "$TMPD/V.md" --trust "$TMPD/trust.csv"
[[ $RC -eq 0 ]] || fail "report --validation --check: exit $RC"

# 7. the trust line, against validate's own json
export CLEARSIM_TRUST="$TMPD/trust.csv"
med=$(python3 -c 'import json,sys; m={s["machine"]: s for s in json.load(open(sys.argv[1]))["machines"]}; z=m["zen5-epyc-9005"]; print("%.1f%%, gains %.1f%%" % (z["median_abs_err"]*100, z["median_gain_err"]*100))' "$TMPD/v.json")
want="validation: validated on 3 published figures: median |error| $med"
cs run --machine zen5-epyc-9005 -s 4MB -q
grep -qF "$want" "$OUT" || fail "run: no trust line '$want'"
cs explain --machine zen5-epyc-9005 -s 4MB -q
grep -qF "$want" "$OUT" || fail "explain: no trust line '$want'"
cs bench mem memset --machine zen5-epyc-9005 -s 4MB -f x86-64-stosb -q
grep -qF "# $want" "$OUT" || fail "bench: no trust line '# $want'"
cs machines
grep -q "^zen5-epyc-9005 .* 3 figures ${med%%,*}, gains" "$OUT" || fail "machines: no trust column for zen5"
grep -q "^graviton3 .* not validated " "$OUT" || fail "machines: graviton3 is not 'not validated'"
cs run --machine zen5-epyc-9005 -s 4MB -q --format json
python3 - "$OUT" "$TMPD/v.json" <<'PY' || fail "run json: validation differs from validate's"
import json, sys
r = json.load(open(sys.argv[1]))["validation"]
m = {s["machine"]: s for s in json.load(open(sys.argv[2]))["machines"]}["zen5-epyc-9005"]
assert r == {"cases": 3, "median_abs_err": m["median_abs_err"], "median_gain_err": m["median_gain_err"]}, r
PY
cs run --machine zen5-epyc-9005 -s 4MB -q --format csv
python3 - "$OUT" "$TMPD/v.json" <<'PY' || fail "run csv: validation columns differ from validate's"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = {s["machine"]: s for s in json.load(open(sys.argv[2]))["machines"]}["zen5-epyc-9005"]
r = rows[0]
assert int(r["validation.cases"]) == 3, r
assert float(r["validation.median_abs_err"]) == m["median_abs_err"], r
assert float(r["validation.median_gain_err"]) == m["median_gain_err"], r
PY
cs explain --machine zen5-epyc-9005 -s 4MB -q --format csv
head -1 "$OUT" | grep -q ",validation.cases,validation.median_abs_err,validation.median_gain_err$" ||
    fail "explain csv: no validation columns"
# a file that is not the one validated is not validated
sed 's/^description: .*/description: a copy/' "$CLEARSIM_SOURCE_DIR/configs/zen5-epyc-9005.yaml" >"$TMPD/zen5-epyc-9005.yaml"
cs run --machine "$TMPD/zen5-epyc-9005.yaml" -s 4MB -q
grep -q "validation: not validated (the validated file of this name differs" "$OUT" || fail "a copy got the trust line"
echo "ok"
