function __dbtool_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __dbtool_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __dbtool_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __dbtool_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __dbtool_parse_tokens -S
    set -l unparsed_tokens (__dbtool_tokens -pc)
    switch $unparsed_tokens[1]
    case 'dbtool'
        __dbtool_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'init'
            __dbtool_parse_subcommand -r 1 'file-name=' 'journal-mode=' 'mode=' 'migrations=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'migrate'
            __dbtool_parse_subcommand 0 'to=' 'dry-run' 'allow-out-of-order' 'snapshot' 'migrations=' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'up'
                __dbtool_parse_subcommand 0 'to=' 'dry-run' 'allow-out-of-order' 'snapshot' 'migrations=' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
            case 'status'
                __dbtool_parse_subcommand 0 'exit-code' 'allow-out-of-order' 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'rollback'
                __dbtool_parse_subcommand 0 'steps=' 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'repair'
                __dbtool_parse_subcommand 1 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'baseline'
                __dbtool_parse_subcommand 1 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'adopt'
                __dbtool_parse_subcommand 0 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'new'
                __dbtool_parse_subcommand 1 'migrations=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'restore-snapshot'
                __dbtool_parse_subcommand 0 'snapshot=' 'migrations=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
            end
        case 'exec'
            __dbtool_parse_subcommand 1 'file=' 'arg=+' 'no-transaction' 'readonly' 'format=' 'q/quiet' 'database=+' 'file-name=' 'timeout=' 'config=' 'version' 'h/help'
        case 'checkpoint'
            __dbtool_parse_subcommand 0 'mode=' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'snapshot'
            __dbtool_parse_subcommand 1 'output=' 'output-dir=' 'keep=' 'force' 'vacuum' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'backup'
            __dbtool_parse_subcommand 0 'output=' 'output-dir=' 'archive-format=' 'level=' 'threads=' 'to=' 'keep=' 'keep-hourly=' 'keep-daily=' 'keep-weekly=' 'keep-monthly=' 'keep-yearly=' 'keep-within=' 'dry-run' 'encrypt' 'passphrase-file=' 'passphrase-command=' 'part-size=' 'upload-threads=' 'storage-class=' 'sse=' 'sse-kms-key-id=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'force' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'create'
                __dbtool_parse_subcommand 0 'output=' 'output-dir=' 'archive-format=' 'level=' 'threads=' 'to=' 'keep=' 'keep-hourly=' 'keep-daily=' 'keep-weekly=' 'keep-monthly=' 'keep-yearly=' 'keep-within=' 'dry-run' 'encrypt' 'passphrase-file=' 'passphrase-command=' 'part-size=' 'upload-threads=' 'storage-class=' 'sse=' 'sse-kms-key-id=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'force' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
            case 'list'
                __dbtool_parse_subcommand 1 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'verify'
                __dbtool_parse_subcommand 1 'passphrase-file=' 'passphrase-command=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'prune'
                __dbtool_parse_subcommand 1 'keep=' 'keep-hourly=' 'keep-daily=' 'keep-weekly=' 'keep-monthly=' 'keep-yearly=' 'keep-within=' 'database=' 'file-name=' 'dry-run' 'prune-unverified' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'version' 'h/help'
            end
        case 'restore'
            __dbtool_parse_subcommand 2 'force' 'live' 'keep-modes' 'timeout=' 'txid=' 'at=' 'if-db-not-exists' 'if-replica-exists' 'follow' 'follow-interval=' 'passphrase-file=' 'passphrase-command=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'log-format=' 'version' 'h/help'
        case 'replicate'
            __dbtool_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'run'
                __dbtool_parse_subcommand 0 'to=' 'sync-interval=' 'checkpoint-pages=' 'snapshot-interval=' 'outbox-limit=' 'shutdown-timeout=' 'startup-timeout=' 'retention=' 'compaction-levels=' 'no-compaction' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'log-format=' 'version' 'h/help'
            case 'status'
                __dbtool_parse_subcommand 1 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'version' 'h/help'
            case 'verify'
                __dbtool_parse_subcommand 1 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'format=' 'q/quiet' 'version' 'h/help'
            end
        case 'schema'
            __dbtool_parse_subcommand 0 'table=+' 'sql' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
        case 'check'
            __dbtool_parse_subcommand 0 'full' 'max-wal=' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'vacuum'
            __dbtool_parse_subcommand 0 'live' 'into=' 'force' 'incremental=' 'metrics-file=' 'database=+' 'file-name=' 'timeout=' 'config=' 'format=' 'q/quiet' 'version' 'h/help'
        case 'optimize'
            __dbtool_parse_subcommand 0 'analyze' 'analysis-limit=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'stats'
            __dbtool_parse_subcommand 0 'rows' 'backups=' 'endpoint=' 'region=' 'profile=' 'ca-bundle=' 'allow-insecure-endpoint' 'retries=' 'database=+' 'file-name=' 'timeout=' 'config=' 'jobs=' 'fail-fast' 'format=' 'q/quiet' 'version' 'h/help'
        case 'help'
            __dbtool_parse_subcommand -r 1 'version'
        end
    end
end

function __dbtool_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __dbtool_parse_subcommand -S -a positional_count
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

function __dbtool_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __dbtool_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__dbtool_tokens -p)
    if test -z "$(__dbtool_tokens -t)"
        set -l index (count (__dbtool_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'dbtool' -f
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'init' -d 'Create a database directory and its database (idempotent).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'migrate' -d 'Apply SQL-file migrations, each exactly once, all or nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'exec' -d 'Run SQL, all or nothing, and print the rows.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'checkpoint' -d 'Checkpoint the WAL, and report frames and WAL file sizes.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'snapshot' -d 'Write a consistent single-file copy of the database.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'backup' -d 'Archive the whole database directory, consistent while the application writes.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'restore' -d 'Restore a database directory from an archive of dbtool backup.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'replicate' -d 'Replicate a database continuously, in Litestream\'s format; show a replica\'s state.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'schema' -d 'Show the tables, columns, indexes and foreign keys of the database.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'check' -d 'Check a database: integrity, foreign keys, header and WAL.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'vacuum' -d 'Give free pages back: VACUUM, a compacted copy, or an incremental vacuum.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'optimize' -d 'Keep the query planner\'s statistics current (ANALYZE what needs it).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'stats' -d 'Show where a database\'s space goes, its settings and its last migration.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool init" -ge 1' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" file-name' -l 'file-name' -d 'The name of the database file.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" journal-mode' -l 'journal-mode' -d 'The journal mode of a new database.' -rfka 'wal delete'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" mode' -l 'mode' -d 'The permissions of created directories, in octal.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" migrations' -l 'migrations' -d 'Apply the migrations of this directory right after.' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" to' -l 'to' -d 'Migrate up or down to this version, included; `none` rolls back every migration (0 is a version like any other).' -rfka '(__dbtool_custom_completion ---completion migrate -- --to (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" dry-run' -l 'dry-run' -d 'Print the migrations and SQL that would run; change nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" allow-out-of-order' -l 'allow-out-of-order' -d 'Apply pending migrations older than the newest applied one.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" snapshot' -l 'snapshot' -d 'Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'up' -d 'Apply pending migrations (the default), or move to --to VERSION.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'status' -d 'List applied, pending, modified, missing and out-of-order migrations.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'rollback' -d 'Run the down sections of the newest applied migrations, newest first.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'repair' -d 'Record the new checksum of an applied migration whose file was edited on purpose.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'baseline' -d 'Mark an existing database as migrated up to VERSION, running nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'adopt' -d 'Record the history of goose, golang-migrate or dbmate as applied, running nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'new' -d 'Create the next migration file, with up and down markers.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate" -eq 1' -fa 'restore-snapshot' -d 'Put back the snapshot taken by `migrate --snapshot` (the way back without down sections).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" to' -l 'to' -d 'Migrate up or down to this version, included; `none` rolls back every migration (0 is a version like any other).' -rfka '(__dbtool_custom_completion ---completion migrate up -- --to (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" dry-run' -l 'dry-run' -d 'Print the migrations and SQL that would run; change nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" allow-out-of-order' -l 'allow-out-of-order' -d 'Apply pending migrations older than the newest applied one.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" snapshot' -l 'snapshot' -d 'Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate up -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate up" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" exit-code' -l 'exit-code' -d 'Exit 1 when migrations are pending, 3 when migrate would refuse (for CI and readiness probes).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" allow-out-of-order' -l 'allow-out-of-order' -d 'With --exit-code: out-of-order migrations count as pending, not as drift.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate status -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" steps' -l 'steps' -d 'How many migrations to roll back.' -rfka '(__dbtool_custom_completion ---completion migrate rollback -- --steps (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate rollback -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate rollback" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate repair" -eq 1' -fka '(__dbtool_custom_completion ---completion migrate repair -- positional@0 (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate repair -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate repair" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool migrate baseline" -eq 1' -fka '(__dbtool_custom_completion ---completion migrate baseline -- positional@0 (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate baseline -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate baseline" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate adopt -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate adopt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate new" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate new" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate new" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate new" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate new" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" snapshot' -l 'snapshot' -d 'The snapshot to restore (default: the latest taken before migrating).' -rfka '(__dbtool_custom_completion ---completion migrate restore-snapshot -- --snapshot (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" migrations' -l 'migrations' -d 'The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion migrate restore-snapshot -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool migrate restore-snapshot" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" file' -l 'file' -d 'Read the SQL from this file.' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec"' -l 'arg' -d 'A bound argument: VALUE, or NAME=VALUE; VALUE may be typed: text:, int:, real:, blob:HEX, null:. Repeat as needed.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" no-transaction' -l 'no-transaction' -d 'Run each statement on its own instead of in one transaction.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" readonly' -l 'readonly' -d 'Open the database read-only.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" format' -l 'format' -d 'table, csv, tsv, json or jsonl.' -rfka 'table csv tsv json jsonl'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors (the statements still run).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion exec -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" mode' -l 'mode' -d 'passive, full, restart or truncate.' -rfka 'passive full restart truncate'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion checkpoint -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool checkpoint" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" output' -l 'output' -d 'The file to write.' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" output-dir' -l 'output-dir' -d 'Write a timestamped file in this directory instead.' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" keep' -l 'keep' -d 'With --output-dir: keep only the newest N snapshots.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" force' -l 'force' -d 'Replace the --output file if it exists.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" vacuum' -l 'vacuum' -d 'Compact the copy (VACUUM INTO).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion snapshot -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool snapshot" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" output' -l 'output' -d 'The archive to write.' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" output-dir' -l 'output-dir' -d 'Write a timestamped archive in this directory instead.' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" archive-format' -l 'archive-format' -d 'The archive format (default: the one --output\'s extension names, else tar.zst).' -rfka 'tar.zst tar.gz tar.xz tar zip'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" level' -l 'level' -d 'The compression level (zstd 1-22, gzip/xz/zip 0-9; default: the format\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" threads' -l 'threads' -d 'Compression worker threads for tar.zst and tar.xz: faster, but tens of MiB more memory (default 0: none).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" to' -l 'to' -d 'Stream the archive to object storage under this prefix.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep' -l 'keep' -d 'Keep the newest N archives of each database.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-hourly' -l 'keep-hourly' -d 'Keep the newest archive of each of the last N hours.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-daily' -l 'keep-daily' -d 'Keep the newest archive of each of the last N days.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-weekly' -l 'keep-weekly' -d 'Keep the newest archive of each of the last N ISO weeks.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-monthly' -l 'keep-monthly' -d 'Keep the newest archive of each of the last N months.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-yearly' -l 'keep-yearly' -d 'Keep the newest archive of each of the last N years.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" keep-within' -l 'keep-within' -d 'Keep every archive taken within this long of the newest one: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" dry-run' -l 'dry-run' -d 'Check, and print what retention would delete; write and delete nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" encrypt' -l 'encrypt' -d 'Encrypt the archive: a zip with AES-256 entries (needs a passphrase, below).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" passphrase-file' -l 'passphrase-file' -d 'The file whose first line is the passphrase (a pipe works: <(pass show backup)).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" passphrase-command' -l 'passphrase-command' -d 'A command that prints the passphrase, run without a shell (default: $DBTOOL_PASSPHRASE when set).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" part-size' -l 'part-size' -d 'With --to: the upload\'s part size in MiB, 5 to 5120 (default 16).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" upload-threads' -l 'upload-threads' -d 'With --to: parts uploaded at once; memory holds one part more (default 4).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" storage-class' -l 'storage-class' -d 'With --to: the objects\' storage class (STANDARD_IA, GLACIER_IR...; default: the bucket\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" sse' -l 'sse' -d 'With --to: server-side encryption of every object written: AES256, or aws:kms with the account\'s S3 key (default: the bucket\'s).' -rfka 'AES256 aws:kms'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" sse-kms-key-id' -l 'sse-kms-key-id' -d 'With --sse aws:kms: the KMS key (id, ARN or alias) instead of the account\'s S3 key.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" force' -l 'force' -d 'Replace --output if it exists.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion backup -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup" -eq 1' -fa 'create' -d 'Archive the whole database directory (the default of `dbtool backup`).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup" -eq 1' -fa 'list' -d 'List the archives in a backup directory or under an s3:// prefix, oldest first.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup" -eq 1' -fa 'verify' -d 'Check that an archive is whole and holds a sound database.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup" -eq 1' -fa 'prune' -d 'Delete the archives of a directory or prefix that no retention rule keeps.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" output' -l 'output' -d 'The archive to write.' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" output-dir' -l 'output-dir' -d 'Write a timestamped archive in this directory instead.' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" archive-format' -l 'archive-format' -d 'The archive format (default: the one --output\'s extension names, else tar.zst).' -rfka 'tar.zst tar.gz tar.xz tar zip'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" level' -l 'level' -d 'The compression level (zstd 1-22, gzip/xz/zip 0-9; default: the format\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" threads' -l 'threads' -d 'Compression worker threads for tar.zst and tar.xz: faster, but tens of MiB more memory (default 0: none).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" to' -l 'to' -d 'Stream the archive to object storage under this prefix.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep' -l 'keep' -d 'Keep the newest N archives of each database.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-hourly' -l 'keep-hourly' -d 'Keep the newest archive of each of the last N hours.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-daily' -l 'keep-daily' -d 'Keep the newest archive of each of the last N days.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-weekly' -l 'keep-weekly' -d 'Keep the newest archive of each of the last N ISO weeks.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-monthly' -l 'keep-monthly' -d 'Keep the newest archive of each of the last N months.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-yearly' -l 'keep-yearly' -d 'Keep the newest archive of each of the last N years.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" keep-within' -l 'keep-within' -d 'Keep every archive taken within this long of the newest one: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" dry-run' -l 'dry-run' -d 'Check, and print what retention would delete; write and delete nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" encrypt' -l 'encrypt' -d 'Encrypt the archive: a zip with AES-256 entries (needs a passphrase, below).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" passphrase-file' -l 'passphrase-file' -d 'The file whose first line is the passphrase (a pipe works: <(pass show backup)).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" passphrase-command' -l 'passphrase-command' -d 'A command that prints the passphrase, run without a shell (default: $DBTOOL_PASSPHRASE when set).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" part-size' -l 'part-size' -d 'With --to: the upload\'s part size in MiB, 5 to 5120 (default 16).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" upload-threads' -l 'upload-threads' -d 'With --to: parts uploaded at once; memory holds one part more (default 4).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" storage-class' -l 'storage-class' -d 'With --to: the objects\' storage class (STANDARD_IA, GLACIER_IR...; default: the bucket\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" sse' -l 'sse' -d 'With --to: server-side encryption of every object written: AES256, or aws:kms with the account\'s S3 key (default: the bucket\'s).' -rfka 'AES256 aws:kms'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" sse-kms-key-id' -l 'sse-kms-key-id' -d 'With --sse aws:kms: the KMS key (id, ARN or alias) instead of the account\'s S3 key.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" force' -l 'force' -d 'Replace --output if it exists.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion backup create -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup list" -eq 1' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup verify" -eq 1' -fka '(__dbtool_custom_completion ---completion backup verify -- positional@0 (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" passphrase-file' -l 'passphrase-file' -d 'The file whose first line is the passphrase (a pipe works: <(pass show backup)).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" passphrase-command' -l 'passphrase-command' -d 'A command that prints the passphrase, run without a shell (default: $DBTOOL_PASSPHRASE when set).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool backup prune" -eq 1' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep' -l 'keep' -d 'Keep the newest N archives of each database.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-hourly' -l 'keep-hourly' -d 'Keep the newest archive of each of the last N hours.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-daily' -l 'keep-daily' -d 'Keep the newest archive of each of the last N days.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-weekly' -l 'keep-weekly' -d 'Keep the newest archive of each of the last N ISO weeks.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-monthly' -l 'keep-monthly' -d 'Keep the newest archive of each of the last N months.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-yearly' -l 'keep-yearly' -d 'Keep the newest archive of each of the last N years.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" keep-within' -l 'keep-within' -d 'Keep every archive taken within this long of the newest one: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic\'s).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" database' -l 'database' -d 'Only the archives of this database (its directory or file); default: every database\'s.' -rfka '(__dbtool_custom_completion ---completion backup prune -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" file-name' -l 'file-name' -d 'With --database: the name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" dry-run' -l 'dry-run' -d 'Print what would be deleted; delete nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" prune-unverified' -l 'prune-unverified' -d 'Also delete the archives dbtool can not trust (see above).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool backup prune" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool restore" -eq 1' -fka '(__dbtool_custom_completion ---completion restore -- positional@0 (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool restore" -eq 2' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" force' -l 'force' -d 'Replace the content of a non-empty DIR (refused while its database is in use).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" live' -l 'live' -d 'Restore into DIR\'s database in place, while applications keep it open.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" keep-modes' -l 'keep-modes' -d 'Keep the permissions the archive records for others (default: nothing readable by others).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" timeout' -l 'timeout' -d 'With --live: how long to wait for the database\'s write lock before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" txid' -l 'txid' -d 'With a replica: the TXID to restore, in hexadecimal as in its file names.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" at' -l 'at' -d 'With a replica: the time to restore (ISO 8601, e.g. 2026-11-26T21:55:21Z).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" if-db-not-exists' -l 'if-db-not-exists' -d 'Exit 0 without restoring when DIR already holds a database.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" if-replica-exists' -l 'if-replica-exists' -d 'With a replica: exit 0 without restoring when it holds nothing.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" follow' -l 'follow' -d 'With a replica: keep DIR current with it, read-only, until SIGTERM.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" follow-interval' -l 'follow-interval' -d 'With --follow: seconds between looks at the replica (default 1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" passphrase-file' -l 'passphrase-file' -d 'The file whose first line is the passphrase (a pipe works: <(pass show backup)).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" passphrase-command' -l 'passphrase-command' -d 'A command that prints the passphrase, run without a shell (default: $DBTOOL_PASSPHRASE when set).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" log-format' -l 'log-format' -d 'Log lines on stderr: text (no time under systemd\'s journal) or json, one object per line.' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool replicate" -eq 1' -fa 'run' -d 'Ship every committed transaction to a replica within --sync-interval (the default of `dbtool replicate`).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool replicate" -eq 1' -fa 'status' -d 'Show a replica\'s last TXID, its time and lag, and its files by level.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool replicate" -eq 1' -fa 'verify' -d 'Read every file of a replica, check it and the chain, and say what is restorable.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" to' -l 'to' -d 'The replica: s3://BUCKET/PREFIX/ or a directory (with --config: each database\'s replica).' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" sync-interval' -l 'sync-interval' -d 'Seconds between syncs: the most a crash loses (default 1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" checkpoint-pages' -l 'checkpoint-pages' -d 'Checkpoint once the write-ahead log holds this many pages (default 1000).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" snapshot-interval' -l 'snapshot-interval' -d 'Hours between snapshots of the whole database (default 24).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" outbox-limit' -l 'outbox-limit' -d 'The most the outbox holds while the store is away, in MiB (default 1024).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" shutdown-timeout' -l 'shutdown-timeout' -d 'The longest the last sync takes after SIGTERM, in seconds (default 10).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" startup-timeout' -l 'startup-timeout' -d 'How long to wait for a store that does not answer at start-up, in seconds (default 300; then 75).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" retention' -l 'retention' -d 'How far back a restore can go: 30min, 24h, 7d, 1mo (default 24h; a bare m is minutes, as Litestream\'s). Older files go once a snapshot covers them.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" compaction-levels' -l 'compaction-levels' -d 'The interval of each compaction level from 1 up, each longer than the last (default 30s,5m,1h, as Litestream).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" no-compaction' -l 'no-compaction' -d 'Do not merge files into higher levels (a restore then reads every level-0 file since a snapshot).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion replicate run -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" log-format' -l 'log-format' -d 'Log lines on stderr: text (no time under systemd\'s journal) or json, one object per line.' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool replicate status" -eq 1' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_positional "dbtool replicate verify" -eq 1' -fa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool replicate verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema"' -l 'table' -d 'Only this table (repeatable).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" sql' -l 'sql' -d 'Print the CREATE statements instead of the summary.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion schema -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool schema" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" full' -l 'full' -d 'integrity_check instead of quick_check: slower, also checks that indexes match their tables.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" max-wal' -l 'max-wal' -d 'Warn when the WAL is larger than this: 256MiB, 1GiB (default: the database\'s size, 64MiB at least).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion check -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" live' -l 'live' -d 'Run a full VACUUM on a WAL database even though writers wait for it.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" into' -l 'into' -d 'Write a compacted copy to this file instead.' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" force' -l 'force' -d 'With --into: replace the file if it exists.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" incremental' -l 'incremental' -d 'Free up to N pages of an auto_vacuum=incremental database (0: all).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" metrics-file' -l 'metrics-file' -d 'Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs\' samples in it are kept).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion vacuum -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool vacuum" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" analyze' -l 'analyze' -d 'ANALYZE every table, not only those whose statistics are stale.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" analysis-limit' -l 'analysis-limit' -d 'Rows read per index by ANALYZE (0: all; default: all up to 1 GiB, 100000 above).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion optimize -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool optimize" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" rows' -l 'rows' -d 'Count each table\'s rows (reads every row).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" backups' -l 'backups' -d 'Where the backups go (a directory, or s3://BUCKET/PREFIX/; for several databases, the folder of each under it): report the newest.' -rfa '(__dbtool_complete_directories)'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" endpoint' -l 'endpoint' -d 'An S3-compatible endpoint, such as https://minio.example.com:9000 (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile\'s endpoint_url, else AWS).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" region' -l 'region' -d 'The bucket\'s region (default: $AWS_REGION, the profile\'s, else us-east-1).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" profile' -l 'profile' -d 'The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" ca-bundle' -l 'ca-bundle' -d 'The PEM certificates a https:// endpoint is checked against, for a private CA (default: $AWS_CA_BUNDLE, the profile\'s ca_bundle).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" allow-insecure-endpoint' -l 'allow-insecure-endpoint' -d 'Allow a plain http:// endpoint that is not on loopback.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" retries' -l 'retries' -d 'Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats"' -l 'database' -d 'The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.' -rfka '(__dbtool_custom_completion ---completion stats -- --database (count (__dbtool_tokens -pc)) (__dbtool_tokens -tC))'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" file-name' -l 'file-name' -d 'The name of the database file inside its directory.' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" timeout' -l 'timeout' -d 'How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" config' -l 'config' -d 'A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).' -rF
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" jobs' -l 'jobs' -d 'With several databases: how many at once (default: the number of cores).' -rfka ''
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" fail-fast' -l 'fail-fast' -d 'With several databases: stop at the first failure (the others are reported as skipped).'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" format' -l 'format' -d 'text for people, json for machines (exactly one JSON document on stdout).' -rfka 'text json'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" q quiet' -l 'quiet' -s 'q' -d 'Print nothing but errors.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" version' -l 'version' -d 'Show the version.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'dbtool' -n '__dbtool_should_offer_completions_for_flags_or_options "dbtool help" version' -l 'version' -d 'Show the version.'
