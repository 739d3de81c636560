#!/usr/bin/env bash
# --help / --version / help CMD exit 0 and print to stdout only; no command is a usage error.
# 'clearsim --help' lists exactly the commands of the dispatch table in sim/cli/main.c, and each
# listed command has its own help.
source "$(dirname "$0")/common.bash"

cs --help
[[ $RC -eq 0 ]] || fail "--help: exit $RC"
grep -q '^usage: clearsim <command>' "$OUT" || fail "--help: no usage line"
[[ ! -s "$ERR" ]] || fail "--help wrote to stderr"
listed=$(sed -n '/^Commands:$/,/^$/p' "$OUT" | sed -n 's/^  \([a-z]\+\) .*/\1/p' | grep -vx help | sort)
table=$(sed -n '/^static const command_t commands\[\] = {$/,/^};$/p' \
    "$CLEARSIM_SOURCE_DIR/sim/cli/main.c" | sed -n 's/^ *CMD(\([a-z]\+\),.*/\1/p' | sort)
[[ -n "$table" ]] || fail "no dispatch table found in sim/cli/main.c"
[[ "$listed" == "$table" ]] ||
    fail "--help lists '$(echo $listed)', the dispatch table has '$(echo $table)'"
for c in $table; do
    cs "$c" --help
    [[ $RC -eq 0 ]] || fail "$c --help: exit $RC"
    grep -q "^usage: clearsim $c" "$OUT" || fail "$c --help: no usage line"
done

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
