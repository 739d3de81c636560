#!/usr/bin/env bash
# docs/man/gen-man.sh CLEARSIM HELP2MAN OUTDIR - write OUTDIR/clearsim.1 and one
# OUTDIR/clearsim-CMD.1 per command, each from the binary's own --help (help2man), then
# OUTDIR/man.stamp. The commands are those 'clearsim --help' lists, so a new command gets
# its page without a change here. Run by the build (CMakeLists.txt, target man).
set -euo pipefail

bin=$1 help2man=$2 out=$3
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the commands and their one-line summaries, from the "Commands:" block of --help
"$bin" --help | sed -n '/^Commands:$/,/^$/p' | sed -n 's/^  \([a-z][a-z0-9-]*\)  *\(.*\)$/\1\t\2/p' |
    grep -v '^help	' >"$tmp/commands" || true
[[ -s "$tmp/commands" ]] || { echo "gen-man.sh: no commands in '$bin --help'" >&2; exit 1; }

rm -f "$out"/clearsim.1 "$out"/clearsim-*.1

see_also() { # see_also EXCEPT: the other pages, as a SEE ALSO section for help2man --include
    local except=$1 first=1 c
    {
        echo "[SEE ALSO]"
        [[ "$except" == clearsim ]] || { printf '.BR clearsim (1)'; first=0; }
        while IFS=$'\t' read -r c _; do
            [[ "clearsim-$c" == "$except" ]] && continue
            [[ $first -eq 1 ]] || printf ',\n'
            printf '.BR clearsim\\-%s (1)' "$c"
            first=0
        done <"$tmp/commands"
        echo
    }
}

# clearsim.1
{
    see_also clearsim
    printf '[FILES]\n'
    printf 'Machine files and size distributions: \\fIDATADIR\\fP/configs; plot templates:\n'
    printf '\\fIDATADIR\\fP/plots, where \\fIDATADIR\\fP is $CLEARSIM_DATA_DIR, else\n'
    printf 'share/clearsim of the prefix clearsim is installed in.\n'
} >"$tmp/main.h2m"
"$help2man" --no-info --no-discard-stderr --name "predict how fast a CPU clears memory" \
    --include "$tmp/main.h2m" --output "$out/clearsim.1" "$bin"

# clearsim-CMD.1, through a wrapper that help2man runs as "clearsim-CMD --help|--version"
while IFS=$'\t' read -r cmd summary; do
    w="$tmp/clearsim-$cmd"
    printf '#!/bin/sh\nif [ "$1" = --version ]; then exec "%s" --version; fi\nexec "%s" %s "$@"\n' \
        "$bin" "$bin" "$cmd" >"$w"
    chmod +x "$w"
    see_also "clearsim-$cmd" >"$tmp/$cmd.h2m"
    "$help2man" --no-info --no-discard-stderr --name "$summary" --include "$tmp/$cmd.h2m" \
        --version-string "$("$bin" --version | sed 's/^clearsim //')" \
        --output "$out/clearsim-$cmd.1" "$w"
done <"$tmp/commands"
touch "$out/man.stamp"
