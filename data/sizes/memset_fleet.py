#!/usr/bin/env python3
"""memset_fleet.py - configs/sizes/memset-fleet.csv from Fleetbench's fleet-wide
memset size distribution.

Input: google/fleetbench, fleetbench/libc/distributions/Memset_Fleet.csv
(commit 764c06b324b7500a3368c42f145f1d9a696e47fe); its first line is
SIZE:PROBABILITY pairs of memset call sizes in bytes, the next two lines are
alignment distributions (not used).

Output: the mass of each power-of-two bucket (2^(k-1), 2^k] written at its upper
edge, the first bucket being (0, 64] at 64 bytes (clearsim tune's sizes are
whole cache lines). Zero-byte calls clear nothing and are left out.

usage: memset_fleet.py Memset_Fleet.csv > configs/sizes/memset-fleet.csv
"""
import sys

line = open(sys.argv[1]).read().splitlines()[0]
mass = {}
for item in line.split(","):
    if not item:
        continue
    size, p = item.split(":")
    size, p = int(size), float(p)
    if size == 0:
        continue
    edge = 64
    while edge < size:
        edge *= 2
    mass[edge] = mass.get(edge, 0.0) + p
total = sum(mass.values())


def fmt(b):
    for unit, div in (("MB", 1 << 20), ("KB", 1 << 10)):
        if b % div == 0:
            return "%d%s" % (b // div, unit)
    return "%dB" % b


print("# memset-fleet: sizes of user memset calls across Google's fleet, in power-of-two")
print("# buckets (2^(k-1), 2^k] at their upper edge, the first (0, 64B] at 64B.")
print("# source: Fleetbench (google/fleetbench) fleetbench/libc/distributions/Memset_Fleet.csv, "
      "commit 764c06b, first line (size:probability); bucketed by data/sizes/memset_fleet.py")
print("# Zero-byte calls (%.3f%% of calls) are left out; weights are fractions of calls." %
      (100 * float(dict(i.split(":") for i in line.split(",") if i).get("0", 0))))
print("size,weight")
for edge in sorted(mass):
    print("%s,%.6g" % (fmt(edge), mass[edge] / total))
