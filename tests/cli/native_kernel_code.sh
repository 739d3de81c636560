#!/usr/bin/env bash
# The native kernels time their own instructions and nothing else (kernels/kmode.h): the
# object code of every kern_native_* function, and of every function it calls inside the
# binary, holds no cpuid, syscall, sysenter or int instruction, and calls nothing but the C
# library's memset (the memset kernel) and, in a sanitizer build, the sanitizer's checks.
#
# Skips: objdump missing (binutils), or a host ISA whose disassembly this does not parse.
source "$(dirname "$0")/common.bash"
need_python
command -v objdump >/dev/null 2>&1 || skip "objdump is not installed (Debian package binutils)"
case $(uname -m) in
x86_64) ;;
*) skip "the instruction check knows x86-64 mnemonics only; this host is $(uname -m)" ;;
esac

objdump -d --no-show-raw-insn "$CLEARSIM_BIN" >"$TMPD/dis" || fail "objdump -d failed"
python3 - "$TMPD/dis" <<'PY' || fail "a native kernel runs more than its own instructions"
import re, sys
funcs, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
    if m:
        cur = m.group(1)
        funcs[cur] = []
    elif cur and "\t" in line:
        funcs[cur].append(line.split("\t", 1)[1].strip())
roots = sorted(f for f in funcs if f.startswith("kern_native_") and f != "kern_native_block_bytes"
               and f != "kern_native_supported")
assert len(roots) >= 9, roots  # 8 x86-64 kernels and memset
# What a kernel may call besides itself: the C library's memset (through the PLT), and the
# checks a sanitizer build inserts around loads and stores.
allowed = re.compile(r"^(memset(@plt)?|__(a|ub)san_.*|__sanitizer_.*)$")
forbidden = re.compile(r"^(cpuid|syscall|sysenter|int|int3|rdtscp?|rdpid|xgetbv|vmcall)\b")
bad, seen, todo = [], set(), list(roots)
while todo:
    f = todo.pop()
    if f in seen:
        continue
    seen.add(f)
    for ins in funcs.get(f, []):
        if forbidden.match(ins):
            bad.append(f"{f}: {ins}")
        m = re.match(r"^(call|jmp)q?\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>", ins)
        if m and m.group(2) != f:
            t = m.group(2)
            if allowed.match(t):
                continue
            if t not in funcs:
                bad.append(f"{f}: calls {t}, which is not in the binary")
            else:
                todo.append(t)
        elif re.match(r"^(call|jmp)q?\s+\*", ins):
            bad.append(f"{f}: indirect {ins}")
assert not bad, "\n".join(bad)
print(f"ok: {len(roots)} native kernels, {len(seen)} functions checked")
PY
echo "ok: native kernel code"
