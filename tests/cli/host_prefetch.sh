#!/usr/bin/env bash
# The large simulated caches ask the host to prefetch the set blocks ahead of a sequential
# stream (models/cache_impl.h, cache_prefetch_set). It is a hint that changes no result, so
# only the binary shows whether it is there: GCC 12 once deleted every call of it (a function
# whose only effect is __builtin_prefetch counted as free of side effects), and the
# benchmark case ran 10% slower for it unnoticed. On x86-64 the binary must hold prefetch
# instructions; elsewhere, or without objdump, this skips.
source "$(dirname "$0")/common.bash"

command -v objdump >/dev/null 2>&1 || skip "objdump is not installed (binutils)"
case "$(objdump -f "$CLEARSIM_BIN" 2>/dev/null)" in
*x86-64*) ;;
*) skip "not an x86-64 binary: the check reads x86 prefetch instructions" ;;
esac
n=$(objdump -d --no-show-raw-insn "$CLEARSIM_BIN" | grep -cE $'\tprefetch(t0|t1|t2|nta|w)') || true
[[ "${n:-0}" -gt 0 ]] || fail "no prefetch instruction in $CLEARSIM_BIN: the host prefetch of cache_prefetch_set was compiled away"
echo "ok: $n prefetch instructions"
