#!/usr/bin/env python3
"""Every bundled value marked '# derived: = KEY' equals KEY's value in the same file
(so a refit of KEY by calibrate --microbench cannot leave it stale). Values are compared
in one unit per kind, converted at the file's core.freq. Exit 1 naming each mismatch."""
import re, sys, glob, os

UNITS = {"ns": ("t", 1.0), "us": ("t", 1e3), "cycles": ("c", 1.0), "GB/s": ("bw", 1.0),
         "B/cycle": ("bpc", 1.0), "": ("n", 1.0)}

def parse(text, ghz):
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([A-Za-z/]*)", text)
    if not m or m.group(2) not in UNITS:
        return None
    kind, mul = UNITS[m.group(2)]
    v = float(m.group(1)) * mul
    if kind == "c":
        return ("t", v / ghz)          # cycles -> ns
    if kind == "bpc":
        return ("bw", v * ghz / 1.073741824)  # B/cycle -> GiB/s ("GB/s" in the files)
    return (kind, v)

bad = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))):
    values, derived, sec = {}, [], None
    for n, line in enumerate(open(path), 1):
        top = re.match(r"^([a-z0-9_]+):", line)
        if top:
            sec = top.group(1)
        kv = re.match(r"^  ([a-z0-9_]+):\s*([^#\s][^#]*?)\s*(#.*)?$", line)
        if not kv or sec is None:
            continue
        key = sec + "." + kv.group(1)
        values[key] = kv.group(2)
        d = re.search(r"# derived: = ([a-z0-9_]+\.[a-z0-9_]+)", kv.group(3) or "")
        if d:
            derived.append((n, key, d.group(1)))
    ghz = float(re.sub("GHz", "", values.get("core.freq", "1GHz")))
    for n, key, src in derived:
        a, b = parse(values[key], ghz), parse(values.get(src, ""), ghz)
        if a is None or b is None or a[0] != b[0] or abs(a[1] - b[1]) > 0.01 * abs(b[1]) + 1e-9:
            bad.append("%s:%d: %s: %s is marked '= %s', which is %s"
                       % (path, n, key, values[key], src, values.get(src, "(absent)")))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
