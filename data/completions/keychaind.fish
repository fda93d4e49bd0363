function __keychaind_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __keychaind_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __keychaind_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __keychaind_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __keychaind_parse_tokens -S
    set -l unparsed_tokens (__keychaind_tokens -pc)
    switch $unparsed_tokens[1]
    case 'keychaind'
        __keychaind_parse_subcommand 0 'data-dir=' 'config=' 'unlock' 'replace' 'verbose' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __keychaind_parse_subcommand -r 1 'version'
        end
    end
end

function __keychaind_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __keychaind_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __keychaind_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __keychaind_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__keychaind_tokens -p)
    if test -z "$(__keychaind_tokens -t)"
        set -l index (count (__keychaind_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'keychaind' -f
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" data-dir' -l 'data-dir' -d 'Where the store lives (default: data-dir in the configuration, or $XDG_DATA_HOME/keychaind).' -rfka ''
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" config' -l 'config' -d 'The configuration file (default: $XDG_CONFIG_HOME/keychaind/keychaind.conf).' -rfka ''
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" unlock' -l 'unlock' -d 'Create the login collection with a password, or unlock it.'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" replace' -l 'replace' -d 'Take org.freedesktop.secrets over from its owner (gnome-keyring is asked to quit through its control socket).'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" verbose' -l 'verbose' -d 'Log debugging detail (never secrets, passwords or attribute values).'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" version' -l 'version' -d 'Show the version.'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_positional "keychaind" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'keychaind' -n '__keychaind_should_offer_completions_for_flags_or_options "keychaind help" version' -l 'version' -d 'Show the version.'
