#!/usr/bin/env bash
# User machine directories: CLEARSIM_MACHINES (a ':' list), then
# $XDG_CONFIG_HOME/clearsim/machines, are searched before the bundled files
# and add to them: `machines` lists the union, a user file of a bundled name
# comes first, `run --machine NAME` finds a user file, and a missing user
# directory is not an error.
source "$(dirname "$0")/common.bash"

case $(uname -m) in
x86_64) base=zen3-epyc-7j13 ;;
aarch64) base=graviton3 ;;
*) skip "no bundled machine file for $(uname -m)" ;;
esac
src="$CLEARSIM_SOURCE_DIR/configs/$base.yaml"
mkdir -p "$TMPD/a" "$TMPD/b" "$TMPD/xdg/clearsim/machines"
# name: FILE's base name, and a description to tell the copies apart
put() { sed "s/^name: $base\$/name: $2/; s/^description: .*/description: copy $3/" "$src" >"$1/$2.yaml"; }
put "$TMPD/a" mine-a "in a"
put "$TMPD/b" mine-b "in b"
put "$TMPD/b" mine-a "in b"
put "$TMPD/xdg/clearsim/machines" mine-x "in xdg"
put "$TMPD/a" "$base" "shadowing the bundled file"

n_bundled=$(ls "$CLEARSIM_SOURCE_DIR"/configs/*.yaml | wc -l)

export CLEARSIM_MACHINES="$TMPD/a:$TMPD/nonexistent:$TMPD/b" XDG_CONFIG_HOME="$TMPD/xdg"
cs machines --format json
[[ $RC -eq 0 ]] || fail "machines with user directories: exit $RC"
for name in mine-a mine-b mine-x; do
    grep -q "\"name\": \"$name\"" "$OUT" || fail "machines: $name is not listed"
done
grep -q "\"name\": \"$base\"" "$OUT" || fail "machines: the bundled $base is gone"
n=$(grep -c '"name": ' "$OUT")
[[ $n -eq $((n_bundled + 3)) ]] || fail "machines: $n machines, expected the $n_bundled bundled and 3 more"
grep -q "\"path\": \"$TMPD/a/mine-a.yaml\"" "$OUT" || fail "machines: mine-a is not a's (the first directory)"
grep -q "\"path\": \"$TMPD/a/$base.yaml\"" "$OUT" || fail "machines: the user's $base does not come first"

cs run --machine mine-b -s 64KB --format json -q
[[ $RC -eq 0 ]] || fail "run --machine mine-b: exit $RC"
grep -q '"machine": "mine-b"' "$OUT" || fail "run --machine mine-b: wrong machine"
cs run --machine mine-x -s 64KB --format json -q
[[ $RC -eq 0 ]] || fail "run --machine mine-x (XDG_CONFIG_HOME): exit $RC"

# without the user directories: the bundled files alone
export CLEARSIM_MACHINES="" XDG_CONFIG_HOME="$TMPD/none"
cs machines --format json
[[ $RC -eq 0 ]] || fail "machines without user directories: exit $RC"
n=$(grep -c '"name": ' "$OUT")
[[ $n -eq $n_bundled ]] || fail "machines: $n machines without user directories, expected $n_bundled"
expect_error 1 "mine-a" run --machine mine-a -s 64KB -q
echo "PASS"
