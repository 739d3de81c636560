#!/usr/bin/env python3
"""miss_shares.py - how each folio clear's time a 4 KiB page follows the host's state, over every
`crosscheck --gains` CSV in this folder that has the _ahead probes (issue 44).

Per pass: the NT zero probe's time a page (probe-zero; its _ahead twin's without the miss) and,
natively, one call per folio with CLZERO, rep stosb and MOVNTI, and page-at-a-time rep stosb.
Prints each pass, then a least-squares line of each clear's page time against the probe's, with
its r^2. The model scales every kind of miss with the probe's (sim/study/host_miss.c
hostmiss_sets): a kind that followed it would show a slope near its share and a small
intercept. Nothing here sets a value. usage: python3 miss_shares.py [DIR]   (stdlib only)
"""
import csv
import glob
import os
import sys

GIB = 2 ** 30


def page_ns(gib):
    return 4096 / (gib * GIB) * 1e9 if gib else 0.0


def fit(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    slope = sxy / sxx
    icpt = my - slope * mx
    ss = sum((b - my) ** 2 for b in y)
    res = sum((b - (icpt + slope * a)) ** 2 for a, b in zip(x, y))
    return slope, icpt, 1 - res / ss


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = []
    for fn in sorted(glob.glob(os.path.join(d, "zen5-guest-*gains*.csv"))):  # the Zen 5 guest's runs
        r = list(csv.DictReader(l for l in open(fn) if not l.startswith("#")))
        if not r or not r[0].get("probe_zero_ahead_gib_per_s") or "probe_latency_ns" not in r[0]:
            continue
        passes = {}
        for x in r:
            passes.setdefault(x["pass"], {})[x["case"]] = x
        for p, cs in sorted(passes.items()):
            x = next(iter(cs.values()))

            def nat(c):
                v = cs.get(c, {}).get("native_gib_per_s")
                return page_ns(float(v)) if v else None

            row = (os.path.basename(fn), p, float(x["probe_latency_ns"] or 0),
                   page_ns(float(x["probe_zero_gib_per_s"])),
                   page_ns(float(x["probe_zero_ahead_gib_per_s"])),
                   nat("extent-clzero"), nat("extent-rep_stosb"), nat("page-rep_stosb"),
                   nat("extent-movnti"))
            if None not in row:
                rows.append(row)
    print("file pass latency_ns | zero zero_ahead | clzero extent page movnti   (ns a 4 KiB page)")
    for r in rows:
        print("%s %s %6.1f | %6.1f %6.1f | %6.1f %6.1f %6.1f %6.1f" % r)
    z = [r[3] for r in rows]
    print("\n%d passes of %d runs; against probe-zero's ns a page:" % (len(rows),
                                                                       len({r[0] for r in rows})))
    for name, k in (("extent-clzero", 5), ("extent-rep_stosb", 6), ("page-rep_stosb", 7),
                    ("extent-movnti", 8)):
        s, i, r2 = fit(z, [r[k] for r in rows])
        print("  %-17s slope %.3f  intercept %6.1f ns  r^2 %.2f" % (name, s, i, r2))


if __name__ == "__main__":
    main()
