# common.bash - sourced by tests/cli/*.sh (not a test itself: the ctest glob is *.sh).
#
# Environment (set by ctest): CLEARSIM_BIN = the clearsim binary,
# CLEARSIM_SOURCE_DIR = the repository root. Exit codes: 0 pass, 1 fail, 77 skip.
set -euo pipefail

if [[ -z "${CLEARSIM_BIN:-}" || ! -x "${CLEARSIM_BIN}" ]]; then
    echo "FAIL: CLEARSIM_BIN is not an executable: '${CLEARSIM_BIN:-}'" >&2
    exit 1
fi
: "${CLEARSIM_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
OUT="$TMPD/stdout"
ERR="$TMPD/stderr"

fail() {
    echo "FAIL: $*" >&2
    if [[ -s "$ERR" ]]; then
        echo "--- stderr of the last clearsim run:" >&2
        head -c 2000 "$ERR" >&2
    fi
    exit 1
}

skip() {
    echo "SKIP: $*" >&2
    exit 77
}

# cs ARGS...: run clearsim, stdout to $OUT, stderr to $ERR, exit status in $RC.
cs() {
    set +e
    "$CLEARSIM_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    set -e
}

# bundled_machines: the bundled machine files to loop over, one path per line. In the
# Sanitize build (CLEARSIM_SANITIZE=1) a loop that repeats one code path over every machine
# for its numbers takes one x86-64 and one arm64 file, and says so: memory errors show on
# any machine, and the Release run checks the numbers of all.
# bundled_machines [X86 ARM]: the two of the Sanitize build (default zen3-epyc-7j13 and
# graviton3).
bundled_machines() {
    local f x86=${1:-zen3-epyc-7j13} arm=${2:-graviton3}
    if [[ "${CLEARSIM_SANITIZE:-0}" == 1 ]]; then
        echo "note: sanitize build: $x86 and $arm only (the Release build covers every machine)" >&2
        for f in "$x86" "$arm"; do echo "$CLEARSIM_SOURCE_DIR/configs/$f.yaml"; done
        return
    fi
    for f in "$CLEARSIM_SOURCE_DIR"/configs/*.yaml; do echo "$f"; done
}

need_python() {
    command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (bash .ci/setup installs it)"
}

# expect_error CODE NEEDLE ARGS...: clearsim exits CODE with exactly one line on
# stderr that starts with "clearsim: " and contains NEEDLE, and prints nothing
# on stdout.
expect_error() {
    local code=$1 needle=$2
    shift 2
    cs "$@"
    [[ $RC -eq $code ]] || fail "clearsim $*: exit $RC, expected $code"
    local lines
    lines=$(wc -l <"$ERR")
    [[ $lines -eq 1 ]] || fail "clearsim $*: $lines lines on stderr, expected 1"
    grep -q '^clearsim: ' "$ERR" || fail "clearsim $*: stderr does not start with 'clearsim: '"
    grep -qF -- "$needle" "$ERR" || fail "clearsim $*: stderr does not name '$needle'"
    [[ ! -s "$OUT" ]] || fail "clearsim $*: printed on stdout while failing"
}
