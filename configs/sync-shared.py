#!/usr/bin/env python3
"""Copy calibrated values into the machine files that share them.

A value a machine file takes from a calibrated machine is marked on its line with
`# shared: <machine> (...)`. After `clearsim calibrate` rewrites the calibrated file,
run this to carry the new values over; it changes nothing else and prints every change.

usage: configs/sync-shared.py [--check]   (--check: exit 1 if anything is out of date)
"""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*):\s*([^#\s][^#]*?)\s*(#.*)?$")


def values(path):
    """dotted key -> (value text, line index) for scalar keys of a machine file."""
    out, stack = {}, []
    for i, line in enumerate(open(path).read().split("\n")):
        m = KEY.match(line)
        if not m:
            hm = re.match(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*):\s*(#.*)?$", line)
            if hm:
                ind = len(hm.group(1))
                stack = [s for s in stack if s[0] < ind] + [(ind, hm.group(2))]
            continue
        ind = len(m.group(1))
        stack = [s for s in stack if s[0] < ind]
        key = ".".join([s[1] for s in stack] + [m.group(2)])
        out[key] = (m.group(3), i)
    return out


def main():
    check = "--check" in sys.argv
    stale = 0
    files = sorted(f for f in os.listdir(HERE) if f.endswith(".yaml"))
    cache = {}
    for f in files:
        path = os.path.join(HERE, f)
        lines = open(path).read().split("\n")
        vals = values(path)
        changed = False
        for key, (val, i) in vals.items():
            sm = re.search(r"#\s*shared:\s*([A-Za-z0-9_.-]+)", lines[i])
            if not sm:
                continue
            src = sm.group(1)
            if src not in cache:
                sp = os.path.join(HERE, src + ".yaml")
                cache[src] = values(sp) if os.path.exists(sp) else {}
            if key not in cache[src]:
                continue
            new = cache[src][key][0]
            if new != val:
                print(f"{f}: {key}: {val} -> {new} (from {src})")
                stale += 1
                if not check:
                    m = KEY.match(lines[i])
                    start = lines[i].index(val, len(m.group(1)) + len(m.group(2)) + 1)
                    lines[i] = lines[i][:start] + new + lines[i][start + len(val):]
                    changed = True
        if changed:
            open(path, "w").write("\n".join(lines))
    if check and stale:
        print(f"{stale} shared value(s) out of date: run configs/sync-shared.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
