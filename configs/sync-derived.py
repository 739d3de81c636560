#!/usr/bin/env python3
"""Carry a refitted value into the keys of the same file derived as equal to it.

A machine file marks a value that equals another key of the same file with
`# derived: = <section>.<key>` (docs/ADDING-A-MACHINE.md, step 4), e.g.
`write_bandwidth: ...  # derived: = memory.read_bandwidth`. After
`clearsim calibrate --microbench -o FILE` refits the key it names, run this to copy the new
value over (the value text as written, so the unit is the same); it changes nothing else and
prints every change. tests/cli/derived_values.py checks the result.

usage: configs/sync-derived.py [--check] [FILE.yaml ...]   (default: every configs/*.yaml;
       --check: change nothing, exit 1 if a derived value differs from its key's
       by more than 1%, the tolerance of tests/cli/derived_values.py)
"""
import glob, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
UNITS = {"ns": ("t", 1.0), "us": ("t", 1e3), "cycles": ("c", 1.0), "GB/s": ("bw", 1.0),
         "B/cycle": ("bpc", 1.0), "": ("n", 1.0)}


def parse(text, ghz):
    """(kind, value) in one unit per kind (as tests/cli/derived_values.py), or None."""
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([A-Za-z/]*)", text)
    if not m or m.group(2) not in UNITS:
        return None
    kind, mul = UNITS[m.group(2)]
    v = float(m.group(1)) * mul
    if kind == "c":
        return ("t", v / ghz)
    if kind == "bpc":
        return ("bw", v * ghz / 1.073741824)
    return (kind, v)


def same(a, b, ghz):
    pa, pb = parse(a, ghz), parse(b, ghz)
    return pa is not None and pb is not None and pa[0] == pb[0] and abs(pa[1] - pb[1]) <= 0.01 * abs(pb[1]) + 1e-9

LINE = re.compile(r"^(  ([a-z0-9_]+):\s*)([^#\s][^#]*?)(\s*#.*)$")


def sync(path, check):
    lines = open(path).read().split("\n")
    values, derived, sec = {}, [], None
    for i, line in enumerate(lines):
        top = re.match(r"^([a-z0-9_]+):", line)
        if top:
            sec = top.group(1)
        m = LINE.match(line)
        if not m or sec is None:
            continue
        values[sec + "." + m.group(2)] = m.group(3)
        d = re.search(r"# derived: = ([a-z0-9_]+\.[a-z0-9_]+)", m.group(4))
        if d:
            derived.append((i, sec + "." + m.group(2), d.group(1)))
    ghz = float(re.sub("GHz", "", values.get("core.freq", "1GHz")))
    changed = 0
    for i, key, src in derived:
        if src not in values:
            print("%s:%d: %s is marked '= %s', which the file does not have" % (path, i + 1, key, src))
            changed += 1
            continue
        m = LINE.match(lines[i])
        if m.group(3) == values[src] or same(m.group(3), values[src], ghz):
            continue
        print("%s:%d: %s: %s -> %s (= %s)" % (path, i + 1, key, m.group(3), values[src], src))
        changed += 1
        if not check:
            # keep the comment's column where the new value fits
            pad = max(1, len(m.group(3)) + len(m.group(4)) - len(m.group(4).lstrip()) - len(values[src]))
            lines[i] = m.group(1) + values[src] + " " * pad + m.group(4).lstrip()
    if changed and not check:
        open(path, "w").write("\n".join(lines))
    return changed


def main(argv):
    check = "--check" in argv
    files = [a for a in argv if a != "--check"] or sorted(glob.glob(os.path.join(HERE, "*.yaml")))
    n = sum(sync(f, check) for f in files)
    return 1 if check and n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
