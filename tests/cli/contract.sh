#!/usr/bin/env bash
# contract.sh - one CLI contract: the same option names in every command (-o/--output,
# -j/--jobs), an option that does not apply to the workload is a usage error (exit 2),
# nearest-name suggestions for machines, functions, commands, options and choices, and
# machines --provenance.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
need_python
M=zen3-epyc-7j13

# options that do not apply to the workload: exit 2, naming the option and the workload
expect_error 2 "--preempt applies only to mmap and fault workloads and to memset --caller extent, not to memset --caller chunked" \
    run --machine $M --preempt full
expect_error 2 "--fault applies only to the mmap and fault workloads, not to memset" \
    run --machine $M --fault populate
expect_error 2 "--extent-cap applies only to mmap and fault workloads and to memset --caller extent, not to memset --caller chunked" \
    run --machine $M --extent-cap 2MB
expect_error 2 "--chunk applies only to the memset" run --machine $M --workload mmap -k 4KB
expect_error 2 "--fill applies only to the memset" run --machine $M --workload mmap --fill 1
expect_error 2 "--caller applies only to the clearing workloads" \
    run --machine $M --workload load --caller repeat
expect_error 2 "--libc applies only to the memset" run --machine $M --workload mmap --libc glibc-2.36
# native checks the same before it measures anything
expect_error 2 "--preempt applies only to mmap and fault workloads and to memset --caller extent, not to memset --caller chunked" \
    native --preempt full
# -p is memset's buffer page, as perf bench mem memset -p: accepted and documented
cs run --machine $M -s 64MB -k 4KB -p 2MB -q
[[ $RC -eq 0 ]] || fail "run memset -p 2MB: exit $RC"
help=$("$CLEARSIM_BIN" run --help)
grep -q "memset: of the buffer" <<<"$help" || fail "run --help: -p not documented for memset"

# -o/--output and -j/--jobs everywhere; the old spellings point to the new
for c in run native sweep tune report calibrate crosscheck detect bench plot; do
    help=$("$CLEARSIM_BIN" $c --help)
    grep -Eq -- '(-o, )?--output' <<<"$help" || fail "$c --help: no --output"
done
for c in sweep tune report calibrate crosscheck detect check; do
    help=$("$CLEARSIM_BIN" $c --help)
    grep -q -- "-j, --jobs N" <<<"$help" || fail "$c --help: no -j, --jobs N"
    ! grep -q -- "--threads" <<<"$help" || fail "$c --help: still --threads"
done
expect_error 2 "unrecognized option '--threads' (did you mean '--jobs'?)" \
    calibrate --machine $M --microbench --threads 2
expect_error 2 "unrecognized option '--jbos' (did you mean '--jobs'?)" sweep --jbos 2
expect_error 2 "unrecognized option '--exat' (did you mean '--exact'?)" run --machine $M --exat
cs run --machine $M -s 64KB -o "$TMPD/run.txt" -q
[[ $RC -eq 0 && ! -s "$OUT" ]] && grep -q "GB/sec" "$TMPD/run.txt" || fail "run -o: exit $RC"

# suggestions
expect_error 2 "unknown command 'swep' (did you mean 'sweep'?)" swep
expect_error 1 "(did you mean 'zen3-epyc-7j13'?)" run --machine zen3
expect_error 2 "unknown function (did you mean 'rep_stosb'?)" run --machine $M -f rep_stosbb
expect_error 2 "must be one of chunked, repeat, page, extent (did you mean 'page'?)" \
    run --machine $M --caller pag
expect_error 2 "(did you mean 'ntstore'?)" run --machine $M --workload ntstor
expect_error 2 "unknown machine key 'l2.mshr' (did you mean 'l2.mshrs'?)" run --machine $M --set l2.mshr=4

# provenance
cs machines --provenance zen4-epyc-9004 --format json
[[ $RC -eq 0 ]] || fail "machines --provenance: exit $RC"
python3 - "$OUT" "$CLEARSIM_SOURCE_DIR/configs/zen4-epyc-9004.yaml" <<'EOF' || fail "machines --provenance json"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
assert d["machine"] == "zen4-epyc-9004"
assert d["machine_file_sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
v = {e["key"]: e for e in d["values"]}
# a value with a published source, one inherited from Milan, one derived, one fitted by
# calibrate (the header), as the file's own comments say
assert v["core.nt_store_cycles"]["kind"] == "sourced" and v["core.nt_store_cycles"]["from"].startswith("[AIDA]"), v["core.nt_store_cycles"]
assert v["core.call_cycles"]["kind"] == "inherited" and v["core.call_cycles"]["from"].startswith("zen3-epyc-7j13"), v["core.call_cycles"]
assert v["wc.buffers"]["kind"] == "derived", v["wc.buffers"]
assert v["l2.latency"]["kind"] == "fitted", v["l2.latency"]
assert "microbench" not in {k.split(".")[0] for k in v}
assert sum(d["counts"].values()) == len(d["values"])
EOF
# a value whose source is the comment block above it, and one whose comment names a source
# in words
cs machines --provenance zen3-epyc-7j13 --format json
python3 - "$OUT" <<'EOF' || fail "machines --provenance: sources above a key or in words"
import json, sys
v = {e["key"]: e for e in json.load(open(sys.argv[1]))["values"]}
assert v["features"]["kind"] == "sourced" and "[CPUID-M]" in v["features"]["from"], v["features"]
assert v["l1.replacement"]["kind"] == "unsourced", v["l1.replacement"]
EOF
cs machines --provenance zen4-epyc-9004
grep -Eq '^core\.call_cycles +29\.57cycles +inherited ' "$OUT" || fail "machines --provenance text"
expect_error 1 "did you mean 'zen4-epyc-9004'?" machines --provenance zen4
echo PASS
