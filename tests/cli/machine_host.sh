#!/usr/bin/env bash
# --machine host says what it chose and why: one note on stderr names the file and the vendor,
# family and model that matched (as /proc/cpuinfo gives them on x86-64); -q drops the note.
# When the host is a guest and the file describes bare metal (identity.guest is not true), one
# warning says so and points to 'clearsim detect', with or without -q.
#
# Skips: a host no machine file matches (clearsim detect makes one).
source "$(dirname "$0")/common.bash"

cs run --machine host -s 1MB -f memset
if [[ $RC -ne 0 ]] && grep -q 'no machine file matches' "$ERR"; then
    skip "no bundled machine file matches this host: $(head -c 300 "$ERR")"
fi
[[ $RC -eq 0 ]] || fail "run --machine host: exit $RC"
name=$(sed -n "s/^# machine '\([^']*\)' (simulated)$/\1/p" "$OUT")
[[ -n "$name" ]] || fail "no machine line in the report"
notes=$(grep -c "^clearsim: run: note: --machine host: $name (.*$name.yaml): vendor " "$ERR" || true)
[[ $notes -eq 1 ]] || fail "expected one note naming $name and its file, got $notes"
if [[ $(uname -m) == x86_64 ]]; then
    fam=$(awk -F: '/^cpu family/ {printf "0x%x", $2; exit}' /proc/cpuinfo)
    mod=$(awk -F: '/^model[ \t]*:/ {printf "0x%x", $2; exit}' /proc/cpuinfo)
    grep -qF "family $fam, model $mod match this host" "$ERR" ||
        fail "the note does not give family $fam and model $mod"
fi
file=$(sed -n "s/^clearsim: run: note: --machine host: $name (\(.*\)): vendor .*/\1/p" "$ERR")
[[ -f "$file" ]] || fail "the note names '$file', which is not a file"
warnings=$(grep -c '^clearsim: run: warning: --machine host: ' "$ERR" || true)
[[ $warnings -le 1 ]] || fail "$warnings warnings; at most one expected"
if grep -qw hypervisor /proc/cpuinfo && ! grep -qE '^  guest: true' "$file"; then
    [[ $warnings -eq 1 ]] || fail "a guest matched the bare-metal file $name without a warning"
    grep -q "this host is a guest of hypervisor '.*', the file describes bare metal" "$ERR" ||
        fail "the warning does not say guest against bare metal"
    grep -qF "'clearsim detect'" "$ERR" || fail "the warning does not point to clearsim detect"
fi

cs run --machine host -s 1MB -f memset -q
[[ $RC -eq 0 ]] || fail "run --machine host -q: exit $RC"
! grep -q ': note: ' "$ERR" || fail "-q still printed the note"
[[ $(grep -c ': warning: ' "$ERR" || true) -eq $warnings ]] || fail "-q changed the warnings"
echo "ok: --machine host chose $name"
