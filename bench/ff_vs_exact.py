#!/usr/bin/env python3
"""Compare fast-forward against exact simulation: every numeric output field.

usage: bench/ff_vs_exact.py CLEARSIM MACHINE -- RUN-ARGS...
Prints the largest relative difference and the field it is in.
"""
import csv, io, subprocess, sys, time

def run(binary, machine, args, exact):
    cmd = [binary, "run", "--machine", machine, "--format", "csv"] + args + (["--exact"] if exact else [])
    t0 = time.time()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return next(csv.DictReader(io.StringIO(out))), time.time() - t0

def main():
    binary, machine = sys.argv[1], sys.argv[2]
    args = sys.argv[sys.argv.index("--") + 1:]
    ff, tf = run(binary, machine, args, False)
    ex, te = run(binary, machine, args, True)
    worst, where = 0.0, "-"
    for k, v in ex.items():
        try:
            a, b = float(v), float(ff[k])
        except (ValueError, TypeError):
            continue
        if k in ("error_bound", "extrapolated"):
            continue
        d = abs(a - b) / max(abs(a), 1.0)
        if d > worst:
            worst, where = d, k
    print(f"{machine} {' '.join(args)}: max rel diff {worst*100:.3f}% ({where}); "
          f"GB/s exact {float(ex['bytes_per_sec'])/2**30:.3f} ff {float(ff['bytes_per_sec'])/2**30:.3f}; "
          f"time exact {te:.2f}s ff {tf:.2f}s; bound {float(ff['error_bound'])*100:.3f}%")

if __name__ == "__main__":
    main()
