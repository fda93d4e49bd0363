function __keychainctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __keychainctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __keychainctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __keychainctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __keychainctl_parse_tokens -S
    set -l unparsed_tokens (__keychainctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'keychainctl'
        __keychainctl_parse_subcommand 0 'h/help'
        switch $unparsed_tokens[1]
        case 'store'
            __keychainctl_parse_subcommand -r 1 'label=' 'collection=' 'h/help'
        case 'lookup'
            __keychainctl_parse_subcommand -r 1 'h/help'
        case 'search'
            __keychainctl_parse_subcommand -r 1 'all' 'unlock' 'json' 'h/help'
        case 'clear'
            __keychainctl_parse_subcommand -r 1 'h/help'
        case 'lock'
            __keychainctl_parse_subcommand 0 'collection=' 'h/help'
        case 'unlock'
            __keychainctl_parse_subcommand 0 'collection=' 'password-stdin' 'recovery' 'tpm2' 'fido2' 'with-pin' 'with-fido2-pin' 'h/help'
        case 'add-generic-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'w=' 'U' 'h/help'
        case 'find-generic-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'w' 'json' 'h/help'
        case 'delete-generic-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'h/help'
        case 'add-internet-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'w=' 'U' 'h/help'
        case 'find-internet-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'w' 'json' 'h/help'
        case 'delete-internet-password'
            __keychainctl_parse_subcommand 0 'a=' 's=' 'l=' 'r=' 'P=' 'p=' 'h/help'
        case 'list'
            __keychainctl_parse_subcommand 0 'json' 'h/help'
        case 'create'
            __keychainctl_parse_subcommand 1 'alias=' 'password-stdin' 'h/help'
        case 'delete'
            __keychainctl_parse_subcommand 1 'h/help'
        case 'set-default'
            __keychainctl_parse_subcommand 1 'h/help'
        case 'passwd'
            __keychainctl_parse_subcommand 1 'password-stdin' 'recovery' 'h/help'
        case 'status'
            __keychainctl_parse_subcommand 0 'json' 'h/help'
        case 'check'
            __keychainctl_parse_subcommand 0 'data-dir=' 'password-stdin' 'json' 'h/help'
        case 'import'
            __keychainctl_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'gnome-keyring'
                __keychainctl_parse_subcommand 0 'dir=' 'dry-run' 'password-stdin' 'json' 'h/help'
            case 'oo7'
                __keychainctl_parse_subcommand 0 'dir=' 'dry-run' 'password-stdin' 'json' 'h/help'
            case 'kwallet'
                __keychainctl_parse_subcommand 0 'dir=' 'dry-run' 'password-stdin' 'json' 'h/help'
            case 'backup'
                __keychainctl_parse_subcommand 1 'dry-run' 'json' 'h/help'
            end
        case 'export'
            __keychainctl_parse_subcommand -r 1 'o/output=' 'format=' 'collection=+' 'h/help'
        case 'doctor'
            __keychainctl_parse_subcommand 0 'pam-dir=' 'json' 'h/help'
        case 'pam-unlock'
            __keychainctl_parse_subcommand 0 'socket=' 'h/help'
        case 'lock-policy'
            __keychainctl_parse_subcommand -r 2 'json' 'h/help'
        case 'access'
            __keychainctl_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'whoami'
                __keychainctl_parse_subcommand 0 'h/help'
            case 'list'
                __keychainctl_parse_subcommand 0 'json' 'paths' 'h/help'
            case 'allow'
                __keychainctl_parse_subcommand -r 1 'app=' 'unit=' 'credential=' 'password-stdin' 'h/help'
            case 'revoke'
                __keychainctl_parse_subcommand -r 1 'app=' 'h/help'
            case 'group'
                __keychainctl_parse_subcommand 0 'h/help'
                switch $unparsed_tokens[1]
                case 'add'
                    __keychainctl_parse_subcommand -r 2 'app=' 'password-stdin' 'h/help'
                case 'remove'
                    __keychainctl_parse_subcommand -r 2 'app=' 'h/help'
                end
            case 'learn'
                __keychainctl_parse_subcommand 0 'for=' 'status' 'apply' 'except=+' 'discard' 'dry-run' 'password-stdin' 'h/help'
            case 'mode'
                __keychainctl_parse_subcommand 1 'password-stdin' 'h/help'
            end
        case 'audit'
            __keychainctl_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'show'
                __keychainctl_parse_subcommand 0 'since=' 'app=' 'json' 'h/help'
            case 'verify'
                __keychainctl_parse_subcommand 0 'h/help'
            case 'summary'
                __keychainctl_parse_subcommand 0 'since=' 'app=' 'json' 'paths' 'h/help'
            end
        case 'slot'
            __keychainctl_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __keychainctl_parse_subcommand 0 'collection=' 'json' 'h/help'
            case 'add'
                __keychainctl_parse_subcommand 1 'collection=' 'label=' 'with-recovery-key' 'with-pin' 'pcrs=' 'with-fido2-pin' 'qr' 'h/help'
            case 'remove'
                __keychainctl_parse_subcommand 1 'collection=' 'with-recovery-key' 'h/help'
            case 'test'
                __keychainctl_parse_subcommand 1 'collection=' 'h/help'
            end
        case 'exec'
            __keychainctl_parse_subcommand -r 1 'env=+' 'file=+' 'h/help'
        case 'share'
            __keychainctl_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'create'
                __keychainctl_parse_subcommand 0 'items=+' 'ttl=' 'read-only' 'label=' 'h/help'
            case 'list'
                __keychainctl_parse_subcommand 0 'json' 'h/help'
            case 'revoke'
                __keychainctl_parse_subcommand 1 'h/help'
            end
        case 'help'
            __keychainctl_parse_subcommand -r 1 
        end
    end
end

function __keychainctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __keychainctl_parse_subcommand -S -a positional_count
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

function __keychainctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __keychainctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__keychainctl_tokens -p)
    if test -z "$(__keychainctl_tokens -t)"
        set -l index (count (__keychainctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'keychainctl' -f
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'store' -d 'Store a secret (read from the terminal or standard input) with attributes.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'lookup' -d 'Print the secret of the first item with these attributes.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'search' -d 'Show the items with these attributes (the first one unless --all).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'clear' -d 'Delete every item with these attributes.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'lock' -d 'Lock a collection (by path or label), or all of them.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'unlock' -d 'Unlock a collection (by path or label), or all of them, through the prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'add-generic-password' -d 'Add a generic password (-a -s).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'find-generic-password' -d 'Find a generic password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'delete-generic-password' -d 'Delete generic passwords.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'add-internet-password' -d 'Add an internet password (-a -s -r -P -p).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'find-internet-password' -d 'Find an internet password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'delete-internet-password' -d 'Delete internet passwords.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'list' -d 'List the collections: path, lock state, items, label.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'create' -d 'Create a collection; its password is asked through the provider\'s prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'delete' -d 'Delete a collection (by path or label) and every item in it.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'set-default' -d 'Make a collection (by path or label) the default one.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'passwd' -d 'Change a collection\'s password through the provider\'s prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'status' -d 'Show the provider, and each collection\'s lock state and item count.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'check' -d 'Check keychaind\'s store for damage, changing nothing.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'import' -d 'Bring another keyring\'s secrets into keychaind.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'export' -d 'Write collections, every item whole, to a file sealed with a passphrase.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'doctor' -d 'Say why the keyring is or is not unlocked at login, and what to change.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'pam-unlock' -d 'Unlock keychaind at login from pam_exec.so (for systems without pam_gnome_keyring).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'lock-policy' -d 'Show or set when a collection locks by itself (keychaind only).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'access' -d 'Show and change which applications may read which items (keychaind only).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'audit' -d 'Show keychaind\'s audit log: which application accessed which item, and when.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'slot' -d 'List, add, remove and test the key slots that open a collection (keychaind only).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'exec' -d 'Run a command with secrets in its environment or in memory-only files.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'share' -d 'Share a few items on a private bus, for a sandbox, a container or an agent.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl store" label' -l 'label' -d 'The item\'s label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl store" collection' -l 'collection' -d 'The collection: its object path, an alias\'s, or its label (default: default).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl store" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl lookup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl search" all' -l 'all' -d 'Show every match.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl search" unlock' -l 'unlock' -d 'Unlock locked matches (through the provider\'s prompt).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl search" json' -l 'json' -d 'Print JSON: an array of items.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl search" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl clear" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl lock" collection' -l 'collection' -d 'The collection\'s object path or label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl lock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" collection' -l 'collection' -d 'The collection\'s object path or label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" recovery' -l 'recovery' -d 'Unlock with a recovery key instead of the password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" tpm2' -l 'tpm2' -d 'Unlock with this machine\'s TPM (a tpm2 slot).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" fido2' -l 'fido2' -d 'Unlock with the FIDO2 key plugged in (a fido2 slot); touch it.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" with-pin' -l 'with-pin' -d 'With --tpm2 or --fido2: ask for the slot\'s PIN (the TPM\'s when both).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" with-fido2-pin' -l 'with-fido2-pin' -d 'With --tpm2 --fido2: ask for the FIDO2 key\'s PIN.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" w' -s 'w' -d 'The password (default: asked for, or read from stdin).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" U' -s 'U' -d 'Update the item if it exists.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-generic-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" w' -s 'w' -d 'Print only the password (with --json: include it).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-generic-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-generic-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" w' -s 'w' -d 'The password (default: asked for, or read from stdin).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" U' -s 'U' -d 'Update the item if it exists.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl add-internet-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" w' -s 'w' -d 'Print only the password (with --json: include it).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl find-internet-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" a' -s 'a' -d 'The account name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" s' -s 's' -d 'The service (generic) or server (internet) name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" l' -s 'l' -d 'The label.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" r' -s 'r' -d 'Internet: the protocol (https, ftp, ssh, …).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" P' -s 'P' -d 'Internet: the port.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" p' -s 'p' -d 'Internet: the path.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete-internet-password" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl list" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl create" alias' -l 'alias' -d 'An alias for it, such as default.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl create" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl set-default" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl passwd" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl passwd" recovery' -l 'recovery' -d 'Prove it with a recovery key instead of the current password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl passwd" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl status" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl check" data-dir' -l 'data-dir' -d 'The store\'s directory (default: $XDG_DATA_HOME/keychaind).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl check" password-stdin' -l 'password-stdin' -d 'Also decrypt every item of the collections this password opens (one line).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl check" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl import" -eq 1' -fa 'gnome-keyring' -d 'Import gnome-keyring\'s keyrings into the running keychaind.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl import" -eq 1' -fa 'oo7' -d 'Import oo7\'s keyrings (the v1 format) into the running keychaind.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl import" -eq 1' -fa 'kwallet' -d 'Import KDE\'s wallets into the running keychaind.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl import" -eq 1' -fa 'backup' -d 'Restore a backup made by keychainctl export into the running keychaind.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import gnome-keyring" dir' -l 'dir' -d 'gnome-keyring\'s directory (default: its own).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import gnome-keyring" dry-run' -l 'dry-run' -d 'Read and decrypt everything, write nothing, and report what would be imported.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import gnome-keyring" password-stdin' -l 'password-stdin' -d 'Read one password from standard input (one line) and try it on every keyring.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import gnome-keyring" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import gnome-keyring" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import oo7" dir' -l 'dir' -d 'oo7\'s keyring directory (default: its own).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import oo7" dry-run' -l 'dry-run' -d 'Read and decrypt everything, write nothing, and report what would be imported.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import oo7" password-stdin' -l 'password-stdin' -d 'Read one password from standard input (one line) and try it on every keyring.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import oo7" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import oo7" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import kwallet" dir' -l 'dir' -d 'KWallet\'s directory (default: its own).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import kwallet" dry-run' -l 'dry-run' -d 'Read and decrypt everything, write nothing, and report what would be imported.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import kwallet" password-stdin' -l 'password-stdin' -d 'Read one password from standard input (one line) and try it on every wallet.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import kwallet" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import kwallet" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import backup" dry-run' -l 'dry-run' -d 'Read and authenticate the backup, write nothing, and report what it holds.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import backup" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl import backup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl export" o output' -l 'output' -s 'o' -d 'The file to write (must not exist).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl export" format' -l 'format' -d 'backup (the default), v1 (oo7\'s and libsecret\'s file) or v0 (gnome-keyring\'s file).' -rfka 'backup v1 v0'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl export"' -l 'collection' -d 'A collection to export (repeatable; default: all).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl doctor" pam-dir' -l 'pam-dir' -d 'Where the PAM files are (default: /etc/pam.d).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl doctor" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl doctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl pam-unlock" socket' -l 'socket' -d 'The control socket (default: /run/user/UID/keyring/control).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl pam-unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl lock-policy" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl lock-policy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'whoami' -d 'Show the identity keychaind resolves for this very process.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'list' -d 'List grants and item owners of unlocked collections.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'allow' -d 'Let an application read items, or every item of collections, for good.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'revoke' -d 'Take back an application\'s grants on items or collections; needs no password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'group' -d 'Share items between programs through named access groups.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'learn' -d 'Turn the reads the audit log saw into grants, before access-control = protect.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access" -eq 1' -fa 'mode' -d 'Show or change the access-control mode (off, audit, protect).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access whoami" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access list" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access list" paths' -l 'paths' -d 'Name items and collections by object path instead of by label.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access allow" app' -l 'app' -d 'The application: an executable\'s path, a Flatpak app id, or a key as `access list` shows.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access allow" unit' -l 'unit' -d 'A systemd unit (NAME.service) to give one item as a credential.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access allow" credential' -l 'credential' -d 'With --unit: the credential id the unit\'s LoadCredential= names.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access allow" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access allow" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access revoke" app' -l 'app' -d 'The application, as for allow.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access group" -eq 1' -fa 'add' -d 'Make a program a member of a group; needs the collections\' password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl access group" -eq 1' -fa 'remove' -d 'End a program\'s membership of a group; needs no password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group add" app' -l 'app' -d 'The program, as for `access allow`.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group add" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group remove" app' -l 'app' -d 'The program, as for `access allow`.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access group remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" for' -l 'for' -d 'Start a learning period this long: 90s, 30m, 12h, 7d.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" status' -l 'status' -d 'Show the learning period and the grants its reads call for.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" apply' -l 'apply' -d 'Make those grants, end the period, and turn protect on.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn"' -l 'except' -d 'With --apply: grant nothing to this application (as `access list` names it, or a path).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" discard' -l 'discard' -d 'End the learning period without granting anything.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" dry-run' -l 'dry-run' -d 'Only list the grants that would be made.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access learn" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access mode" password-stdin' -l 'password-stdin' -d 'Read the password from standard input (typed without echo at a terminal) instead of the provider\'s prompt; for scripts and machines with nobody to answer a prompt.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl access mode" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl audit" -eq 1' -fa 'show' -d 'Show the records.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl audit" -eq 1' -fa 'verify' -d 'Check that no record was changed, removed or reordered; exits 1 if one was.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl audit" -eq 1' -fa 'summary' -d 'One line per application: which items it read, most recent first.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit show" since' -l 'since' -d 'Only records since then: a duration back (90s, 30m, 1h, 7d) or an ISO 8601 date.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit show" app' -l 'app' -d 'Only records of this application: part of its key (its path: seahorse) or of its name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit show" json' -l 'json' -d 'Print JSON lines, as stored (without the chain\'s MACs).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit summary" since' -l 'since' -d 'Only records since then: a duration back (90s, 30m, 1h, 7d) or an ISO 8601 date.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit summary" app' -l 'app' -d 'Only records of this application: part of its key (its path: seahorse) or of its name.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit summary" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit summary" paths' -l 'paths' -d 'Name items by object path instead of by label.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl audit summary" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl slot" -eq 1' -fa 'list' -d 'Show a collection\'s key slots; works while it is locked.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl slot" -eq 1' -fa 'add' -d 'Add a recovery key, a TPM slot or a FIDO2 key to a collection.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl slot" -eq 1' -fa 'remove' -d 'Remove a key slot (not the password\'s) from a collection.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl slot" -eq 1' -fa 'test' -d 'Check that a password, recovery key or TPM slot opens, changing nothing.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot list" collection' -l 'collection' -d 'The collection\'s object path or label (default: the default collection).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot list" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" collection' -l 'collection' -d 'The collection\'s object path or label (default: the default collection).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" label' -l 'label' -d 'A label that says where the key is kept.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" with-recovery-key' -l 'with-recovery-key' -d 'Prove it with a recovery key of the collection instead of its password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" with-pin' -l 'with-pin' -d 'tpm2: ask for a new PIN, which opening will need; fido2: the key\'s PIN.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" pcrs' -l 'pcrs' -d 'tpm2: SHA-256 PCRs to bind to, such as 7 or 7,14.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" with-fido2-pin' -l 'with-fido2-pin' -d 'tpm2+fido2: the FIDO2 key\'s PIN.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" qr' -l 'qr' -d 'recovery: also show the key as a QR code on standard error (the default when that is a terminal).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot remove" collection' -l 'collection' -d 'The collection\'s object path or label (default: the default collection).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot remove" with-recovery-key' -l 'with-recovery-key' -d 'Prove it with a recovery key of the collection instead of its password.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot test" collection' -l 'collection' -d 'The collection\'s object path or label (default: the default collection).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl slot test" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl exec"' -l 'env' -d 'NAME=QUERY: a secret in an environment variable.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl exec"' -l 'file' -d 'NAME=QUERY: a secret in a memory-only file.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl share" -eq 1' -fa 'create' -d 'Make a share and print its bus address (the default subcommand).'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl share" -eq 1' -fa 'list' -d 'List the live shares.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_positional "keychainctl share" -eq 1' -fa 'revoke' -d 'End a share: its clients are cut off and its socket is removed.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share create"' -l 'items' -d 'QUERY…: the items to share (attribute=value pairs joined by commas).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share create" ttl' -l 'ttl' -d 'How long it lasts: 90s, 30m, 1h, 7d, or never (until revoked).' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share create" read-only' -l 'read-only' -d 'Its clients may read, never change or store.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share create" label' -l 'label' -d 'What it is for, shown by share list.' -rfka ''
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share list" json' -l 'json' -d 'Print JSON.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'keychainctl' -n '__keychainctl_should_offer_completions_for_flags_or_options "keychainctl share revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
