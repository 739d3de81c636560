#!/usr/bin/env bash
# run --output FILE: the file holds exactly what stdout would; it is written through a
# temporary and a rename, so a failure (a write error) or an interrupt (SIGTERM, SIGINT)
# leaves an existing FILE as it was and no temporary behind.
source "$(dirname "$0")/common.bash"
need_python

D="$TMPD/out"
mkdir "$D"
M=(--machine zen3-epyc-7j13 -s 1MB -q)

# the same bytes as stdout, in every format; nothing on stdout; no temporary left
for fmt in text csv json; do
    cs run "${M[@]}" --format "$fmt"
    [[ $RC -eq 0 ]] || fail "run --format $fmt: exit $RC"
    cp "$OUT" "$TMPD/stdout.$fmt"
    cs run "${M[@]}" --format "$fmt" --output "$D/r.$fmt"
    [[ $RC -eq 0 ]] || fail "run --output: exit $RC"
    [[ ! -s "$OUT" ]] || fail "run --output: printed on stdout"
    cmp -s "$TMPD/stdout.$fmt" "$D/r.$fmt" || fail "--output $fmt differs from stdout"
done
[[ "$(ls -A "$D" | tr '\n' ' ')" == "r.csv r.json r.text " ]] || fail "left: $(ls -A "$D")"

# '-' is standard output
cs run "${M[@]}" --format csv --output -
[[ $RC -eq 0 ]] && cmp -s "$TMPD/stdout.csv" "$OUT" || fail "--output - is not stdout"

# an existing file is replaced, and keeps its mode
echo old >"$D/keep.csv"
chmod 0640 "$D/keep.csv"
cs run "${M[@]}" --format csv --output "$D/keep.csv"
[[ $RC -eq 0 ]] && cmp -s "$TMPD/stdout.csv" "$D/keep.csv" || fail "the existing file was not replaced"
[[ $(stat -c %a "$D/keep.csv") == 640 ]] || fail "mode $(stat -c %a "$D/keep.csv"), expected 640"

# a write error (file size limit 0, SIGXFSZ ignored: write fails with EFBIG): exit 1,
# one line, the old file untouched, no temporary. stderr goes through a pipe, which the
# size limit does not apply to.
echo old >"$D/keep.csv"
set +e
(ulimit -f 0 && trap '' XFSZ && exec "$CLEARSIM_BIN" run "${M[@]}" --format csv \
    --output "$D/keep.csv") 2>&1 >/dev/null | cat >"$ERR"
RC=${PIPESTATUS[0]}
set -e
[[ $RC -eq 1 ]] || fail "write error: exit $RC, expected 1"
[[ $(wc -l <"$ERR") -eq 1 ]] && grep -q '^clearsim: run: --output .*keep.csv: cannot write' "$ERR" ||
    fail "write error: stderr is not one line naming the file"
[[ "$(cat "$D/keep.csv")" == old ]] || fail "write error: the old file changed"
[[ "$(ls -A "$D" | tr '\n' ' ')" == "keep.csv r.csv r.json r.text " ]] ||
    fail "write error: left $(ls -A "$D")"

# an interrupt during the run: the process dies of the signal, the old file is untouched
# and the temporary is gone. The run is long (1 TiB x 1000 loops, exact) and the signal is
# sent once the temporary exists, so the outcome does not depend on timing.
# Every terminating signal that can be caught behaves as SIGINT does (sim/output/outfile.c).
for sig in TERM INT HUP QUIT USR1 USR2 PIPE ALRM XFSZ XCPU VTALRM PROF; do
    python3 - "$CLEARSIM_BIN" "$D" "$sig" "$CLEARSIM_SOURCE_DIR/tests/fixtures/good/minimal.yaml" <<'PY' ||
import os, signal, subprocess, sys, time
binary, d, sig, machine = sys.argv[1:]
target = os.path.join(d, "keep.csv")
def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
              signal.SIGUSR2, signal.SIGPIPE, signal.SIGALRM, signal.SIGXFSZ, signal.SIGXCPU,
              signal.SIGVTALRM, signal.SIGPROF):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen([binary, "run", "--machine", machine, "-s", "1TB", "-l", "1000", "--exact",
                      "-q", "--output", target], preexec_fn=default_signals,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
deadline = time.monotonic() + 60
while not any(n.startswith(".keep.csv.") for n in os.listdir(d)):
    if p.poll() is not None:
        sys.exit("clearsim ended (status %d) before its temporary appeared: %s"
                 % (p.returncode, p.stderr.read().decode()))
    if time.monotonic() > deadline:
        p.kill()
        sys.exit("no temporary file appeared within 60 s")
    time.sleep(0.01)
p.send_signal(getattr(signal, "SIG" + sig))
try:
    p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("SIG%s did not end clearsim within 60 s" % sig)
if p.returncode != -getattr(signal, "SIG" + sig):
    sys.exit("status %d, expected death by SIG%s" % (p.returncode, sig))
PY
        fail "interrupt by SIG$sig"
    [[ "$(cat "$D/keep.csv")" == old ]] || fail "SIG$sig: the old file changed"
    [[ "$(ls -A "$D" | tr '\n' ' ')" == "keep.csv r.csv r.json r.text " ]] ||
        fail "SIG$sig: left $(ls -A "$D")"
done
echo "PASS"
