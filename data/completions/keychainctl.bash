#!/bin/bash

__keychainctl_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__keychainctl_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__keychainctl_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__keychainctl_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_keychainctl() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    store|lookup|search|clear|lock|unlock|add-generic-password|find-generic-password|delete-generic-password|add-internet-password|find-internet-password|delete-internet-password|list|create|delete|set-default|passwd|status|check|import|export|doctor|pam-unlock|lock-policy|access|audit|slot|exec|share|help)
        # Offer subcommand argument completions
        "_keychainctl_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'store lookup search clear lock unlock add-generic-password find-generic-password delete-generic-password add-internet-password find-internet-password delete-internet-password list create delete set-default passwd status check import export doctor pam-unlock lock-policy access audit slot exec share help' -- "${cur}"))
        ;;
    esac
}

_keychainctl_store() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--label --collection)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--label')
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_keychainctl_lookup() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

_keychainctl_search() {
    repeating_flags=()
    non_repeating_flags=(--all --unlock --json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

_keychainctl_clear() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

_keychainctl_lock() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--collection)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    esac
}

_keychainctl_unlock() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --recovery --tpm2 --fido2 --with-pin --with-fido2-pin --version -h --help)
    repeating_options=()
    non_repeating_options=(--collection)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    esac
}

_keychainctl_add-generic-password() {
    repeating_flags=()
    non_repeating_flags=(-U --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p -w)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    '-w')
        return
        ;;
    esac
}

_keychainctl_find-generic-password() {
    repeating_flags=()
    non_repeating_flags=(-w --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    esac
}

_keychainctl_delete-generic-password() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    esac
}

_keychainctl_add-internet-password() {
    repeating_flags=()
    non_repeating_flags=(-U --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p -w)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    '-w')
        return
        ;;
    esac
}

_keychainctl_find-internet-password() {
    repeating_flags=()
    non_repeating_flags=(-w --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    esac
}

_keychainctl_delete-internet-password() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -r -P -p)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-r')
        return
        ;;
    '-P')
        return
        ;;
    '-p')
        return
        ;;
    esac
}

_keychainctl_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_create() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--alias)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--alias')
        return
        ;;
    esac
}

_keychainctl_delete() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_set-default() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_passwd() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --recovery --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_status() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_check() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        return
        ;;
    esac
}

_keychainctl_import() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    gnome-keyring|oo7|kwallet|backup)
        # Offer subcommand argument completions
        "_keychainctl_import_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'gnome-keyring oo7 kwallet backup' -- "${cur}"))
        ;;
    esac
}

_keychainctl_import_gnome-keyring() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --password-stdin --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--dir')
        return
        ;;
    esac
}

_keychainctl_import_oo7() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --password-stdin --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--dir')
        return
        ;;
    esac
}

_keychainctl_import_kwallet() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --password-stdin --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--dir')
        return
        ;;
    esac
}

_keychainctl_import_backup() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_export() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--collection)
    non_repeating_options=(--output -o --format)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    '--format')
        __keychainctl_add_completions -W 'backup'$'\n''v1'$'\n''v0'
        return
        ;;
    '--collection')
        return
        ;;
    esac
}

_keychainctl_doctor() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--pam-dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--pam-dir')
        return
        ;;
    esac
}

_keychainctl_pam-unlock() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_keychainctl_lock-policy() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

_keychainctl_access() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    whoami|list|allow|revoke|group|learn|mode)
        # Offer subcommand argument completions
        "_keychainctl_access_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'whoami list allow revoke group learn mode' -- "${cur}"))
        ;;
    esac
}

_keychainctl_access_whoami() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_access_list() {
    repeating_flags=()
    non_repeating_flags=(--json --paths --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_access_allow() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--app --unit --credential)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--app')
        return
        ;;
    '--unit')
        return
        ;;
    '--credential')
        return
        ;;
    esac
}

_keychainctl_access_revoke() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--app)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--app')
        return
        ;;
    esac
}

_keychainctl_access_group() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|remove)
        # Offer subcommand argument completions
        "_keychainctl_access_group_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add remove' -- "${cur}"))
        ;;
    esac
}

_keychainctl_access_group_add() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--app)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--app')
        return
        ;;
    esac
}

_keychainctl_access_group_remove() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--app)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--app')
        return
        ;;
    esac
}

_keychainctl_access_learn() {
    repeating_flags=()
    non_repeating_flags=(--status --apply --discard --dry-run --password-stdin --version -h --help)
    repeating_options=(--except)
    non_repeating_options=(--for)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--for')
        return
        ;;
    '--except')
        return
        ;;
    esac
}

_keychainctl_access_mode() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_audit() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|verify|summary)
        # Offer subcommand argument completions
        "_keychainctl_audit_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show verify summary' -- "${cur}"))
        ;;
    esac
}

_keychainctl_audit_show() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--since --app)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--since')
        return
        ;;
    '--app')
        return
        ;;
    esac
}

_keychainctl_audit_verify() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_audit_summary() {
    repeating_flags=()
    non_repeating_flags=(--json --paths --version -h --help)
    repeating_options=()
    non_repeating_options=(--since --app)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--since')
        return
        ;;
    '--app')
        return
        ;;
    esac
}

_keychainctl_slot() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|add|remove|test)
        # Offer subcommand argument completions
        "_keychainctl_slot_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list add remove test' -- "${cur}"))
        ;;
    esac
}

_keychainctl_slot_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--collection)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    esac
}

_keychainctl_slot_add() {
    repeating_flags=()
    non_repeating_flags=(--with-recovery-key --with-pin --with-fido2-pin --qr --version -h --help)
    repeating_options=()
    non_repeating_options=(--collection --label --pcrs)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    '--label')
        return
        ;;
    '--pcrs')
        return
        ;;
    esac
}

_keychainctl_slot_remove() {
    repeating_flags=()
    non_repeating_flags=(--with-recovery-key --version -h --help)
    repeating_options=()
    non_repeating_options=(--collection)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    esac
}

_keychainctl_slot_test() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--collection)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--collection')
        return
        ;;
    esac
}

_keychainctl_exec() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--env --file)
    non_repeating_options=()
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--env')
        return
        ;;
    '--file')
        return
        ;;
    esac
}

_keychainctl_share() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    create|list|revoke)
        # Offer subcommand argument completions
        "_keychainctl_share_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'create list revoke' -- "${cur}"))
        ;;
    esac
}

_keychainctl_share_create() {
    repeating_flags=()
    non_repeating_flags=(--read-only --version -h --help)
    repeating_options=(--items)
    non_repeating_options=(--ttl --label)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--items')
        return
        ;;
    '--ttl')
        return
        ;;
    '--label')
        return
        ;;
    esac
}

_keychainctl_share_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_share_revoke() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

complete -o filenames -F _keychainctl keychainctl
