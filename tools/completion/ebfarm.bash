# SPDX-License-Identifier: BSD-3-Clause
# ebfarm.bash - bash completion for ebfarm: subcommands, each one's options as its --help lists them, farm files after `up`, `soak` and `sim`, farm names after --farm.
#
# Installed as <datadir>/bash-completion/completions/ebfarm; in a source
# tree, `source tools/completion/ebfarm.bash`. It completes the `ebfarm`
# program found on the command line (a path or $PATH) and the repository's
# ./ebfarm wrapper, which runs <build>/tools/ebfarm (EBFARM_BUILD, default
# ./build) and also takes `test` and `fuzz`. It never builds anything.
#
# Nothing is listed here: the subcommands come from `ebfarm help`, the
# options of each from `ebfarm SUB --help`, and an option's value from the
# word that follows it in that text: a|b|c (or "a | b | c" further on the
# line) lists the choices, FILE means a file, DIR a directory, --farm takes the name of a
# farm that is up (a directory with farm.state under $EBFARM_RUN_DIR, else
# /run/ebfarm), anything else in capitals is typed by hand. A usage line
# "usage: ebfarm SUB a|b|c ..." gives the actions completed after SUB;
# after `events ACTION` come event files (*.ebfev).

# The program to ask: sets _ebfarm_prog, and _ebfarm_wrapper to 1 for the
# repository-root wrapper. Returns 1 when there is nothing to ask.
_ebfarm_program()
{
    local cmd=${COMP_WORDS[0]} path dir
    cmd=${cmd/#\~/$HOME}
    if [[ $cmd == */* ]]; then
        path=$cmd
    else
        path=$(type -P -- "$cmd") || return 1
    fi
    dir=${path%/*}
    _ebfarm_wrapper=0
    _ebfarm_prog=$path
    if [[ -f $dir/meson.build && -f $dir/tools/cli/ebfarm.c ]]; then
        _ebfarm_wrapper=1
        _ebfarm_prog=${EBFARM_BUILD:-$dir/build}/tools/ebfarm
    fi
    [[ -x $_ebfarm_prog ]]
}

# The subcommands of `ebfarm help`: its lines "  NAME ..." under "commands:".
_ebfarm_subcommands()
{
    local line in=0 re='^  ([a-z]+)( |$)'
    while IFS= read -r line; do
        [[ $line == commands:* ]] && in=1 && continue
        ((in)) && [[ $line =~ $re ]] && printf '%s\n' "${BASH_REMATCH[1]}"
    done < <("$_ebfarm_prog" help 2>/dev/null)
    ((_ebfarm_wrapper)) && printf '%s\n' test fuzz
}

# The options that TEXT names (--word), each once, then --help.
_ebfarm_options()
{
    local text=$1 re='(^|[^a-z0-9-])(--[a-z0-9][a-z0-9-]*)' seen=' ' IFS=' '
    while [[ $text =~ $re ]]; do
        [[ $seen == *" ${BASH_REMATCH[2]} "* ]] || seen+="${BASH_REMATCH[2]} "
        text=${text#*"${BASH_REMATCH[0]}"}
    done
    [[ $seen == *' --help '* ]] || seen+='--help '
    printf '%s\n' $seen
}

# The value of option OPT in help TEXT: prints "choices A B C", "file",
# "svg", "farm", "text" (typed by hand), or nothing for an option that takes
# no value.
_ebfarm_value()
{
    local text=$1 opt=$2 line meta rest
    local re="(^|[^a-z0-9-])$opt[ =]([^ ,]+)(.*)"
    local bar='([a-z0-9-]+( \| [a-z0-9-]+)+)'
    [[ $opt == --farm ]] && echo farm && return
    while IFS= read -r line; do
        [[ $line =~ $re ]] || continue
        meta=${BASH_REMATCH[2]%%[])]*} rest=${BASH_REMATCH[3]}
        if [[ $meta =~ ^[a-z0-9-]+(\|[a-z0-9-]+)+$ ]]; then
            echo "choices ${meta//|/ }"
        elif [[ $meta == FILE.svg ]]; then
            echo svg
        elif [[ $meta == FILE* ]]; then
            echo file
        elif [[ $meta == DIR ]]; then
            echo dir
        elif [[ $meta =~ ^[A-Z\'] ]]; then
            if [[ $rest =~ $bar ]]; then
                echo "choices ${BASH_REMATCH[1]//|/}"
            else
                echo text
            fi
        else
            continue
        fi
        return
    done <<<"$text"
}

# Names of the farms that are up.
_ebfarm_farms()
{
    local f
    for f in "${EBFARM_RUN_DIR:-/run/ebfarm}"/*/farm.state; do
        [[ -f $f ]] || continue
        f=${f%/farm.state}
        printf '%s\n' "${f##*/}"
    done
}

# Files (those matching GLOB) and directories, as filenames.
_ebfarm_files()
{
    local cur=$1 glob=$2 IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -X "!$glob" -- "$cur") $(compgen -d -- "$cur"))
}

_ebfarm()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev sub help value IFS=$'\n'
    local _ebfarm_prog _ebfarm_wrapper
    COMPREPLY=()
    _ebfarm_program || return 0
    if ((COMP_CWORD == 1)); then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_ebfarm_subcommands)" -- "$cur"))
        fi
        return 0
    fi
    sub=${COMP_WORDS[1]}
    case $sub in
    help | fuzz) return 0 ;;
    test)
        ((_ebfarm_wrapper)) && [[ $cur == -* ]] &&
            COMPREPLY=($(compgen -W '--sanitize' -- "$cur"))
        return 0
        ;;
    esac
    help=$("$_ebfarm_prog" "$sub" --help 2>/dev/null) || return 0
    local act="^usage: [^ ]+ $sub ([a-z]+(\\|[a-z]+)+) "
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    [[ $prev == = ]] && ((COMP_CWORD > 2)) && prev=${COMP_WORDS[COMP_CWORD - 2]}
    [[ $cur == = ]] && cur=
    if [[ $prev == --* ]]; then
        value=$(_ebfarm_value "$help" "$prev")
        case $value in
        farm) COMPREPLY=($(compgen -W "$(_ebfarm_farms)" -- "$cur")); return 0 ;;
        file) _ebfarm_files "$cur" '*'; return 0 ;;
        dir) compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
        svg) _ebfarm_files "$cur" '*.svg'; return 0 ;;
        choices*) IFS=' ' read -r -a value <<<"${value#choices }"
            COMPREPLY=($(compgen -W "${value[*]}" -- "$cur")); return 0 ;;
        text) return 0 ;;
        esac
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_ebfarm_options "$help")" -- "$cur"))
    elif [[ $sub == up || $sub == soak || $sub == sim ]]; then
        _ebfarm_files "$cur" '*.yaml'
    elif [[ $help =~ $act ]]; then
        # An action first (its usage line lists them: a|b|c), then files.
        value=${BASH_REMATCH[1]}
        if ((COMP_CWORD == 2)); then
            COMPREPLY=($(compgen -W "${value//|/$'\n'}" -- "$cur"))
        elif [[ $sub == events ]]; then
            _ebfarm_files "$cur" '*.ebfev'
        fi
    fi
    return 0
}

complete -F _ebfarm ebfarm
