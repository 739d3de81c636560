#!/usr/bin/env python3
"""emr_end_study.py - how a `rep stos` call ends on Intel (Sapphire/Emerald Rapids), from the
native figures recorded on an Emerald Rapids KVM guest on 2026-12-02 (the two `crosscheck` runs
of emr-guest-20261202.yaml) and the model of that guest's file, now.

Each call of 4 KiB at DRAM scale (1 GiB cleared in 4 KiB chunks) against calls of 2 MiB: when a
call ends only once its lines are owned (string.ordered_end with end_wait commit), every 4 KiB
call waits about one memory latency; unordered (or answered), it costs what the 2 MiB calls do.
For rep_stosb, rep_stosq and glibc's memset (rep stosb above 2 KiB there), the native 4 KiB /
2 MiB ratio of each run is printed beside the model's under each way of ending, each case at
the clock measured around its native run. Nothing is measured here: the native side is the
recorded csv rows.

The runs that set it are the two above. It is judged on runs that did not: the same kind of
guest on 2026-11-30 in three host states (data/calibration/dev-emr-vm.yaml, its 4 KiB and
2 MiB cases of the same three functions), each at its clock (state 1 at 3.05 GHz, the clock
its file had then).

usage: data/native/emr_end_study.py [CLEARSIM]   (default: build/clearsim)
"""
import csv
import datetime
import os
import re
import subprocess
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))
cs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "build", "clearsim")
machine = os.path.join(here, "emr-guest-20261202.yaml")
runs = ["emr-guest-2026-12-02T1325-crosscheck.csv", "emr-guest-2026-12-02T1338-crosscheck.csv"]
ends = [("commit", ["string.ordered_end=true", "string.end_wait=commit"]),
        ("answer", ["string.ordered_end=true", "string.end_wait=answer"]),
        ("unordered", ["string.ordered_end=false"])]
chunks = {4096: "4KB", 2097152: "2MB"}
GIB = float(1 << 30)


def model(fn, chunk, ghz, sets):
    args = [cs, "run", "--machine", machine, "-f", fn, "-s", "1GB", "-k", chunks[chunk], "-q",
            "--set", "core.freq=%.3fGHz" % ghz]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    m = re.search(r"([0-9.]+) GB/sec", out)
    if not m:
        sys.exit("emr_end_study.py: no rate in: " + " ".join(args))
    return float(m.group(1))


rev = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty"], capture_output=True,
                     text=True).stdout.strip() or "unknown"
print("# data/native/emr_end_study.py: the model side run %s at clearsim %s (the model's figures"
      % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"), rev))
print("# do not depend on the host that runs it)")
print("# host of the native figures: Intel Xeon (Emerald Rapids, family 6 model 0xcf), KVM guest,")
print("# 2 vCPUs, 2026-12-02 13:25-13:49 UTC, 2.91-2.98 GHz (data/native/README.md)")
print("# GiB/s; ratio = 4 KiB calls / 2 MiB calls")
print("%-10s %-24s %8s %8s %7s" % ("function", "run (UTC)", "4KiB", "2MiB", "ratio"))
for fn in ("rep_stosb", "rep_stosq", "memset"):
    for run in runs:
        rows = {}
        for r in csv.DictReader(open(os.path.join(here, run))):
            if (r["function"] == fn and r["caller"] == "chunked" and r["fill"] == "0" and
                    int(r["size_bytes"]) == 1 << 30 and int(r["chunk_bytes"]) in chunks):
                rows[int(r["chunk_bytes"])] = r
        if len(rows) != 2:
            sys.exit("emr_end_study.py: %s lacks %s's 4 KiB or 2 MiB chunks" % (run, fn))
        nat = {c: float(rows[c]["measured_bytes_per_sec"]) / GIB for c in chunks}
        print("%-10s %-24s %8.2f %8.2f %7.3f" % (fn, "native " + run[10:25], nat[4096],
                                                 nat[2097152], nat[4096] / nat[2097152]))
        for name, sets in ends:
            mod = {c: model(fn, c, float(rows[c]["predicted_at_ghz"]), sets) for c in chunks}
            print("%-10s %-24s %8.2f %8.2f %7.3f" % ("", "  model, " + name, mod[4096],
                                                     mod[2097152], mod[4096] / mod[2097152]))

print()
print("# judged on runs that did not set it: the Emerald Rapids guest of 2026-11-30, three host")
print("# states (data/calibration/dev-emr-vm.yaml: ids without a prefix, s3-, s4-)")
print("%-10s %-24s %8s %8s %7s" % ("function", "state", "4KiB", "2MiB", "ratio"))
cal = yaml.safe_load(open(os.path.join(here, "..", "calibration", "dev-emr-vm.yaml")))["cases"]
byid = {c["id"]: c for c in cal}
for fn in ("rep_stosb", "rep_stosq", "memset"):
    for state in ("", "s3-", "s4-"):
        c4, c2 = byid.get(state + fn + "-k4KiB"), byid.get(state + fn + "-k2MiB")
        if not c4 or not c2:
            sys.exit("emr_end_study.py: dev-emr-vm.yaml lacks %s%s's 4 KiB or 2 MiB case" % (state, fn))
        print("%-10s %-24s %8.2f %8.2f %7.3f" % (fn, "native " + (state.rstrip("-") or "s1"),
                                                 c4["value"], c2["value"], c4["value"] / c2["value"]))
        ghz = {4096: float(c4.get("clock", "3.05GHz")[:-3]),
               2097152: float(c2.get("clock", "3.05GHz")[:-3])}
        for name, sets in ends:
            mod = {c: model(fn, c, ghz[c], sets) for c in chunks}
            print("%-10s %-24s %8.2f %8.2f %7.3f" % ("", "  model, " + name, mod[4096],
                                                     mod[2097152], mod[4096] / mod[2097152]))
