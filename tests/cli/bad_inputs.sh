#!/usr/bin/env bash
# Table-driven bad inputs (tests/bad_inputs.tsv; its header gives the columns): every case
# exits with the code of the table (2 usage, 1 runtime) and never by a signal, prints
# exactly one line on stderr that starts with "clearsim: " and contains the table's text,
# and prints nothing on stdout. All cases run; the failures are listed at the end.
source "$(dirname "$0")/common.bash"

TABLE="$CLEARSIM_SOURCE_DIR/tests/bad_inputs.tsv"
BADCLI="$CLEARSIM_SOURCE_DIR/tests/fixtures/bad_cli"
GOOD="$CLEARSIM_SOURCE_DIR/tests/fixtures/good"
[[ -r "$TABLE" ]] || fail "cannot read $TABLE"

# Generated inputs (@IN@ = this directory): FIFOs without a writer, a directory named like
# a file, YAML nesting and anchor bombs one past the bounds of sim/machine/infile.h, files
# past the size caps, and calibration data with an id given twice.
IN="$TMPD/inputs"
mkdir -p "$IN/dir.csv"
mkfifo "$IN/fifo" "$IN/fifo.csv" "$IN/fifo.yaml"
{ printf 'name: x\nisa: x86_64\nx: '; printf '[%.0s' $(seq 65); printf ']%.0s' $(seq 65); echo; } >"$IN/nest.yaml"
{ echo 'name: x'; for i in $(seq 1025); do echo "k$i: &a$i 1"; done; } >"$IN/anchors.yaml"
{ echo 'name: x'; echo 'a: &a 1'; printf 'b: ['; for i in $(seq 1025); do printf '*a, '; done; echo '*a]'; } >"$IN/aliases.yaml"
python3 -c "import sys; sys.stdout.write('size,weight\\n' + '4KB,1\\n' * 700000)" >"$IN/big.csv"
python3 -c "import sys; sys.stdout.write('name: x\\n# ' + 'x' * (4 << 20) + '\\n')" >"$IN/big.yaml"
python3 - "$CLEARSIM_SOURCE_DIR/data/calibration/zen3-epyc-7j13.yaml" "$IN/dupids.yaml" <<'PY' ||
import re, sys
text = open(sys.argv[1]).read()
head, sep, cases = text.partition("\ncases:\n")
items = cases[cases.index("  - "):]
first = re.split(r"\n(?=  - )", items)[0]
open(sys.argv[2], "w").write(head + sep + first + "\n" + first + "\n")
# a key given twice in a case, and at the top
open(sys.argv[2].replace("dupids", "dupkey"), "w").write(
    text.replace("    value: 11.82\n", "    value: 11.82\n    value: 12\n", 1))
open(sys.argv[2].replace("dupids", "duptop"), "w").write(
    text.replace("\nmachine: ", "\nmachine: zen3-epyc-7j13\nmachine: ", 1))
open(sys.argv[2].replace("dupids", "dupfit"), "w").write(
    text.replace("\nfit:\n", "\nfit:\n  wc.buffers: [8, 64]\n", 1))
PY
    fail "cannot write the calibration data with an id given twice"

# a case that blocks must fail, not hang the table
cs() {
    set +e
    timeout -k 5 60 "$CLEARSIM_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    set -e
}

host_arch=$(uname -m)
host_flags=$(grep -m1 -E '^(flags|Features)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true)

# why_not WHEN: prints why this host cannot run the case (empty: it can).
why_not() {
    local c
    IFS=',' read -ra conds <<<"$1"
    for c in "${conds[@]}"; do
        case "$c" in
        - | native) ;;
        x86_64 | aarch64)
            [[ "$host_arch" == "$c" ]] || echo "needs an $c host (this is $host_arch)"
            ;;
        lacks:*)
            if grep -qw -- "${c#lacks:}" <<<"$host_flags"; then
                echo "this host has ${c#lacks:}"
            fi
            ;;
        no-hugetlb:*)
            local n="/sys/kernel/mm/hugepages/hugepages-${c#no-hugetlb:}/nr_hugepages"
            if [[ -r "$n" && $(cat "$n") -gt 0 ]]; then
                echo "this host has ${c#no-hugetlb:} hugetlb pages reserved"
            fi
            ;;
        *) echo "BAD-CONDITION $c" ;;
        esac
    done
}

cases=0 passed=0 skipped=0
failures=()
lineno=0
while IFS= read -r line || [[ -n "$line" ]]; do
    lineno=$((lineno + 1))
    [[ -z "$line" || "$line" == \#* ]] && continue
    IFS=$'\t' read -r code needle when args <<<"$line"
    cases=$((cases + 1))
    where="bad_inputs.tsv:$lineno"
    if [[ ! "$code" =~ ^[12]$ || -z "$needle" || -z "$when" ]]; then
        failures+=("$where: malformed row (want code<TAB>needle<TAB>when<TAB>args)")
        continue
    fi
    reason=$(why_not "$when")
    if [[ "$reason" == *BAD-CONDITION* ]]; then
        failures+=("$where: unknown condition in '$when'")
        continue
    fi
    if [[ -n "$reason" ]]; then
        echo "skip $where: $(head -n1 <<<"$reason")"
        skipped=$((skipped + 1))
        continue
    fi
    case_tmp=$(mktemp -d "$TMPD/case.XXXXXX")
    args=${args//@BADCLI@/$BADCLI}
    args=${args//@GOOD@/$GOOD}
    args=${args//@TMP@/$case_tmp}
    args=${args//@IN@/$IN}
    eval "argv=($args)"
    cs "${argv[@]}"
    shown="clearsim ${argv[*]}"
    if [[ "$when" == *native* ]] && grep -q "unknown command 'native'" "$ERR"; then
        echo "skip $where: the native command does not exist yet"
        skipped=$((skipped + 1))
        continue
    fi
    lines=$(wc -l <"$ERR")
    if [[ $RC -eq 124 ]]; then
        failures+=("$where: $shown: did not finish in 60 s (a hang)")
    elif [[ $RC -gt 128 ]]; then
        failures+=("$where: $shown: killed by signal $((RC - 128))")
    elif [[ $RC -ne $code ]]; then
        failures+=("$where: $shown: exit $RC, expected $code; stderr: $(head -c 300 "$ERR")")
    elif [[ $lines -ne 1 ]]; then
        failures+=("$where: $shown: $lines lines on stderr, expected 1")
    elif ! grep -q '^clearsim: ' "$ERR"; then
        failures+=("$where: $shown: stderr does not start with 'clearsim: '")
    elif ! grep -qF -- "$needle" "$ERR"; then
        failures+=("$where: $shown: stderr lacks '$needle': $(head -c 300 "$ERR")")
    elif [[ -s "$OUT" ]]; then
        failures+=("$where: $shown: printed on stdout while failing")
    elif [[ -n "$(ls -A "$case_tmp")" ]]; then
        failures+=("$where: $shown: left files behind: $(ls -A "$case_tmp" | tr '\n' ' ')")
    else
        passed=$((passed + 1))
    fi
done <"$TABLE"

echo "bad inputs: $cases cases, $passed passed, $skipped skipped, ${#failures[@]} failed"
[[ $cases -ge 40 ]] || fail "the table has $cases cases; at least 40 are expected"
if [[ ${#failures[@]} -gt 0 ]]; then
    printf 'FAIL: %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "PASS"
