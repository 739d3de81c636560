#!/usr/bin/env bash
# docs/VALIDATION.md and the trust file data/validation.csv are current: `clearsim report
# --validation --check` recomputes their inputs fingerprint (the corpus data/published/,
# the machine files, the sources; nothing runs) and compares it with each file's. Skipped
# only while the corpus has no file.
source "$(dirname "$0")/common.bash"

REGEN="clearsim report --validation --output docs/VALIDATION.md --trust data/validation.csv"
compgen -G "$CLEARSIM_SOURCE_DIR/data/published/*.yaml" >/dev/null || skip "no corpus file in data/published"
for f in docs/VALIDATION.md data/validation.csv; do
    [[ -f "$CLEARSIM_SOURCE_DIR/$f" ]] || fail "$f does not exist: generate it with '$REGEN'"
done
cs report --validation --check "$CLEARSIM_SOURCE_DIR/docs/VALIDATION.md" \
    --trust "$CLEARSIM_SOURCE_DIR/data/validation.csv"
[[ $RC -eq 0 ]] || fail "docs/VALIDATION.md or data/validation.csv is out of date: regenerate with '$REGEN' (exit $RC)"
[[ $(grep -c "is up to date" "$OUT") -eq 2 ]] || fail "--check: expected two 'is up to date' lines"
echo "ok"
