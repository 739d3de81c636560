#!/usr/bin/env bash
# --help / --version / help CMD exit 0 and print to stdout only; no command is a usage error.
source "$(dirname "$0")/common.bash"

cs --help
[[ $RC -eq 0 ]] || fail "--help: exit $RC"
grep -q '^usage: clearsim <command>' "$OUT" || fail "--help: no usage line"
for c in run machines functions; do
    grep -qE "^  $c " "$OUT" || fail "--help does not list '$c'"
done
[[ ! -s "$ERR" ]] || fail "--help wrote to stderr"

cs -h
[[ $RC -eq 0 ]] || fail "-h: exit $RC"

cs --version
[[ $RC -eq 0 ]] || fail "--version: exit $RC"
grep -qE '^clearsim [0-9]+\.[0-9]+\.[0-9]+$' "$OUT" || fail "--version: '$(cat "$OUT")'"

for c in run machines functions; do
    cs "$c" --help
    [[ $RC -eq 0 ]] || fail "$c --help: exit $RC"
    grep -q "^usage: clearsim $c" "$OUT" || fail "$c --help: no usage line"
    [[ ! -s "$ERR" ]] || fail "$c --help wrote to stderr"
    cs help "$c"
    [[ $RC -eq 0 ]] || fail "help $c: exit $RC"
    grep -q "^usage: clearsim $c" "$OUT" || fail "help $c: no usage line"
done

# run --help documents every option of the command line
cs run --help
for o in --machine --workload --size --chunk --loops --function --fill --caller --page \
    --fault --preempt --extent-cap --format --exact --seed; do
    grep -qF -- "$o" "$OUT" || fail "run --help does not mention $o"
done

expect_error 2 "no command" 
echo "PASS"
