#!/usr/bin/env bash
# faults.sh - writes that fail part-way, as on a full disk: a file-size limit
# (ulimit -f, with SIGXFSZ ignored so that write(2) fails with EFBIG) cuts the
# output of a sweep at sizes from 1 KiB up. Each cut run exits 1 with
# one line naming the file; FILE itself is never written partial (absent, or
# the old file); every complete line of FILE.partial is a row of the full
# sweep, in order, and none is lost by the next cut; and a --resume without
# the limit then completes the sweep identically. The same limit on run and
# detect -o leaves an existing output file as it was.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
need_python

A=(--machine zen3-epyc-7j13 --sweep function=rep_stosb,movnti --sweep size=4KB..1MB:x2 -q)
cs sweep "${A[@]}" --jobs 2
[[ $RC -eq 0 ]] || fail "the full sweep: exit $RC"
cp "$OUT" "$TMPD/full.csv"
full_bytes=$(wc -c <"$TMPD/full.csv")

# limited CMD...: run clearsim with a file-size limit of $BLOCKS KiB (bash counts -f in KiB)
limited() {
    set +e
    (
        trap '' XFSZ
        ulimit -f "$BLOCKS"
        exec "$CLEARSIM_BIN" "$@"
    ) >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    set -e
}

prev=0
cut_runs=0
for BLOCKS in 1 2 3 4 6 8; do
    D="$TMPD/b$BLOCKS"
    mkdir -p "$D"
    limited sweep "${A[@]}" -o "$D/s.csv" --jobs 2
    if [[ $RC -eq 0 ]]; then
        # the limit was large enough for everything
        cmp -s "$D/s.csv" "$TMPD/full.csv" || fail "$BLOCKS blocks: exit 0 but a different file"
        continue
    fi
    cut_runs=$((cut_runs + 1))
    [[ $RC -eq 1 ]] || fail "$BLOCKS blocks: exit $RC, expected 1"
    [[ $(wc -l <"$ERR") -eq 1 ]] && grep -q "^clearsim: sweep: .*s.csv.*cannot write" "$ERR" ||
        fail "$BLOCKS blocks: stderr is not one line naming the file: $(cat "$ERR")"
    [[ ! -e "$D/s.csv" ]] || fail "$BLOCKS blocks: a partial FILE was left"
    [[ -z "$(ls -A "$D" | grep -v '^s.csv.partial$')" ]] || fail "$BLOCKS blocks: left $(ls -A "$D")"
    python3 - "$D/s.csv.partial" "$TMPD/full.csv" <<'PY' || fail "$BLOCKS blocks: FILE.partial is not made of full rows"
import sys
part = open(sys.argv[1]).read().split("\n")
full = open(sys.argv[2]).read().split("\n")
complete = part[:-1]  # the last piece has no line end: cut (or empty)
if not complete:
    sys.exit(0)  # the cut came inside the header: nothing was completed
assert complete[0] == full[0], "not the header"
rows = set(full[1:])
for r in complete[1:]:
    assert r in rows, "not a row of the full sweep: %r" % r[:80]
assert len(set(complete[1:])) == len(complete) - 1, "a row is given twice"
# in point order: each run appends its points in order
points = [int(r.split(",")[0]) for r in complete[1:]]
assert points == sorted(points), points
PY
    # a resume without the limit completes it identically
    cs sweep "${A[@]}" -o "$D/s.csv" --resume --jobs 2
    [[ $RC -eq 0 ]] || fail "$BLOCKS blocks: the resume: exit $RC"
    cmp -s "$D/s.csv" "$TMPD/full.csv" || fail "$BLOCKS blocks: the resume differs from the full sweep"
    [[ ! -e "$D/s.csv.partial" ]] || fail "$BLOCKS blocks: the resume left FILE.partial"
done
[[ $cut_runs -ge 3 ]] || fail "only $cut_runs of the limits cut the sweep (the file is $full_bytes bytes)"

# a limited resume keeps every row it started with: cut it again and again
D="$TMPD/again"
mkdir -p "$D"
BLOCKS=2
limited sweep "${A[@]}" -o "$D/s.csv" --jobs 2
[[ $RC -eq 1 ]] || fail "the first cut: exit $RC"
for BLOCKS in 3 4 5 6 8; do
    cp "$D/s.csv.partial" "$D/before"
    limited sweep "${A[@]}" -o "$D/s.csv" --resume --jobs 2
    [[ $RC -le 1 ]] || fail "resume under $BLOCKS blocks: exit $RC"
    if [[ $RC -eq 0 ]]; then
        cmp -s "$D/s.csv" "$TMPD/full.csv" || fail "the limited resume completed a different file"
        break
    fi
    # every complete line it started with is still there, in place
    python3 - "$D/s.csv.partial" "$D/before" <<'PY' || fail "resume under $BLOCKS KiB lost rows"
import sys
after = open(sys.argv[1]).read().split("\n")[:-1]
before = open(sys.argv[2]).read().split("\n")[:-1]
assert after[:len(before)] == before, "the earlier rows changed"
PY
done

# run -o and detect -o: an existing file is left as it was
printf 'old\n' >"$TMPD/keep.json"
BLOCKS=1
limited run --machine zen3-epyc-7j13 -s 64MB -k 4KB --format json -o "$TMPD/keep.json"
[[ $RC -eq 1 ]] || fail "run -o under the limit: exit $RC"
grep -q "keep.json.*File too large" "$ERR" || fail "run -o under the limit: $(cat "$ERR")"
[[ "$(cat "$TMPD/keep.json")" == old ]] || fail "run -o under the limit changed the file"
printf 'old\n' >"$TMPD/keep.yaml"
limited detect -o "$TMPD/keep.yaml"
[[ $RC -eq 1 ]] || fail "detect -o under the limit: exit $RC: $(cat "$ERR")"
grep -q "keep.yaml.*File too large" "$ERR" || fail "detect -o under the limit: $(cat "$ERR")"
[[ "$(cat "$TMPD/keep.yaml")" == old ]] || fail "detect -o under the limit changed the file"
[[ -z "$(ls -A "$TMPD" | grep '^\.keep')" ]] || fail "a temporary was left: $(ls -A "$TMPD")"
echo "PASS"
