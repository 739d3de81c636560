#!/usr/bin/env bash
# `clearsim explain` (docs/MODEL.md "Bottleneck attribution", docs/JSON.md): a write-allocate
# clear larger than L3 on Milan is bound by the memory write link its write-backs take (reads
# that wait for the bus behind a write the link holds back wait for the link, and relaxing it
# helps), an elided clear by the write path; the json shares sum to 1 and the bound cycles to the measured cycles; each
# relaxed key is named with its values; run prints the same top bound; bad options are
# usage errors (exit 2).
source "$(dirname "$0")/common.bash"
need_python

# The Sanitize build (10x slower) checks the json of both cases; the Release run also the
# text, run's summary line and the csv.
sanitize=${CLEARSIM_SANITIZE:-0}

if [[ $sanitize != 1 ]]; then
# write-allocate (unrolled movq) over 1 GiB in 2 MiB pages: 32x the 32 MiB L3
cs explain --machine zen3-epyc-7j13 -s 1GB -f unrolled -p 2MB -q
[[ $RC -eq 0 ]] || fail "explain (write-allocate): exit $RC"
grep -q '^bound by: memory write link, [0-9]*%$' "$OUT" ||
    fail "explain does not name the memory write link: $(grep 'bound by' "$OUT")"
grep -q '^most help: memory.write_bandwidth [0-9.]* B/cycle -> [0-9.]* B/cycle: +[1-9][0-9.]*% throughput' "$OUT" ||
    fail "explain does not recommend memory.write_bandwidth: $(grep 'most help' "$OUT")"
text_out=$(cat "$OUT")

cs run --machine zen3-epyc-7j13 -s 1GB -f unrolled -p 2MB -q
[[ $RC -eq 0 ]] || fail "run: exit $RC"
grep -q '^bound by: memory write link, [0-9]*%' "$OUT" ||
    fail "run's summary line does not name the same bound"
[[ "$(grep '^bound by' "$OUT" | sed 's/  (.*//')" == "$(grep '^bound by' <<<"$text_out")" ]] ||
    fail "run and explain disagree on the top bound"
fi

check_json() { # FILE TOP_RESOURCES...
    python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
tops = sys.argv[2:]
b = doc["bottlenecks"]
assert b, "no bottlenecks"
for e in b:
    assert set(["resource", "label", "share", "cycles", "occupancy", "relaxed", "at_limit",
                "relaxed_cycles", "gain"]) == set(e), list(e)
    assert e["resource"] != "other", e  # no time left unattributed
    assert 0 <= e["share"] <= 1, e
    assert e["occupancy"] is None or e["occupancy"] >= 0, e
    if e["relaxed"] is not None:
        assert set(e["relaxed"]) == {"key", "from", "to"}, e
s = sum(e["share"] for e in b)
assert abs(s - 1) < 1e-9, s
assert sum(e["cycles"] for e in b) == doc["cycles"], (sum(e["cycles"] for e in b), doc["cycles"])
shares = [e["share"] for e in b]
assert shares == sorted(shares, reverse=True), shares
assert b[0]["resource"] in tops, (b[0]["resource"], tops)
assert doc["bound_by"]["resource"] == b[0]["resource"], doc["bound_by"]
r = doc["recommendation"]
assert r is None or (r["gain"] > 0 and r["key"]), r
print(b[0]["resource"], round(b[0]["share"], 3), r and r["key"], r and round(r["gain"], 3))
PY
}

cs explain --machine zen3-epyc-7j13 -s 1GB -f unrolled -p 2MB -q --format json
[[ $RC -eq 0 ]] || fail "explain --format json: exit $RC"
check_json "$OUT" mem_write_link || fail "explain json (write-allocate) breaks the contract"

# rep stosb over 1 GiB is elided on Zen 3: the lines go around the caches through the WC
# buffers to the memory write link
cs explain --machine zen3-epyc-7j13 -s 1GB -f rep_stosb -q --format json -o "$OUT.json"
[[ $RC -eq 0 && ! -s "$OUT" ]] || fail "explain -o: exit $RC, or printed on stdout"
check_json "$OUT.json" wc_buffers mem_write_link mem_bus || fail "explain json (elided) breaks the contract"
rm -f "$OUT.json"

if [[ $sanitize != 1 ]]; then
    cs explain --machine zen3-epyc-7j13 -s 1GB -f rep_stosb -q --format csv
    [[ $RC -eq 0 ]] || fail "explain --format csv: exit $RC"
    head -1 "$OUT" | grep -q '^machine,function,size_bytes,cycles,resource,label,share,' ||
        fail "explain csv header"
fi

# a guest whose host maps it in 4 KiB pages (tlb.host_page, docs/MODEL.md section 8): MOVNTI
# per 2 MiB folio over 1 GiB stalls on the host's miss every page; explain names it, and its
# relaxation halves every kind's cost (not tlb.walk, which the host's miss replaces)
if [[ $sanitize != 1 ]]; then
    cs explain --machine zen5-epyc-9005 --workload memset --caller extent -p 2MB -s 1GB -f movnti -q \
        --set tlb.host_page=4KiB --set tlb.host_miss.nt_narrow=300ns --format json
    [[ $RC -eq 0 ]] || fail "explain (host page): exit $RC"
    check_json "$OUT" host_misses >/dev/null || fail "explain json (host page) breaks the contract"
    python3 - "$OUT" <<'PY' || fail "explain (host page): the host's miss is not relaxed as said"
import json, sys
b = {e["resource"]: e for e in json.load(open(sys.argv[1]))["bottlenecks"]}
h = b["host_misses"]
assert h["relaxed"] == {"key": "tlb.host_miss", "from": "each kind", "to": "each kind x 0.5"}, h
assert h["gain"] > 0.1 and 0 < h["occupancy"] <= 1, h
PY
    # bare metal (host_page 0): nothing of it
    cs explain --machine zen5-epyc-9005 --workload memset --caller extent -p 2MB -s 1GB -f movnti -q --format json
    [[ $RC -eq 0 ]] || fail "explain (bare metal): exit $RC"
    ! grep -q '"host_misses"' "$OUT" || fail "explain on bare metal names the host's miss"
fi

# exactly run's options: bad ones are usage errors
expect_error 2 "--machine is required" explain -s 1MB
expect_error 2 "--bogus" explain --machine zen3-epyc-7j13 --bogus
expect_error 2 "--jobs" explain --machine zen3-epyc-7j13 --jobs 2
cs explain --help
[[ $RC -eq 0 ]] && grep -q '^usage: clearsim explain' "$OUT" || fail "explain --help"
echo "ok: explain"
