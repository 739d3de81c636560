#!/usr/bin/env bash
# The layers are one-way: every #include "..." in models/, kernels/ and sim/ goes to a file of
# its own folder or of a folder of a lower layer, as the layer table of docs/ARCHITECTURE.md
# says (between its <!-- layers --> marks). Folders of one layer (kernels/ and models/) do
# not include each other. A source file in a folder the table does not list fails too, so a
# new folder must take its place in the table.
source "$(dirname "$0")/common.bash"
need_python

python3 - "$CLEARSIM_SOURCE_DIR" <<'PY' || fail "an include goes against the layer table"
import os, re, sys
root = sys.argv[1]
doc = open(os.path.join(root, "docs/ARCHITECTURE.md")).read()
m = re.search(r"<!-- layers -->(.*?)<!-- /layers -->", doc, re.S)
assert m, "docs/ARCHITECTURE.md has no <!-- layers --> table"
rank = {}
for line in m.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 2 and cells[0].isdigit():
        rank[cells[1].strip("`").rstrip("/")] = int(cells[0])
assert len(rank) >= 8, rank

def folder(path):
    best = None
    for f in rank:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best

bad, files = [], 0
for top in ("models", "kernels", "sim"):
    for dp, _, names in os.walk(os.path.join(root, top)):
        for name in sorted(names):
            if not name.endswith((".c", ".h", ".inc")):
                continue
            rel = os.path.relpath(os.path.join(dp, name), root)
            src = folder(rel)
            files += 1
            if src is None:
                bad.append(f"{rel}: its folder is not in the layer table")
                continue
            for n, line in enumerate(open(os.path.join(root, rel)), 1):
                inc = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not inc:
                    continue
                dst = folder(inc.group(1))
                if dst is None:
                    if not os.path.exists(os.path.join(dp, inc.group(1))):
                        bad.append(f"{rel}:{n}: includes {inc.group(1)}, in no listed folder")
                    continue
                if dst != src and rank[dst] >= rank[src]:
                    bad.append(f"{rel}:{n}: {src} (layer {rank[src]}) includes {inc.group(1)} "
                               f"({dst}, layer {rank[dst]})")
assert files > 50, files
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"ok: {files} files, {len(rank)} folders")
PY
# Inside models/: a file calls no function defined (not static) in a file above it in the
# order of docs/ARCHITECTURE.md's <!-- models-order --> list, which names every models/*.c.
python3 - "$CLEARSIM_SOURCE_DIR" <<'PY' || fail "a models/ file calls into a file above it"
import glob, os, re, sys
root = sys.argv[1]
doc = open(os.path.join(root, "docs/ARCHITECTURE.md")).read()
m = re.search(r"<!-- models-order -->(.*?)<!-- /models-order -->", doc, re.S)
assert m, "docs/ARCHITECTURE.md has no <!-- models-order --> list"
order = re.findall(r"`([a-z_]+\.c)`", m.group(1))
have = sorted(os.path.basename(f) for f in glob.glob(os.path.join(root, "models", "*.c")))
assert sorted(order) == have, ("the order must name every models/*.c", sorted(order), have)
def text(f):
    src = open(os.path.join(root, "models", f)).read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)
defs = {f: set(re.findall(r"^(?!static)[a-z_][a-z0-9_ *]*?\b([a-z_][a-z0-9_]*)\(", text(f), re.M))
        for f in order}
bad = []
for i, upper in enumerate(order):
    for lower in order[i + 1:]:
        src = text(lower)
        for fn in sorted(defs[upper]):
            if re.search(r"\b" + fn + r"\(", src):
                bad.append(f"models/{lower} calls {fn}() of models/{upper}, a file above it")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"ok: {len(order)} files of models/ call downwards only")
PY
echo "ok: layering"
