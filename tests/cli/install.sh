#!/usr/bin/env bash
# install.sh - 'cmake --install' of the build tree CLEARSIM_BIN is in, to a temporary prefix;
# then the installed clearsim, run from / with a clean environment, lists machines, runs,
# sweeps, plots and shows its man pages, finds its data when the prefix is moved, and never
# touches the source tree (strace); its bash completion completes commands, machines and
# functions; a program built with pkg-config against clearsim.h runs a prediction; a lone
# copy of the binary fails with one line naming the places tried. Skips when CLEARSIM_BIN
# is not in a CMake build tree; the man, plot, strace and pkg-config parts each skip alone
# with their reason when a tool is missing.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

bindir=$(cd "$(dirname "$CLEARSIM_BIN")" && pwd)
[[ -f "$bindir/CMakeCache.txt" ]] || skip "$bindir is not a CMake build tree (no CMakeCache.txt)"
command -v cmake >/dev/null 2>&1 || skip "cmake is not installed"
src=$(cd "$CLEARSIM_SOURCE_DIR" && pwd -P)
cache() { sed -n "s/^$1:[A-Z]*=//p" "$bindir/CMakeCache.txt" | head -n 1; }

note() { echo "note: $*" >&2; }

P="$TMPD/prefix"
HOMED="$TMPD/home"
mkdir -p "$HOMED"
cmake --install "$bindir" --prefix "$P" >"$TMPD/install.log" 2>&1 ||
    { cat "$TMPD/install.log" >&2; fail "cmake --install $bindir --prefix $P failed"; }

for f in bin/clearsim lib/libclearsim.a include/clearsim.h lib/pkgconfig/clearsim.pc \
    share/clearsim/configs/zen3-epyc-7j13.yaml share/clearsim/plots/throughput.gp \
    share/bash-completion/completions/clearsim share/zsh/site-functions/_clearsim; do
    [[ -f "$P/$f" ]] || fail "cmake --install did not install $f"
done
n_src=$(find "$src/configs" -maxdepth 1 -name '*.yaml' | wc -l)
n_inst=$(find "$P/share/clearsim/configs" -maxdepth 1 -name '*.yaml' | wc -l)
[[ $n_src -eq $n_inst ]] || fail "$n_inst machine files installed, the source has $n_src"
n_src=$(find "$src/configs/sizes" -name '*.csv' | wc -l)
n_inst=$(find "$P/share/clearsim/configs/sizes" -name '*.csv' | wc -l)
[[ $n_src -eq $n_inst ]] || fail "$n_inst size distributions installed, the source has $n_src"

# ics ARGS...: the installed clearsim from /, with nothing of the caller's environment
ics() {
    set +e
    (cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" "$P/bin/clearsim" "$@") \
        >"$OUT" 2>"$ERR" </dev/null
    RC=$?
    set -e
}

ics --version
[[ $RC -eq 0 ]] || fail "installed --version: exit $RC"
ics machines
[[ $RC -eq 0 ]] || fail "installed machines: exit $RC"
grep -q '^zen3-epyc-7j13 ' "$OUT" || fail "installed machines does not list zen3-epyc-7j13"
ics machines --format json
grep -qF "\"path\": \"$P/bin/../share/clearsim/configs/zen3-epyc-7j13.yaml\"" "$OUT" ||
    grep -qF "\"path\": \"$P/share/clearsim/configs/zen3-epyc-7j13.yaml\"" "$OUT" ||
    fail "installed machines: the files are not those of the prefix: $(grep -m1 '"path"' "$OUT")"
ics run --machine zen3-epyc-7j13 -s 1MB
[[ $RC -eq 0 ]] || fail "installed run: exit $RC"
grep -q 'bytes/sec' "$OUT" || fail "installed run printed no throughput"
ics sweep --machine zen3-epyc-7j13 -f rep_stosb --sweep size=4KB..64KB:x4 -q -o "$TMPD/sweep.csv"
[[ $RC -eq 0 ]] || fail "installed sweep: exit $RC"
[[ $(wc -l <"$TMPD/sweep.csv") -eq 4 ]] || fail "installed sweep: not a header and 3 rows"
# the size distributions: an unknown name lists the installed ones
ics tune --machine zen3-epyc-7j13 --dist no-such-dist
grep -qF 'memset-fleet' "$ERR" || fail "installed tune --dist does not find configs/sizes"
# report fingerprints the source files: one clear line, not a crash
ics report --machines zen3-epyc-7j13 --check "$TMPD/none.md"
[[ $RC -eq 1 && $(wc -l <"$ERR") -eq 1 ]] && grep -q 'build tree' "$ERR" ||
    fail "installed report: exit $RC, expected 1 and one line naming the build tree"

if command -v gnuplot >/dev/null 2>&1; then
    ics plot -i "$TMPD/sweep.csv" -o "$TMPD/sweep.png"
    [[ $RC -eq 0 ]] || fail "installed plot: exit $RC"
    [[ -s "$TMPD/sweep.png" ]] || fail "installed plot wrote no image"
else
    note "plot part skipped: gnuplot is not installed (Debian: gnuplot-nox)"
fi

# man pages: clearsim(1) and one per command that --help lists
man1="$P/share/man/man1"
if [[ "$(cache HELP2MAN)" == *NOTFOUND* || -z "$(cache HELP2MAN)" ]]; then
    note "man part skipped: help2man was not found when $bindir was configured"
elif ! command -v man >/dev/null 2>&1; then
    note "man part skipped: man is not installed (Debian: man-db)"
else
    [[ -f "$man1/clearsim.1" ]] || fail "no clearsim.1 installed (is the man target built?)"
    ics --help
    cmds=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$OUT" | grep -vx help)
    for c in $cmds; do
        [[ -f "$man1/clearsim-$c.1" ]] || fail "no man page clearsim-$c.1"
    done
    (cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" MANPATH="$P/share/man" MANPAGER=cat \
        man clearsim-run) >"$TMPD/man.txt" 2>&1 || fail "man clearsim-run failed: $(head -3 "$TMPD/man.txt")"
    grep -q 'usage: clearsim run' "$TMPD/man.txt" || fail "man clearsim-run: not run's --help"
    grep -q -- '--machine' "$TMPD/man.txt" || fail "man clearsim-run: no --machine"
    man -l "$man1/clearsim.1" 2>/dev/null | grep -q 'SEE ALSO' || fail "man -l clearsim.1: no SEE ALSO"
fi

# bash completion: commands, options, machines and functions from the installed binary
command -v bash >/dev/null 2>&1 || fail "no bash"
comp=$(cd / && env -i PATH="$P/bin:/usr/bin:/bin" HOME="$HOMED" bash --norc --noprofile -c '
    source "$1"
    c() { read -ra COMP_WORDS <<<"$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("")
          COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _clearsim; echo "$1|${COMPREPLY[*]}"; }
    c "clearsim "; c "clearsim run --mach"; c "clearsim run --machine zen3"; c "clearsim run -f rep_"
    c "clearsim sweep --format "' _ "$P/share/bash-completion/completions/clearsim") ||
    fail "the bash completion does not load"
ics --help
want=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$OUT" | tr '\n' ' ' | sed 's/ $//')
grep -qxF "clearsim |$want" <<<"$comp" || fail "bash completion of commands: $(head -1 <<<"$comp")"
grep -qx 'clearsim run --mach|--machine' <<<"$comp" || fail "bash completion of run's options"
grep -qx 'clearsim run --machine zen3|zen3-epyc-7j13' <<<"$comp" ||
    fail "bash completion of machines: $(sed -n 3p <<<"$comp")"
grep -qx 'clearsim run -f rep_|rep_stosb rep_stosq rep_stosb_ahead' <<<"$comp" ||
    fail "bash completion of functions: $(sed -n 4p <<<"$comp")"
grep -qx 'clearsim sweep --format |csv json' <<<"$comp" || fail "bash completion of --format"
head -1 "$P/share/zsh/site-functions/_clearsim" | grep -qx '#compdef clearsim' ||
    fail "_clearsim is not a zsh completion function"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$P/share/zsh/site-functions/_clearsim" || fail "_clearsim: zsh syntax error"
fi

# the prefix moved elsewhere: the data is found relative to the binary
mv "$P" "$TMPD/moved"
P="$TMPD/moved"
ics run --machine graviton3 -s 64KB
[[ $RC -eq 0 ]] || fail "a moved prefix: run exit $RC"

# a lone copy of the binary: the compile-time prefix, else one line naming where it looked
mkdir -p "$TMPD/lone"
cp "$P/bin/clearsim" "$TMPD/lone/clearsim"
set +e
(cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" "$TMPD/lone/clearsim" machines) >"$OUT" 2>"$ERR"
RC=$?
set -e
datadir=$(cache CMAKE_INSTALL_PREFIX)/share/clearsim
if [[ -d "$datadir/configs" ]]; then
    [[ $RC -eq 0 ]] || fail "a lone copy: machines exit $RC with $datadir present"
    note "a lone copy found $datadir (the compile-time prefix)"
else
    [[ $RC -eq 1 ]] || fail "a lone copy: machines exit $RC, expected 1"
    [[ $(wc -l <"$ERR") -eq 1 ]] || fail "a lone copy: $(wc -l <"$ERR") lines on stderr"
    grep -qF "tried $TMPD/share/clearsim, $datadir" "$ERR" ||
        fail "a lone copy: the error does not name the places tried: $(cat "$ERR")"
    grep -qF 'CLEARSIM_DATA_DIR' "$ERR" || fail "a lone copy: the error does not name CLEARSIM_DATA_DIR"
    (cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" CLEARSIM_DATA_DIR="$P/share/clearsim" \
        "$TMPD/lone/clearsim" machines) >"$OUT" 2>"$ERR" || fail "a lone copy with CLEARSIM_DATA_DIR"
    grep -q '^zen3-epyc-7j13 ' "$OUT" || fail "a lone copy with CLEARSIM_DATA_DIR lists no machine"
fi

# the installed binary never touches the source tree (every file system call, traced)
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
    for args in "machines" "run --machine zen3-epyc-7j13 -s 1MB" \
        "sweep --machine zen3-epyc-7j13 --sweep size=4KB,8KB -q" "tune --dist nope" \
        "plot -i $TMPD/sweep.csv -o $TMPD/sweep2.png" "--help"; do
        # shellcheck disable=SC2086
        (cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" strace -f -qq -e trace=%file \
            -o "$TMPD/trace" "$P/bin/clearsim" $args) >/dev/null 2>&1 || true
        [[ -s "$TMPD/trace" ]] || fail "strace wrote no trace for clearsim $args"
        if grep -F "\"$src" "$TMPD/trace" | grep -qE "\"$src(/|\")"; then
            fail "installed clearsim $args touched the source tree: $(grep -F "\"$src" "$TMPD/trace" | head -3)"
        fi
    done
else
    note "strace part skipped: strace is not installed or cannot trace here"
fi

# a program built against the installed header and pkg-config file
cc=$(cache CMAKE_C_COMPILER)
[[ -x "$cc" ]] || cc=$(command -v cc || true)
if [[ -z "$cc" ]] || ! command -v pkg-config >/dev/null 2>&1; then
    note "pkg-config part skipped: no C compiler or no pkg-config"
else
    san=()
    [[ "$(cache CMAKE_BUILD_TYPE)" != Sanitize ]] || san=(-fsanitize=address,undefined)
    export PKG_CONFIG_PATH="$P/lib/pkgconfig"
    flags=$(pkg-config --cflags --libs --static clearsim) || fail "pkg-config clearsim failed"
    pdata=$(pkg-config --variable=datadir clearsim)
    # shellcheck disable=SC2086
    "$cc" -std=c11 -Wall -Wextra -Werror "${san[@]}" "$src/tests/fixtures/install/predict.c" \
        -o "$TMPD/predict" $flags 2>"$ERR" || fail "predict.c does not build with pkg-config"
    (cd / && env -i PATH=/usr/bin:/bin HOME="$HOMED" CLEARSIM_DATA_DIR="$pdata" \
        "$TMPD/predict") >"$OUT" 2>"$ERR" || fail "the pkg-config program failed"
    grep -q '^version .* machine zen3-epyc-7j13 bytes_per_sec [1-9]' "$OUT" ||
        fail "the pkg-config program: $(cat "$OUT")"
fi
echo "PASS"
