#!/bin/bash
# mechanisms.sh - the native runs behind docs/MODEL.md section 13 (issue 19):
#   fill   repeat clears (one call over the buffer per loop) of 1 MiB..256 MiB
#          with fill 0x00 and 0x5a, for each temporal kernel the host runs;
#   fence  movnti and clzero (each with its one sfence per call) in calls of
#          4 KiB, 64 KiB and 2 MiB over a 256 MiB buffer (cold: larger than L3);
#   cached movnti and clzero repeating over 16 KiB..64 MiB: the lines a pass
#          finds are the ones the previous pass left in L1/L2/L3.
# Each case is run in ROUNDS rounds, the fills of one size back to back, so
# that a host whose state moves (a shared guest) moves both alike.
# Usage: data/native/mechanisms.sh [CLEARSIM] [ROUNDS] > data/native/HOST-DATE.csv
# Every row carries the CPU (native.host_model), the date and the clock
# (native.date_utc, native.clock_ghz.before/after).
set -euo pipefail
CS=${1:-./build/clearsim}
ROUNDS=${2:-3}
have() { "$CS" functions | awk -v f="$1" '$1 == f { found = 1 } END { exit !found }'; }
cpu_ok() { "$CS" native -f "$1" -s 64KiB --repeat 1 -q >/dev/null 2>&1; }
header=1
one() { # ARGS...: one native run, one csv row (the header once)
    local out
    out=$("$CS" native --repeat 5 --format csv -q "$@")
    if [ "$header" = 1 ]; then
        printf 'case,%s\n' "$(head -1 <<<"$out")"
        header=0
    fi
    printf '%s,%s\n' "$CASE" "$(tail -1 <<<"$out")"
}
loops_for() { # SIZE_MIB: loops for about 512 MiB per timed run, at least 2
    local l=$((512 / $1))
    [ "$l" -lt 2 ] && l=2
    echo "$l"
}
for r in $(seq 1 "$ROUNDS"); do
    for f in rep_stosb rep_stosq unrolled avx2 memset; do
        cpu_ok "$f" || continue
        for mib in 1 4 16 64 256; do
            for fill in 0x00 0x5a; do
                CASE="fill/r$r" one -f "$f" --caller repeat -s "${mib}MiB" \
                    -l "$(loops_for "$mib")" --fill "$fill"
            done
        done
    done
    for f in movnti clzero; do
        cpu_ok "$f" || continue
        for k in 4KiB 64KiB 2MiB; do
            CASE="fence/r$r" one -f "$f" -s 256MiB -k "$k" -l 2
        done
        for kib in 16 256 1024 4096 16384 65536; do
            l=$((524288 / kib))
            [ "$l" -lt 2 ] && l=2
            CASE="cached/r$r" one -f "$f" --caller repeat -s "${kib}KiB" -l "$l"
        done
    done
done
