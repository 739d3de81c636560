#!/usr/bin/env python3
"""Turn raw/<config>/<workload>.r<N>.{perf,delta,info} into tables.md, results.csv and thp-<config>.csv.

perf file: 13 counted events in this order (see measure.sh):
  mm_page_alloc order0 zeroed-user, mm_page_alloc THP-gfp order 1..9, page-faults, minor-faults, major-faults
If README_head.md exists, README.md = README_head.md + tables.md + README_tail.md (if present).
"""
import glob, os, re, statistics, sys
from collections import defaultdict

OUT = os.path.dirname(os.path.abspath(__file__))
# raw/ from measure.sh: its OUT directory (argument 1), else next to this script
RAW = os.path.join(sys.argv[1] if len(sys.argv) > 1 else OUT, "raw")
EVENTS = ["o%d" % o for o in range(10)] + ["page-faults", "minor-faults", "major-faults"]
WL_ORDER = ["cbuild", "python", "sort", "xz"]
CFG_ORDER = ["madvise", "always", "always-mthp"]


def label(order):
    kb = 4 << order
    return "%dMB" % (kb // 1024) if kb >= 1024 else "%dKB" % kb


def read_perf(path):
    vals = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        f = line.split(",")
        try:
            vals.append(int(f[0]))
        except ValueError:
            vals.append(None)
    assert len(vals) == len(EVENTS), (path, vals)
    return dict(zip(EVENTS, vals))


def read_kv(path):
    d = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 2:
            try:
                d[p[0]] = int(p[1])
            except ValueError:
                d[p[0]] = " ".join(p[1:])
    return d


def read_info(path):
    d = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition("=")
        d[k] = v
    return d


def enabled_sizes(cfg):
    """orders whose per-size knob allows anon faults (always/inherit/madvise) in this config"""
    p = os.path.join(RAW, cfg, "settings.txt")
    orders = {0}
    if not os.path.exists(p):
        return orders
    for line in open(p):
        m = re.match(r"hugepages-(\d+)kB: .*\[(\w+)\]", line)
        if m and m.group(2) != "never":
            orders.add((int(m.group(1)) // 4).bit_length() - 1)
    return orders


def main():
    runs = defaultdict(list)   # (cfg, wl) -> list of dict
    for perf in sorted(glob.glob(os.path.join(RAW, "*", "*.r*.perf"))):
        cfg = os.path.basename(os.path.dirname(perf))
        m = re.match(r"(.+)\.r(\d+)\.perf$", os.path.basename(perf))
        wl, rep = m.group(1), int(m.group(2))
        base = perf[:-5]
        r = {"rep": rep, "perf": read_perf(perf), "delta": read_kv(base + ".delta"), "info": read_info(base + ".info")}
        runs[(cfg, wl)].append(r)
    cfgs = [c for c in CFG_ORDER if any(k[0] == c for k in runs)]
    md = []
    csv_rows = ["config,workload,rep,wall_s,size,order,clears,page_faults,sysfs_2M_anon_fault_alloc,"
                "vmstat_thp_fault_alloc,vmstat_thp_fault_fallback,vmstat_thp_collapse_alloc"]
    agg = {}
    summary = []
    for cfg in cfgs:
        orders_en = enabled_sizes(cfg)
        md.append("### THP `%s`\n" % cfg)
        settings = open(os.path.join(RAW, cfg, "settings.txt")).read().strip()
        md.append("Settings during the runs:\n\n```\n%s\n```\n" % settings)
        total = defaultdict(float)
        wls = [w for w in WL_ORDER if (cfg, w) in runs] + sorted(w for (c, w) in runs if c == cfg and w not in WL_ORDER)
        for wl in wls:
            rs = sorted(runs[(cfg, wl)], key=lambda r: r["rep"])
            n = len(rs)
            mean = {o: statistics.mean(r["perf"]["o%d" % o] for r in rs) for o in range(10)}
            for r in rs:
                for o in range(10):
                    d = r["delta"]
                    csv_rows.append(",".join(str(x) for x in [
                        cfg, wl, r["rep"], r["info"].get("wall_s", ""), label(o), o, r["perf"]["o%d" % o],
                        r["perf"]["page-faults"], d.get("hugepages-2048kB/anon_fault_alloc", ""),
                        d.get("thp_fault_alloc", ""), d.get("thp_fault_fallback", ""), d.get("thp_collapse_alloc", "")]))
            show = sorted(set(o for o in range(10) if o in orders_en or o == 9 or mean[o] > 0))
            nclr = sum(mean[o] for o in show)
            nbytes = sum(mean[o] * (4096 << o) for o in show)
            md.append("#### %s, THP `%s` (mean of %d run%s)\n" % (wl, cfg, n, "s" if n > 1 else ""))
            md.append("| size | clears (mean) | clears per run | fraction of clears | fraction of cleared bytes |")
            md.append("|---|---:|---|---:|---:|")
            for o in show:
                per = " / ".join(str(r["perf"]["o%d" % o]) for r in rs)
                md.append("| %s | %.0f | %s | %.4f | %.4f |" % (
                    label(o), mean[o], per, mean[o] / nclr if nclr else 0, mean[o] * (4096 << o) / nbytes if nbytes else 0))
                total[o] += mean[o]
            summary.append((cfg, wl, show, mean, nclr, nbytes))
            not_en = [label(o) for o in range(2, 9) if o not in orders_en]
            md.append("")
            md.append("Cleared: %.1f MiB per run (mean). Wall time per run: %s s. page-faults per run: %s." % (
                nbytes / 2**20, " / ".join(r["info"].get("wall_s", "?") for r in rs),
                " / ".join(str(r["perf"]["page-faults"]) for r in rs)))
            if not_en:
                md.append("mTHP sizes %s are `never` in this config, so they cannot occur (their counters read 0)." % ", ".join(not_en))
            md.append("")
            md.append("Raw system-wide counter deltas per run (cross-check; includes any other process on the host):\n")
            keys = ["thp_fault_alloc", "thp_fault_fallback", "thp_fault_fallback_charge", "thp_collapse_alloc",
                    "thp_zero_page_alloc", "thp_split_pmd", "thp_deferred_split_page", "pgfault", "pgmajfault"]
            keys += sorted(k for k in rs[0]["delta"] if k.startswith("hugepages-") and any(r["delta"].get(k) for r in rs))
            md.append("| counter | " + " | ".join("run %d" % r["rep"] for r in rs) + " |")
            md.append("|---|" + "---:|" * n)
            for k in keys:
                if k in rs[0]["delta"]:
                    md.append("| %s | %s |" % (k, " | ".join(str(r["delta"].get(k, "")) for r in rs)))
            md.append("")
        # aggregate over workloads: sum of per-workload mean counts
        show = [o for o in range(10) if total[o] > 0]
        nclr = sum(total[o] for o in show)
        nbytes = sum(total[o] * (4096 << o) for o in show)
        md.append("#### All workloads, THP `%s` (sum of per-workload means)\n" % cfg)
        md.append("| size | clears | fraction of clears | fraction of cleared bytes |")
        md.append("|---|---:|---:|---:|")
        for o in show:
            md.append("| %s | %.0f | %.4f | %.4f |" % (label(o), total[o], total[o] / nclr, total[o] * (4096 << o) / nbytes))
        md.append("")
        agg[cfg] = {o: total[o] for o in show}
        summary.append((cfg, "ALL (sum)", show, dict(total), nclr, nbytes))
        with open(os.path.join(OUT, "thp-%s.csv" % cfg), "w") as f:
            f.write("size,weight\n")
            for o in show:
                f.write("%s,%d\n" % (label(o), round(total[o])))
    sm = ["## Summary: clears per size (count / fraction of clears / fraction of cleared bytes)\n"]
    for cfg in cfgs:
        rows = [s for s in summary if s[0] == cfg]
        orders = sorted(set(o for s in rows for o in s[2] if s[3].get(o, 0) > 0 or o in (0, 9)))
        sm.append("THP `%s`:\n" % cfg)
        sm.append("| workload | " + " | ".join(label(o) for o in orders) + " | total clears | cleared MiB |")
        sm.append("|---|" + "---:|" * (len(orders) + 2))
        for (_, wl, show, mean, nclr, nbytes) in rows:
            cells = []
            for o in orders:
                c = mean.get(o, 0)
                cells.append("%.0f / %.2f%% / %.1f%%" % (c, 100 * c / nclr if nclr else 0, 100 * c * (4096 << o) / nbytes if nbytes else 0))
            sm.append("| %s | %s | %.0f | %.0f |" % (wl, " | ".join(cells), nclr, nbytes / 2**20))
        sm.append("")
    md = sm + ["## Per workload and THP setting\n"] + md
    open(os.path.join(OUT, "results.csv"), "w").write("\n".join(csv_rows) + "\n")
    open(os.path.join(OUT, "tables.md"), "w").write("\n".join(md) + "\n")
    head = os.path.join(OUT, "README_head.md")
    if os.path.exists(head):
        tail = os.path.join(OUT, "README_tail.md")
        txt = open(head).read() + "\n" + "\n".join(md) + "\n"
        if os.path.exists(tail):
            txt += "\n" + open(tail).read()
        open(os.path.join(OUT, "README.md"), "w").write(txt)
    print("\n".join(md))


if __name__ == "__main__":
    main()
