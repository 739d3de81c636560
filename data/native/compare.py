#!/usr/bin/env python3
"""compare.py - the native runs of mechanisms.sh next to the model's figure for
each, from the machine file detect --measure wrote on the same host the same
hour, each case predicted at the clock measured around its own run (--set
core.freq). Prints a Markdown table of medians over the rounds.

usage: data/native/compare.py RUNS.csv MACHINE.yaml [CLEARSIM]
"""
import collections, csv, json, statistics, subprocess, sys

runs, machine = sys.argv[1], sys.argv[2]
cs = sys.argv[3] if len(sys.argv) > 3 else "./build/clearsim"
GIB = 2 ** 30
groups = collections.OrderedDict()
for r in csv.DictReader(open(runs)):
    key = (r["case"].split("/")[0], r["function"], r["caller"], int(r["size_bytes"]),
           int(r["chunk_bytes"]), int(r["fill"]), int(r["loops"]))
    clk = [float(r[c]) for c in ("native.clock_ghz.before", "native.clock_ghz.after") if r[c]]
    groups.setdefault(key, []).append((float(r["native.bytes_per_sec.mean"]) / GIB,
                                       sum(clk) / len(clk) if clk else 0))

def size(b):
    for unit, n in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << n and b % (1 << n) == 0:
            return f"{b >> n}{unit}"
    return f"{b}B"

print("| case | kernel | caller | size | chunk | fill | measured GiB/s (median; the 3 rounds) | clock GHz | model | error |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (kind, fn, caller, sz, chunk, fill, loops), v in groups.items():
    med = statistics.median(x for x, _ in v)
    ghz = statistics.median(c for _, c in v if c) if any(c for _, c in v) else 0
    args = [cs, "run", "--machine", machine, "-f", fn, "--caller", caller, "-s", str(sz),
            "-l", str(loops), "--fill", str(fill), "--format", "json", "-q"]
    if chunk:
        args += ["-k", str(chunk)]
    if ghz:
        args += ["--set", f"core.freq={ghz:.3f}GHz"]
    out = subprocess.run(args, capture_output=True, text=True)
    pred = json.loads(out.stdout)["bytes_per_sec"] / GIB if out.returncode == 0 else float("nan")
    print(f"| {kind} | {fn} | {caller} | {size(sz)} | {size(chunk) if chunk else '-'} | "
          f"0x{fill:02x} | {med:.1f} ({', '.join(f'{x:.1f}' for x, _ in v)}) | {ghz:.2f} | "
          f"{pred:.1f} | {100 * (pred / med - 1):+.0f}% |")
