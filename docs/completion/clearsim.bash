# bash completion for clearsim (installed as share/bash-completion/completions/clearsim).
#
# Everything is read from the clearsim being completed, so that it cannot drift from it:
# the commands from 'clearsim --help', each command's options from 'clearsim CMD --help',
# machine names from 'clearsim machines', kernel names from 'clearsim functions' and the
# values of --format from the command's help ("--format text|json").

# _clearsim_first_column CMD...: the first column of a table with a header line.
_clearsim_first_column() {
    "$@" 2>/dev/null | sed -n '2,$s/^\([^ ][^ ]*\).*/\1/p'
}

_clearsim_commands() {
    "$1" --help 2>/dev/null | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p'
}

_clearsim_options() {
    "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ ,/])--?[a-zA-Z][a-zA-Z0-9-]*' |
        sed 's/^[ ,/]//' | sort -u
}

_clearsim() {
    local cur prev bin cmd i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    bin=${COMP_WORDS[0]}
    command -v "$bin" >/dev/null 2>&1 || bin=clearsim

    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} != -* ]]; then
            cmd=${COMP_WORDS[i]}
            break
        fi
    done
    if [[ -z "$cmd" ]]; then
        if [[ "$cur" == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version -h -V" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_commands "$bin")" -- "$cur")
        fi
        return 0
    fi
    if [[ "$cmd" == help ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_commands "$bin")" -- "$cur")
        return 0
    fi

    case "$prev" in
    --machine | -m)
        mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_first_column "$bin" machines) host" -- "$cur")
        compopt -o default 2>/dev/null
        return 0
        ;;
    --machines)
        mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_first_column "$bin" machines) all" -- "$cur")
        return 0
        ;;
    --function | -f)
        mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_first_column "$bin" functions)" -- "$cur")
        return 0
        ;;
    --format)
        local formats
        formats=$("$bin" "$cmd" --help 2>/dev/null | grep -oE -- '--format [a-z|]+' | head -n 1 |
            sed 's/^--format //; s/|/ /g')
        mapfile -t COMPREPLY < <(compgen -W "$formats" -- "$cur")
        return 0
        ;;
    --input | -i | --output | -o | --data | --sizes-file | --check | --figures)
        compopt -o default 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return 0
        ;;
    esac
    if [[ "$cur" == -* || -z "$cur" ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_clearsim_options "$bin" "$cmd")" -- "$cur")
    fi
    return 0
}

complete -F _clearsim clearsim
