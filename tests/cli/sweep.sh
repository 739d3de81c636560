#!/usr/bin/env bash
# sweep.sh - clearsim sweep: --jobs does not change the output, shards merge
# to the whole sweep, --resume completes a partial file identically, points
# that 'run' rejects become rows with an error, the json contract, and usage
# errors.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
need_python

# Small sizes so that the whole sweep simulates in well under a second.
# Some of its points fail (stp on x86-64, --chunk > --size): --keep-going runs them all,
# and the status is 1.
A=(--machine zen3-epyc-7j13 --sweep function=rep_stosb,movnti,clzero,stp
    --sweep size=4KB..1MB:x4 --sweep chunk=4KB,64KB -q --keep-going)

cs sweep "${A[@]}" --jobs 1
[[ $RC -eq 1 ]] || fail "sweep --jobs 1: exit $RC (some points fail)"
cp "$OUT" "$TMPD/j1.csv"
grep -q "16 of 40 points failed" "$ERR" || fail "sweep: no count of the failed points on stderr"
grep -q "^clearsim: sweep: point 30 (function=stp size=4KiB chunk=4KB): --function stp: " "$ERR" ||
    fail "sweep: the failed points are not listed on stderr"

cs sweep "${A[@]}" --jobs 2
[[ $RC -eq 1 ]] || fail "sweep --jobs 2: exit $RC (some points fail)"
cmp -s "$OUT" "$TMPD/j1.csv" || fail "sweep --jobs 2 differs from --jobs 1"

python3 - "$TMPD/j1.csv" <<'EOF' || fail "sweep csv contents"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# 4 functions x 5 sizes (4KiB 16KiB 64KiB 256KiB 1MiB) x 2 chunks, first axis slowest
assert len(rows) == 40, len(rows)
assert [int(r["point"]) for r in rows] == list(range(40))
assert rows[0]["sweep.function"] == "rep_stosb" and rows[0]["sweep.size"] == "4KiB"
assert rows[1]["sweep.chunk"] == "64KB" and rows[2]["sweep.size"] == "16KiB"
assert rows[10]["sweep.function"] == "movnti"
for r in rows:
    f, size, chunk = r["sweep.function"], r["sweep.size"], r["sweep.chunk"]
    if f == "stp":  # an arm64 kernel on an x86-64 machine
        assert "stp" in r["error"] and r["bytes_per_sec"] == "", r
    elif size in ("4KiB", "16KiB") and chunk == "64KB":  # --chunk larger than --size
        assert "--chunk" in r["error"] and r["machine"] == "", r
    else:
        assert r["error"] == "" and float(r["bytes_per_sec"]) > 0, r
        assert r["function"] == f and int(r["chunk_bytes"]) in (4096, 65536)
EOF

# shards merge (header once, rows sorted by point) to the unsharded csv
for i in 1 2 3; do
    cs sweep "${A[@]}" --shard "$i/3" --jobs 2 -o "$TMPD/s$i.csv"
    [[ $RC -eq 1 ]] || fail "sweep --shard $i/3: exit $RC (some points fail)"
    [[ ! -s "$OUT" ]] || fail "sweep -o: printed on stdout"
done
{
    head -n 1 "$TMPD/s1.csv"
    tail -q -n +2 "$TMPD/s1.csv" "$TMPD/s2.csv" "$TMPD/s3.csv" | sort -t, -k1,1n
} >"$TMPD/merged.csv"
cmp -s "$TMPD/merged.csv" "$TMPD/j1.csv" || fail "merged shards differ from the whole sweep"
[[ $(($(wc -l <"$TMPD/s2.csv") - 1)) -eq 13 ]] || fail "shard 2/3 does not hold 13 points"

# --resume after a partial file (the first rows, the last one cut) completes it
head -n 12 "$TMPD/j1.csv" >"$TMPD/r.csv"
printf '11,rep_stosb,1MiB,64KB,zen3' >>"$TMPD/r.csv"
cs sweep "${A[@]}" -o "$TMPD/r.csv" --resume --jobs 2
[[ $RC -eq 1 ]] || fail "sweep --resume: exit $RC (some points fail)"
cmp -s "$TMPD/r.csv" "$TMPD/j1.csv" || fail "--resume did not complete the file identically"
# a shard resumes too
head -n 4 "$TMPD/s2.csv" >"$TMPD/r2.csv"
cs sweep "${A[@]}" --shard 2/3 -o "$TMPD/r2.csv" --resume
cmp -s "$TMPD/r2.csv" "$TMPD/s2.csv" || fail "--resume of a shard differs"
# progress is never lost (FILE.partial holds every completed row):
#  - a resume from a FILE.partial with a cut last line completes the sweep identically and
#    removes FILE.partial;
head -n 12 "$TMPD/j1.csv" >"$TMPD/p.csv.partial"
printf '11,rep_stosb,1MiB,64KB,zen3' >>"$TMPD/p.csv.partial"
cs sweep "${A[@]}" -o "$TMPD/p.csv" --resume --jobs 2
[[ $RC -eq 1 ]] || fail "sweep --resume from FILE.partial: exit $RC (some points fail)"
cmp -s "$TMPD/p.csv" "$TMPD/j1.csv" || fail "--resume from FILE.partial did not complete identically"
[[ ! -e "$TMPD/p.csv.partial" ]] || fail "the completed sweep left FILE.partial"
#  - a resume killed (SIGKILL: nothing can clean up) once it has appended a row keeps every
#    row the earlier FILE.partial held, and the new ones (exact 16-64 MiB clears on one
#    thread: each row reaches FILE.partial as its point ends)
K=(--machine zen3-epyc-7j13 --sweep size=16MB..64MB:x2 --sweep function=rep_stosb,movnti
    --exact -q --jobs 1)
python3 - "$CLEARSIM_BIN" "$TMPD" "${K[@]}" <<'PY' || fail "a killed --resume lost rows of FILE.partial"
import os, signal, subprocess, sys, time
binary, d, args = sys.argv[1], sys.argv[2], sys.argv[3:]
part = os.path.join(d, "k.csv.partial")
def rows():
    try:
        return open(part).read().splitlines()
    except FileNotFoundError:
        return []
# a first run, killed after its second row
p = subprocess.Popen([binary, "sweep"] + args + ["-o", os.path.join(d, "k.csv"), "--resume"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
deadline = time.monotonic() + 120
while len(rows()) < 3:
    if p.poll() is not None or time.monotonic() > deadline:
        p.kill()
        sys.exit("the sweep ended or stalled before two rows reached FILE.partial (status %s)"
                 % p.poll())
    time.sleep(0.02)
p.send_signal(signal.SIGKILL)
p.wait()
before = rows()
assert len(before) >= 3, before
# a resume, killed as soon as it has appended one more row
p = subprocess.Popen([binary, "sweep"] + args + ["-o", os.path.join(d, "k.csv"), "--resume"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
deadline = time.monotonic() + 120
while len(rows()) <= len(before):
    if p.poll() is not None or time.monotonic() > deadline:
        p.kill()
        sys.exit("the resume ended or stalled before appending a row (status %s)" % p.poll())
    time.sleep(0.02)
p.send_signal(signal.SIGKILL)
p.wait()
after = rows()
complete = [r for r in before if r.count(",") == before[0].count(",")]
assert after[:len(complete)] == complete, "the rows of the earlier FILE.partial changed"
assert len(after) > len(complete)
assert not os.path.exists(os.path.join(d, "k.csv")), "a killed sweep wrote FILE"
PY
#  - a fresh sweep does not throw away the rows of an interrupted one
head -n 5 "$TMPD/j1.csv" >"$TMPD/f.csv.partial"
cp "$TMPD/f.csv.partial" "$TMPD/f.keep"
expect_error 1 "f.csv.partial holds the rows of an interrupted sweep: give --resume" \
    sweep "${A[@]}" -o "$TMPD/f.csv"
cmp -s "$TMPD/f.csv.partial" "$TMPD/f.keep" || fail "a refused fresh sweep changed FILE.partial"
#  - a FIFO or device as FILE gets no FILE.partial (written directly)
cs sweep --machine zen3-epyc-7j13 --sweep size=4KB -q -o /dev/null
[[ $RC -eq 0 && ! -e /dev/null.partial ]] || fail "sweep -o /dev/null: exit $RC"
#  - a kept row whose figures were edited is refused, naming its line
head -n 5 "$TMPD/j1.csv" >"$TMPD/e.csv"
python3 - "$TMPD/e.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head = lines[0].split(",")
cells = lines[3].split(",")
cells[head.index("bytes_per_sec")] = "ZZZ"
lines[3] = ",".join(cells)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect_error 1 "e.csv:4: bytes_per_sec 'ZZZ' is not a number" sweep "${A[@]}" -o "$TMPD/e.csv" --resume

# a file of another sweep is refused, and left as it was
cp "$TMPD/s1.csv" "$TMPD/other.csv"
expect_error 1 "not a point of this sweep" sweep "${A[@]}" --shard 2/3 -o "$TMPD/other.csv" --resume
cmp -s "$TMPD/other.csv" "$TMPD/s1.csv" || fail "a refused --resume changed the file"

# json: one object with a points array; --resume works on it too
J=(--machine zen3-epyc-7j13 --sweep size=4KB,64KB --sweep fill=0..255:+255 -q --format json)
cs sweep "${J[@]}" --jobs 2
[[ $RC -eq 0 ]] || fail "sweep --format json: exit $RC"
cp "$OUT" "$TMPD/all.json"
python3 - "$TMPD/all.json" <<'EOF' || fail "sweep json contract"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["points"]
p = d["points"]
assert [x["point"] for x in p] == [0, 1, 2, 3]
assert list(p[0]) == ["point", "sweep", "error", "result"], list(p[0])
assert p[1]["sweep"] == {"size": "4KB", "fill": "255"}, p[1]["sweep"]
for x in p:
    assert x["error"] is None and x["result"]["size_bytes"] in (4096, 65536)
    assert x["result"]["fill"] == int(x["sweep"]["fill"])
EOF
python3 -c "
import json,sys; d=json.load(open('$TMPD/all.json')); d['points']=d['points'][:2]
json.dump(d, open('$TMPD/part.json','w'))"
cs sweep "${J[@]}" -o "$TMPD/part.json" --resume
cmp -s "$TMPD/part.json" "$TMPD/all.json" || fail "json --resume differs"

# machines with different pmu maps: one header for all (the union of counters)
cs sweep --sweep machine=zen3-epyc-7j13,graviton3,no-such-machine -s 64KB -q --keep-going
[[ $RC -eq 1 ]] || fail "sweep over machines: exit $RC (some points fail)"
python3 - "$OUT" <<'EOF' || fail "sweep over machines"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["machine"] for r in rows[:2]] == ["zen3-epyc-7j13", "graviton3"]
assert rows[0]["function"] == "rep_stosb" and rows[1]["function"] == "memset"
assert rows[2]["error"] and "no-such-machine" in rows[2]["error"]
EOF

# usage errors
expect_error 2 "needs a step" sweep --machine zen3-epyc-7j13 --sweep size=4KB..1MB
expect_error 2 "unknown key" sweep --machine zen3-epyc-7j13 --sweep colour=red
expect_error 2 "given twice" sweep --machine zen3-epyc-7j13 --sweep size=4KB --sweep size=8KB
expect_error 2 "--shard" sweep --machine zen3-epyc-7j13 --sweep size=4KB --shard 0/2
expect_error 2 "--resume needs --output" sweep --machine zen3-epyc-7j13 --sweep size=4KB --resume
expect_error 2 "nothing to sweep" sweep --machine zen3-epyc-7j13
expect_error 2 "--machine is required" sweep --sweep size=4KB
expect_error 2 "--format" sweep --machine zen3-epyc-7j13 --sweep size=4KB --format text
expect_error 2 "--fill" sweep --machine zen3-epyc-7j13 --sweep size=4KB --fill 300
expect_error 1 "no-such-machine" sweep --machine no-such-machine --sweep size=4KB

# a sweep whose every point fails exits 1 and lists them; without --keep-going it stops after
# the first failed batch and leaves FILE as it was (FILE.partial keeps the rows)
cs sweep --machine zen3-epyc-7j13 --sweep function=rep_stosbb -q
[[ $RC -eq 1 ]] || fail "a sweep whose only point fails: exit $RC"
grep -qF "point 0 (function=rep_stosbb): --function 'rep_stosbb': unknown function (did you mean 'rep_stosb'?)" "$ERR" ||
    fail "the failed point is not listed with its reason"
echo keep >"$TMPD/stop.csv"
cs sweep --machine zen3-epyc-7j13 --sweep fill=1,2 --sweep function=clzero,rep_stosb \
    --sweep size=4KB..1MB:x2 -q --jobs 1 -o "$TMPD/stop.csv"
[[ $RC -eq 1 ]] || fail "a sweep with failed points: exit $RC"
grep -q "stopped after the batch with the first failed point" "$ERR" || fail "no note that the sweep stopped"
[[ $(cat "$TMPD/stop.csv") == keep ]] || fail "a stopped sweep changed FILE"
[[ $(($(wc -l <"$TMPD/stop.csv.partial") - 1)) -eq 2 ]] || fail "FILE.partial does not hold the first batch"
rm -f "$TMPD/stop.csv.partial"
cs sweep --machine zen3-epyc-7j13 --sweep fill=1,2 --sweep function=clzero,rep_stosb \
    --sweep size=4KB..1MB:x2 -q --jobs 1 -o "$TMPD/stop.csv" --keep-going
[[ $RC -eq 1 && $(($(wc -l <"$TMPD/stop.csv") - 1)) -eq 36 ]] || fail "--keep-going: exit $RC, or not every row"
grep -q "18 of 36 points failed" "$ERR" || fail "--keep-going: no count of the failed points"

# function=all: every function of the workload; the machine's others are skipped, not failed
cs sweep --machine zen3-epyc-7j13 --sweep function=all -s 64KB -q
[[ $RC -eq 0 ]] || fail "sweep function=all: exit $RC"
python3 - "$OUT" <<'EOF' || fail "sweep function=all"
import csv, sys
rows = {r["sweep.function"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert {"rep_stosb", "clzero", "avx2", "stp", "dc_zva", "memset"} <= set(rows), sorted(rows)
assert rows["stp"]["error"].startswith("skipped: "), rows["stp"]["error"]
assert rows["clzero"]["error"] == "" and float(rows["clzero"]["bytes_per_sec"]) > 0
EOF
# machine=all: every catalogued machine
cs sweep --sweep machine=all -s 64KB -q
[[ $RC -eq 0 ]] || fail "sweep machine=all: exit $RC"
n=$("$CLEARSIM_BIN" machines --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["machines"]))')
[[ $(($(wc -l <"$OUT") - 1)) -eq $n ]] || fail "sweep machine=all: not one row per machine ($n)"
# an option that does not apply to a swept workload fails its points
cs sweep --machine zen3-epyc-7j13 --preempt full --sweep workload=memset,mmap -q --keep-going
[[ $RC -eq 1 ]] || fail "--preempt on memset points: exit $RC"
grep -q "preempt applies only to mmap and fault workloads and to memset --caller extent, not to memset" "$ERR" ||
    fail "--preempt on memset points: no reason"

# function=all: a point that fails for another reason than its machine still fails
cs sweep --machine zen3-epyc-7j13 -s 1MB --sweep function=all --sweep chunk=4KB,2MB -q
[[ $RC -eq 1 ]] || fail "function=all with --chunk > --size: exit $RC"
grep -q "point 1 (function=rep_stosb chunk=2MB): --chunk (2MiB) is larger than --size" "$ERR" ||
    fail "function=all: an invalid point was not a failure"
grep -q "skipped" "$ERR" && fail "function=all: a skip listed as a failure"
# function=all lists the workload's own functions only, and needs one workload
cs sweep --machine zen3-epyc-7j13 --workload load --sweep function=all -s 64KB -q
[[ $RC -eq 0 ]] || fail "function=all on load: exit $RC"
python3 - "$OUT" <<'EOF' || fail "function=all on load: not the load kernels"
import csv, sys
f = [r["sweep.function"] for r in csv.DictReader(open(sys.argv[1]))]
assert f == ["load8", "load32", "load64", "load_x16", "load_q32"], f
EOF
expect_error 2 "function=all lists the functions of one workload" \
    sweep --machine zen3-epyc-7j13 --sweep function=all --sweep workload=memset,load
# options that do not apply: a usage error before any point runs
expect_error 2 "--preempt applies only to mmap and fault workloads and to memset --caller extent, not to memset --caller chunked" \
    sweep --machine zen3-epyc-7j13 --preempt full --sweep size=4KB,8KB
expect_error 2 "--fault applies only to the mmap and fault workloads, not to memset" \
    sweep --machine zen3-epyc-7j13 --sweep fault=demand,populate
# a stopped sweep resumed: its kept failed row is still a failure (exit 1, listed)
rm -f "$TMPD/res.csv" "$TMPD/res.csv.partial"
cs sweep --machine zen3-epyc-7j13 --sweep function=clzero,rep_stosb --sweep fill=1 \
    --sweep size=4KB..64KB:x2 -q --jobs 1 -o "$TMPD/res.csv"
[[ $RC -eq 1 && -s "$TMPD/res.csv.partial" && ! -e "$TMPD/res.csv" ]] || fail "stop: exit $RC"
cs sweep --machine zen3-epyc-7j13 --sweep function=clzero,rep_stosb --sweep fill=1 \
    --sweep size=4KB..64KB:x2 -q --jobs 1 -o "$TMPD/res.csv" --resume --keep-going
[[ $RC -eq 1 ]] || fail "a resume that keeps failed rows: exit $RC"
grep -q "^clearsim: sweep: point 0 (function=clzero fill=1 size=4KiB): --fill 1" "$ERR" ||
    fail "a resume does not list the kept failed row"
grep -q "5 of 10 points failed" "$ERR" || fail "a resume does not count the kept failed rows"
echo "PASS"
