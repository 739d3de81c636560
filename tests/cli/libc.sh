#!/usr/bin/env bash
# --libc NAME-VERSION takes memset's keys from the table of sim/machine/libc.c
# (recorded as overrides); detect writes the host's C library, its version
# and the thresholds GLIBC_TUNABLES moves.
source "$(dirname "$0")/common.bash"
need_python
M=zen3-epyc-7j13
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$OUT" "$1"; }

# glibc 2.36 sends a large memset on AMD to rep stosb above 2 KiB; from 2.40 never (272708884c)
cs run --machine $M -f memset -s 1GiB -k 128MiB --libc glibc-2.36 --format json -q
[[ $RC -eq 0 ]] || fail "run --libc glibc-2.36: exit $RC"
[[ $(field set) == "libc.name=glibc-2.36 libc.memset.vector=32 libc.memset.rep_stosb_threshold=2049B libc.memset.nt_threshold=0 libc.memset.zva_threshold=0 libc.memset.mops=false" ]] ||
    fail "--libc glibc-2.36: overrides are '$(field set)'"
old=$(field bytes_per_sec)
cs run --machine $M -f memset -s 1GiB -k 128MiB --libc glibc-2.40 --format json -q
[[ $(field set) == *"libc.memset.rep_stosb_threshold=0 "* ]] || fail "--libc glibc-2.40: rep stosb not off"
new=$(field bytes_per_sec)
python3 -c "assert $old > 1.5 * $new, ($old, $new)" ||
    fail "glibc 2.36 (elided rep stosb, $old) should outrun 2.40 (AVX2 stores, $new) at 128 MiB calls"
# an explicit --set wins over the table
cs run --machine $M -f memset -s 1MiB --libc glibc-2.36 --set libc.memset.rep_stosb_threshold=4KiB --format json -q
[[ $(field set) == *"libc.memset.rep_stosb_threshold=2049B"*"libc.memset.rep_stosb_threshold=4KiB" ]] ||
    fail "--set after --libc: '$(field set)'"
# --libc sizes its thresholds by the L3 after --set: Intel's NT threshold is
# (L3 + L2) / 2, 53 MiB with the file's 104 MiB and 27 MiB with 52 MiB
cs run --machine xeon-8480 -f memset -s 1MiB --set l3.size=52MiB --libc glibc-2.40 --format json -q
[[ $(field set) == *"libc.memset.nt_threshold=27MiB"*"l3.size=52MiB" ]] ||
    fail "--libc after --set l3.size: '$(field set)'"
# a sweep over libc
cs sweep --machine xeon-8480 -f memset -s 1GiB --sweep libc=glibc-2.39,glibc-2.40 --format csv -q
[[ $RC -eq 0 ]] || fail "sweep libc: exit $RC"
python3 - "$OUT" <<'PY' || fail "sweep over libc: 2.40 should add Intel's non-temporal threshold"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["sweep.libc"] for r in rows] == ["glibc-2.39", "glibc-2.40"], rows
assert "nt_threshold=0" in rows[0]["set"] and "nt_threshold=53MiB" in rows[1]["set"], rows
PY
expect_error 2 "--libc 'musl-1.2': unknown C library" run --machine $M --libc musl-1.2
expect_error 2 "glibc 2.31 and later" run --machine $M --libc glibc-2.28
expect_error 2 "--libc 'glibc': no version" run --machine $M --libc glibc

# detect: the host's C library
ver=$(python3 -c 'import platform; n, v = platform.libc_ver(); print(v if n == "glibc" else "")')
[[ -n "$ver" ]] || skip "the host's C library is not glibc"
cs detect
[[ $RC -eq 0 ]] || fail "detect: exit $RC"
grep -Eq "^  name: glibc-$ver +# detected: gnu_get_libc_version\(\)" "$OUT" ||
    fail "detect: libc.name is not glibc-$ver"
if grep -q '^features:.*erms' "$OUT" && [[ $(uname -m) == x86_64 ]]; then
    set +e
    GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=8192 "$CLEARSIM_BIN" detect >"$OUT" 2>"$ERR"
    set -e
    grep -Eq "^    rep_stosb_threshold: 8193B .*GLIBC_TUNABLES glibc.cpu.x86_rep_stosb_threshold=8192" "$OUT" ||
        fail "detect: GLIBC_TUNABLES did not move rep_stosb_threshold to 8193B"
fi
exit 0
