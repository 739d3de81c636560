#!/usr/bin/env bash
# Peak memory does not depend on the simulated size: the simulator never allocates the region
# it simulates. Each pair of runs differs only in size (64x apart); the larger one's peak RSS
# (ru_maxrss of the child, from wait4) may exceed the smaller one's by at most 12 MiB: 4 MiB,
# plus the snapshot that exact bulk stepping takes of the caches once an operation or a run is
# long enough (models/model_bulk.c: about 9 bytes per cached line, so 5 MiB for these machines'
# 34 MiB of cache, and the same for any size past that), and no run may exceed 64 MiB (the
# issue's bound for the bundled machines' caches). Not timed.
# Under ASan (a Sanitize build) the absolute bound is not checked (shadow memory adds its own),
# and the children run with the allocator's quarantine off: freed blocks held in quarantine
# count in RSS, so a longer run's churn (up to ASan's 256 MiB quarantine) passed for memory
# that grows with size (CI on 2026-12-07: 38.7 against 52.3 MiB at 64 MiB and 4 GiB; 27.6
# against 30.3 with the quarantine off). The comparison between sizes is still made.
source "$(dirname "$0")/common.bash"
need_python

SAN=0
grep -qa -- '__asan_init' "$CLEARSIM_BIN" && SAN=1

python3 - "$CLEARSIM_BIN" "$SAN" <<'EOF' || fail "peak RSS depends on the simulated size (above)"
import os, subprocess, sys

binary, sanitized = sys.argv[1], sys.argv[2] == "1"
MARGIN_KB, LIMIT_KB = 12 * 1024, (1 << 60) if sanitized else 64 * 1024

env = dict(os.environ)
if sanitized:
    env["ASAN_OPTIONS"] = ":".join(x for x in (env.get("ASAN_OPTIONS", ""),
                                               "quarantine_size_mb=0") if x)

def peak_kb(args):
    p = subprocess.Popen([binary, "run"] + args + ["--format", "csv", "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        print(f"FAIL clearsim run {' '.join(args)}: status {status}: {err.strip()}")
        sys.exit(1)
    return ru.ru_maxrss  # KiB on Linux

PAIRS = [
    (["--machine", "zen3-epyc-7j13", "--workload", "mmap", "-p", "2MB", "--caller", "extent"],
     "1GB", "64GB"),
    (["--machine", "zen3-epyc-7j13", "--workload", "mmap", "-p", "1GB", "--caller", "page"],
     "1GB", "64GB"),
    (["--machine", "zen3-epyc-7j13", "-k", "1MB", "-f", "rep_stosb"], "64MB", "4GB"),
    (["--machine", "graviton3", "-k", "1MB"], "64MB", "4GB"),
]
bad = 0
for base, small, large in PAIRS:
    a = peak_kb(base + ["-s", small])
    b = peak_kb(base + ["-s", large])
    ok = b <= a + MARGIN_KB and max(a, b) <= LIMIT_KB
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {' '.join(base)}: peak RSS {small} {a} KiB, "
          f"{large} {b} KiB")
sys.exit(1 if bad else 0)
EOF
