#!/bin/bash

__dbtool_cursor_index_in_current_word() {
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
__dbtool_offer_flags_options() {
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

__dbtool_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__dbtool_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_dbtool() {
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
    __dbtool_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    init|migrate|exec|checkpoint|snapshot|backup|restore|replicate|schema|check|vacuum|optimize|stats|help)
        # Offer subcommand argument completions
        "_dbtool_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'init migrate exec checkpoint snapshot backup restore replicate schema check vacuum optimize stats help' -- "${cur}"))
        ;;
    esac
}

_dbtool_init() {
    repeating_flags=()
    non_repeating_flags=(--fail-fast --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--file-name --journal-mode --mode --migrations --jobs --format)
    __dbtool_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--file-name')
        return
        ;;
    '--journal-mode')
        __dbtool_add_completions -W 'wal'$'\n''delete'
        return
        ;;
    '--mode')
        return
        ;;
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_migrate() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --allow-out-of-order --snapshot --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--to --migrations --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--to')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate -- --to "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    up|status|rollback|repair|baseline|adopt|new|restore-snapshot)
        # Offer subcommand argument completions
        "_dbtool_migrate_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'up status rollback repair baseline adopt new restore-snapshot' -- "${cur}"))
        ;;
    esac
}

_dbtool_migrate_up() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --allow-out-of-order --snapshot --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--to --migrations --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--to')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate up -- --to "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate up -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_migrate_status() {
    repeating_flags=()
    non_repeating_flags=(--exit-code --allow-out-of-order --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate status -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_migrate_rollback() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--steps --migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--steps')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate rollback -- --steps "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate rollback -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_migrate_repair() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate repair -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate repair -- positional@0 "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_dbtool_migrate_baseline() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate baseline -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate baseline -- positional@0 "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_dbtool_migrate_adopt() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate adopt -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_migrate_new() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--migrations --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_migrate_restore-snapshot() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--snapshot --migrations --file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--snapshot')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate restore-snapshot -- --snapshot "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--migrations')
        __dbtool_add_completions -d
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion migrate restore-snapshot -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_exec() {
    repeating_flags=()
    non_repeating_flags=(--no-transaction --readonly --quiet -q --version -h --help)
    repeating_options=(--arg --database)
    non_repeating_options=(--file --format --file-name --timeout --config)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--file')
        __dbtool_add_completions -f
        return
        ;;
    '--arg')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'table'$'\n''csv'$'\n''tsv'$'\n''json'$'\n''jsonl'
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion exec -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    esac
}

_dbtool_checkpoint() {
    repeating_flags=()
    non_repeating_flags=(--fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--mode --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--mode')
        __dbtool_add_completions -W 'passive'$'\n''full'$'\n''restart'$'\n''truncate'
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion checkpoint -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_snapshot() {
    repeating_flags=()
    non_repeating_flags=(--force --vacuum --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--output --output-dir --keep --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--output')
        __dbtool_add_completions -f
        return
        ;;
    '--output-dir')
        __dbtool_add_completions -d
        return
        ;;
    '--keep')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion snapshot -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -f
        return
        ;;
    esac
}

_dbtool_backup() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --encrypt --allow-insecure-endpoint --force --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--output --output-dir --archive-format --level --threads --to --keep --keep-hourly --keep-daily --keep-weekly --keep-monthly --keep-yearly --keep-within --passphrase-file --passphrase-command --part-size --upload-threads --storage-class --sse --sse-kms-key-id --endpoint --region --profile --ca-bundle --retries --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--output')
        __dbtool_add_completions -f
        return
        ;;
    '--output-dir')
        __dbtool_add_completions -d
        return
        ;;
    '--archive-format')
        __dbtool_add_completions -W 'tar.zst'$'\n''tar.gz'$'\n''tar.xz'$'\n''tar'$'\n''zip'
        return
        ;;
    '--level')
        return
        ;;
    '--threads')
        return
        ;;
    '--to')
        return
        ;;
    '--keep')
        return
        ;;
    '--keep-hourly')
        return
        ;;
    '--keep-daily')
        return
        ;;
    '--keep-weekly')
        return
        ;;
    '--keep-monthly')
        return
        ;;
    '--keep-yearly')
        return
        ;;
    '--keep-within')
        return
        ;;
    '--passphrase-file')
        __dbtool_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '--part-size')
        return
        ;;
    '--upload-threads')
        return
        ;;
    '--storage-class')
        return
        ;;
    '--sse')
        __dbtool_add_completions -W 'AES256'$'\n''aws:kms'
        return
        ;;
    '--sse-kms-key-id')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion backup -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    create|list|verify|prune)
        # Offer subcommand argument completions
        "_dbtool_backup_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'create list verify prune' -- "${cur}"))
        ;;
    esac
}

_dbtool_backup_create() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --encrypt --allow-insecure-endpoint --force --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--output --output-dir --archive-format --level --threads --to --keep --keep-hourly --keep-daily --keep-weekly --keep-monthly --keep-yearly --keep-within --passphrase-file --passphrase-command --part-size --upload-threads --storage-class --sse --sse-kms-key-id --endpoint --region --profile --ca-bundle --retries --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--output')
        __dbtool_add_completions -f
        return
        ;;
    '--output-dir')
        __dbtool_add_completions -d
        return
        ;;
    '--archive-format')
        __dbtool_add_completions -W 'tar.zst'$'\n''tar.gz'$'\n''tar.xz'$'\n''tar'$'\n''zip'
        return
        ;;
    '--level')
        return
        ;;
    '--threads')
        return
        ;;
    '--to')
        return
        ;;
    '--keep')
        return
        ;;
    '--keep-hourly')
        return
        ;;
    '--keep-daily')
        return
        ;;
    '--keep-weekly')
        return
        ;;
    '--keep-monthly')
        return
        ;;
    '--keep-yearly')
        return
        ;;
    '--keep-within')
        return
        ;;
    '--passphrase-file')
        __dbtool_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '--part-size')
        return
        ;;
    '--upload-threads')
        return
        ;;
    '--storage-class')
        return
        ;;
    '--sse')
        __dbtool_add_completions -W 'AES256'$'\n''aws:kms'
        return
        ;;
    '--sse-kms-key-id')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion backup create -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_backup_list() {
    repeating_flags=()
    non_repeating_flags=(--allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--endpoint --region --profile --ca-bundle --retries --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_backup_verify() {
    repeating_flags=()
    non_repeating_flags=(--allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--passphrase-file --passphrase-command --endpoint --region --profile --ca-bundle --retries --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--passphrase-file')
        __dbtool_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion backup verify -- positional@0 "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_dbtool_backup_prune() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --prune-unverified --allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--keep --keep-hourly --keep-daily --keep-weekly --keep-monthly --keep-yearly --keep-within --database --file-name --endpoint --region --profile --ca-bundle --retries --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--keep')
        return
        ;;
    '--keep-hourly')
        return
        ;;
    '--keep-daily')
        return
        ;;
    '--keep-weekly')
        return
        ;;
    '--keep-monthly')
        return
        ;;
    '--keep-yearly')
        return
        ;;
    '--keep-within')
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion backup prune -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_restore() {
    repeating_flags=()
    non_repeating_flags=(--force --live --keep-modes --if-db-not-exists --if-replica-exists --follow --allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--timeout --txid --at --follow-interval --passphrase-file --passphrase-command --endpoint --region --profile --ca-bundle --retries --format --log-format)
    __dbtool_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--timeout')
        return
        ;;
    '--txid')
        return
        ;;
    '--at')
        return
        ;;
    '--follow-interval')
        return
        ;;
    '--passphrase-file')
        __dbtool_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    '--log-format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion restore -- positional@0 "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_replicate() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __dbtool_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    run|status|verify)
        # Offer subcommand argument completions
        "_dbtool_replicate_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'run status verify' -- "${cur}"))
        ;;
    esac
}

_dbtool_replicate_run() {
    repeating_flags=()
    non_repeating_flags=(--no-compaction --allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--to --sync-interval --checkpoint-pages --snapshot-interval --outbox-limit --shutdown-timeout --startup-timeout --retention --compaction-levels --metrics-file --file-name --timeout --config --endpoint --region --profile --ca-bundle --retries --format --log-format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--to')
        __dbtool_add_completions -d
        return
        ;;
    '--sync-interval')
        return
        ;;
    '--checkpoint-pages')
        return
        ;;
    '--snapshot-interval')
        return
        ;;
    '--outbox-limit')
        return
        ;;
    '--shutdown-timeout')
        return
        ;;
    '--startup-timeout')
        return
        ;;
    '--retention')
        return
        ;;
    '--compaction-levels')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion replicate run -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    '--log-format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_replicate_status() {
    repeating_flags=()
    non_repeating_flags=(--allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--endpoint --region --profile --ca-bundle --retries --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_replicate_verify() {
    repeating_flags=()
    non_repeating_flags=(--allow-insecure-endpoint --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(--endpoint --region --profile --ca-bundle --retries --format)
    __dbtool_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __dbtool_add_completions -d
        return
        ;;
    esac
}

_dbtool_schema() {
    repeating_flags=()
    non_repeating_flags=(--sql --quiet -q --version -h --help)
    repeating_options=(--table --database)
    non_repeating_options=(--file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--table')
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion schema -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_check() {
    repeating_flags=()
    non_repeating_flags=(--full --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--max-wal --metrics-file --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--max-wal')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion check -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_vacuum() {
    repeating_flags=()
    non_repeating_flags=(--live --force --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--into --incremental --metrics-file --file-name --timeout --config --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--into')
        __dbtool_add_completions -f
        return
        ;;
    '--incremental')
        return
        ;;
    '--metrics-file')
        __dbtool_add_completions -f
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion vacuum -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_optimize() {
    repeating_flags=()
    non_repeating_flags=(--analyze --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--analysis-limit --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--analysis-limit')
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion optimize -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_stats() {
    repeating_flags=()
    non_repeating_flags=(--rows --allow-insecure-endpoint --fail-fast --quiet -q --version -h --help)
    repeating_options=(--database)
    non_repeating_options=(--backups --endpoint --region --profile --ca-bundle --retries --file-name --timeout --config --jobs --format)
    __dbtool_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--backups')
        __dbtool_add_completions -d
        return
        ;;
    '--endpoint')
        return
        ;;
    '--region')
        return
        ;;
    '--profile')
        return
        ;;
    '--ca-bundle')
        __dbtool_add_completions -f
        return
        ;;
    '--retries')
        return
        ;;
    '--database')
        __dbtool_add_completions -W "$(__dbtool_custom_complete ---completion stats -- --database "${COMP_CWORD}" "$(__dbtool_cursor_index_in_current_word)")"
        return
        ;;
    '--file-name')
        return
        ;;
    '--timeout')
        return
        ;;
    '--config')
        __dbtool_add_completions -f
        return
        ;;
    '--jobs')
        return
        ;;
    '--format')
        __dbtool_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_dbtool_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __dbtool_offer_flags_options -1
}

complete -o filenames -F _dbtool dbtool
