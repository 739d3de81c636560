#!/usr/bin/env bash
# --thp and --base-page: a 4 KiB mmap under THP always clears 2 MiB folios,
# the same work as -p 2MB; arm64 base pages; the errors name the option.
source "$(dirname "$0")/common.bash"
need_python
bps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes_per_sec"])' "$OUT"; }

cs run --machine zen3-epyc-7j13 --workload mmap -s 64MiB --thp always --format json -q
[[ $RC -eq 0 ]] || fail "run --thp always: exit $RC"
thp=$(bps)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["thp"] == "always" and d["base_page_bytes"] == 4096 and d["page_bytes"] == 4096, d' "$OUT" ||
    fail "run json: thp/base_page_bytes not recorded"
cs run --machine zen3-epyc-7j13 --workload mmap -s 64MiB -p 2MB --format json -q
huge=$(bps)
cs run --machine zen3-epyc-7j13 --workload mmap -s 64MiB --thp madvise --format json -q
madv=$(bps)
cs run --machine zen3-epyc-7j13 --workload mmap -s 64MiB --format json -q
base=$(bps)
python3 - "$thp" "$huge" "$madv" "$base" <<'PY' || fail "THP always should equal 2 MiB pages, madvise the base pages ($thp $huge $madv $base)"
import sys
thp, huge, madv, base = map(float, sys.argv[1:])
assert abs(thp / huge - 1) < 1e-9, (thp, huge)
assert madv == base and thp > 2 * base, (madv, base, thp)
PY

# arm64: 16 KiB base pages (32 MiB PMD folios under THP always), 64 KiB pages
cs run --machine graviton3 --workload mmap -s 64MiB --base-page 16KB --thp always --format json -q
[[ $RC -eq 0 ]] || fail "graviton3 --base-page 16KB --thp always: exit $RC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["page_bytes"] == 16384 and d["base_page_bytes"] == 16384, d' "$OUT" ||
    fail "--base-page 16KB: --page does not default to the base page"
cs run --machine graviton3 --workload mmap -s 64MiB -p 32MB --base-page 16KB --format json -q
[[ $RC -eq 0 ]] || fail "graviton3 -p 32MB --base-page 16KB: exit $RC"

expect_error 2 "--base-page 16KiB: only arm64" run --machine zen3-epyc-7j13 --workload mmap --base-page 16KB
expect_error 2 "16KB or 32MB" run --machine graviton3 --workload mmap -p 2MB --base-page 16KB
expect_error 2 "--thp always: applies to base pages" run --machine zen3-epyc-7j13 --workload mmap -p 2MB --thp always
expect_error 2 "--thp applies only to the mmap and fault workloads, not to memset" run --machine zen3-epyc-7j13 --thp always
expect_error 2 "--thp 'sometimes'" run --machine zen3-epyc-7j13 --workload mmap --thp sometimes
expect_error 2 "--base-page '8KB'" run --machine graviton3 --workload mmap --base-page 8KB

# native reports the host's own settings
cs native -s 1MiB --repeat 1 --format json -q
[[ $RC -eq 0 ]] || fail "native: exit $RC"
python3 - "$OUT" <<'PY' || fail "native json: thp_enabled / base_page_bytes"
import json, os, sys
n = json.load(open(sys.argv[1]))["native"]
assert n["base_page_bytes"] == os.sysconf("SC_PAGE_SIZE"), n["base_page_bytes"]
try:
    t = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    want = t[t.index("[") + 1:t.index("]")]
except (OSError, ValueError):
    want = ""
assert n["thp_enabled"] == want, (n["thp_enabled"], want)
PY
exit 0
