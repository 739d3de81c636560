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
objdump -d --no-show-raw-insn "$CLEARSIM_BIN" >"$TMPD/asm" || fail "objdump -d $CLEARSIM_BIN failed"
grep -qE '^[0-9a-f]+ <(from_l2|hier_[a-z_]*)(\.[a-z0-9.]*)?>:$' "$TMPD/asm" ||
    skip "no symbols of models/hierarchy.c in $CLEARSIM_BIN (stripped?)"
# prefetches in the hierarchy's own functions (a statically linked library's do not count)
n=$(awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 }
         /\tprefetch(t0|t1|t2|nta|w)/ && fn ~ /^<(from_l2|hier_|l2_|l3_|beyond_l2|store_line)/ { n++ }
         END { print n + 0 }' "$TMPD/asm")
[[ "$n" -gt 0 ]] || fail "no prefetch instruction in the hierarchy's functions of $CLEARSIM_BIN: the host prefetch (cache_i_prefetch) was compiled away"
echo "ok: $n prefetch instructions in the hierarchy's functions"
