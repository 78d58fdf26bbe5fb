#compdef dbtool

__dbtool_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__dbtool_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __dbtool_complete "${completions[@]:0:-1}"
    fi
}

__dbtool_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_dbtool() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'init:Create a database directory and its database (idempotent).'
            'migrate:Apply SQL-file migrations, each exactly once, all or nothing.'
            'exec:Run SQL, all or nothing, and print the rows.'
            'checkpoint:Checkpoint the WAL, and report frames and WAL file sizes.'
            'snapshot:Write a consistent single-file copy of the database.'
            'backup:Archive the whole database directory, consistent while the application writes.'
            'restore:Restore a database directory from an archive of dbtool backup.'
            'replicate:Replicate a database continuously, in Litestream'\''s format; show a replica'\''s state.'
            'schema:Show the tables, columns, indexes and foreign keys of the database.'
            'check:Check a database: integrity, foreign keys, header and WAL.'
            'vacuum:Give free pages back: VACUUM, a compacted copy, or an incremental vacuum.'
            'optimize:Keep the query planner'\''s statistics current (ANALYZE what needs it).'
            'stats:Show where a database'\''s space goes, its settings and its last migration.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        init|migrate|exec|checkpoint|snapshot|backup|restore|replicate|schema|check|vacuum|optimize|stats|help)
            "_dbtool_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_dbtool_init() {
    local -i ret=1
    local -ar ___journal_mode=('wal' 'delete')
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '*:directories:_files -/'
        '--file-name[The name of the database file.]:file-name:'
        '--journal-mode[The journal mode of a new database.]:journal-mode:{__dbtool_complete "${___journal_mode[@]}"}'
        '--mode[The permissions of created directories, in octal.]:octal:'
        '--migrations[Apply the migrations of this directory right after.]:dir:_files -/'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--to[Migrate up or down to this version, included; `none` rolls back every migration (0 is a version like any other).]:version|none:{__dbtool_custom_complete ---completion migrate -- --to "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--dry-run[Print the migrations and SQL that would run; change nothing.]'
        '--allow-out-of-order[Apply pending migrations older than the newest applied one.]'
        '--snapshot[Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).]'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'up:Apply pending migrations (the default), or move to --to VERSION.'
            'status:List applied, pending, modified, missing and out-of-order migrations.'
            'rollback:Run the down sections of the newest applied migrations, newest first.'
            'repair:Record the new checksum of an applied migration whose file was edited on purpose.'
            'baseline:Mark an existing database as migrated up to VERSION, running nothing.'
            'adopt:Record the history of goose, golang-migrate or dbmate as applied, running nothing.'
            'new:Create the next migration file, with up and down markers.'
            'restore-snapshot:Put back the snapshot taken by `migrate --snapshot` (the way back without down sections).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        up|status|rollback|repair|baseline|adopt|new|restore-snapshot)
            "_dbtool_migrate_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_dbtool_migrate_up() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--to[Migrate up or down to this version, included; `none` rolls back every migration (0 is a version like any other).]:version|none:{__dbtool_custom_complete ---completion migrate up -- --to "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--dry-run[Print the migrations and SQL that would run; change nothing.]'
        '--allow-out-of-order[Apply pending migrations older than the newest applied one.]'
        '--snapshot[Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).]'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate up -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_status() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--exit-code[Exit 1 when migrations are pending, 3 when migrate would refuse (for CI and readiness probes).]'
        '--allow-out-of-order[With --exit-code\: out-of-order migrations count as pending, not as drift.]'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate status -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_rollback() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--steps[How many migrations to roll back.]:steps:{__dbtool_custom_complete ---completion migrate rollback -- --steps "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate rollback -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_repair() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':version:{__dbtool_custom_complete ---completion migrate repair -- positional@0 "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate repair -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_baseline() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':version:{__dbtool_custom_complete ---completion migrate baseline -- positional@0 "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate baseline -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_adopt() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate adopt -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_new() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':name:'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_migrate_restore-snapshot() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--snapshot[The snapshot to restore (default\: the latest taken before migrating).]:snapshot:{__dbtool_custom_complete ---completion migrate restore-snapshot -- --snapshot "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--migrations[The directory of VERSION_name.sql files (default\: $DBTOOL_MIGRATIONS).]:dir:_files -/'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion migrate restore-snapshot -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_exec() {
    local -i ret=1
    local -ar ___format=('table' 'csv' 'tsv' 'json' 'jsonl')
    local -ar arg_specs=(
        ':sql:'
        '--file[Read the SQL from this file.]:file:_files'
        '*--arg[A bound argument\: VALUE, or NAME=VALUE; VALUE may be typed\: text\:, int\:, real\:, blob\:HEX, null\:. Repeat as needed.]:value:'
        '--no-transaction[Run each statement on its own instead of in one transaction.]'
        '--readonly[Open the database read-only.]'
        '--format[table, csv, tsv, json or jsonl.]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors (the statements still run).]'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion exec -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_checkpoint() {
    local -i ret=1
    local -ar ___mode=('passive' 'full' 'restart' 'truncate')
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--mode[passive, full, restart or truncate.]:mode:{__dbtool_complete "${___mode[@]}"}'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion checkpoint -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_snapshot() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--output[The file to write.]:output:_files'
        '--output-dir[Write a timestamped file in this directory instead.]:output-dir:_files -/'
        '--keep[With --output-dir\: keep only the newest N snapshots.]:keep:'
        '--force[Replace the --output file if it exists.]'
        '--vacuum[Compact the copy (VACUUM INTO).]'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion snapshot -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_backup() {
    local -i ret=1
    local -ar ___archive_format=('tar.zst' 'tar.gz' 'tar.xz' 'tar' 'zip')
    local -ar ___sse=('AES256' 'aws:kms')
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--output[The archive to write.]:output:_files'
        '--output-dir[Write a timestamped archive in this directory instead.]:output-dir:_files -/'
        '--archive-format[The archive format (default\: the one --output'\''s extension names, else tar.zst).]:archive-format:{__dbtool_complete "${___archive_format[@]}"}'
        '--level[The compression level (zstd 1-22, gzip/xz/zip 0-9; default\: the format'\''s).]:level:'
        '--threads[Compression worker threads for tar.zst and tar.xz\: faster, but tens of MiB more memory (default 0\: none).]:threads:'
        '--to[Stream the archive to object storage under this prefix.]:s3\://bucket/prefix/:'
        '--keep[Keep the newest N archives of each database.]:n:'
        '--keep-hourly[Keep the newest archive of each of the last N hours.]:n:'
        '--keep-daily[Keep the newest archive of each of the last N days.]:n:'
        '--keep-weekly[Keep the newest archive of each of the last N ISO weeks.]:n:'
        '--keep-monthly[Keep the newest archive of each of the last N months.]:n:'
        '--keep-yearly[Keep the newest archive of each of the last N years.]:n:'
        '--keep-within[Keep every archive taken within this long of the newest one\: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic'\''s).]:duration:'
        '--dry-run[Check, and print what retention would delete; write and delete nothing.]'
        '--encrypt[Encrypt the archive\: a zip with AES-256 entries (needs a passphrase, below).]'
        '--passphrase-file[The file whose first line is the passphrase (a pipe works\: <(pass show backup)).]:passphrase-file:_files'
        '--passphrase-command[A command that prints the passphrase, run without a shell (default\: $DBTOOL_PASSPHRASE when set).]:command:'
        '--part-size[With --to\: the upload'\''s part size in MiB, 5 to 5120 (default 16).]:mib:'
        '--upload-threads[With --to\: parts uploaded at once; memory holds one part more (default 4).]:upload-threads:'
        '--storage-class[With --to\: the objects'\'' storage class (STANDARD_IA, GLACIER_IR...; default\: the bucket'\''s).]:storage-class:'
        '--sse[With --to\: server-side encryption of every object written\: AES256, or aws\:kms with the account'\''s S3 key (default\: the bucket'\''s).]:algorithm:{__dbtool_complete "${___sse[@]}"}'
        '--sse-kms-key-id[With --sse aws\:kms\: the KMS key (id, ARN or alias) instead of the account'\''s S3 key.]:key:'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--force[Replace --output if it exists.]'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion backup -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'create:Archive the whole database directory (the default of `dbtool backup`).'
            'list:List the archives in a backup directory or under an s3:// prefix, oldest first.'
            'verify:Check that an archive is whole and holds a sound database.'
            'prune:Delete the archives of a directory or prefix that no retention rule keeps.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        create|list|verify|prune)
            "_dbtool_backup_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_dbtool_backup_create() {
    local -i ret=1
    local -ar ___archive_format=('tar.zst' 'tar.gz' 'tar.xz' 'tar' 'zip')
    local -ar ___sse=('AES256' 'aws:kms')
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--output[The archive to write.]:output:_files'
        '--output-dir[Write a timestamped archive in this directory instead.]:output-dir:_files -/'
        '--archive-format[The archive format (default\: the one --output'\''s extension names, else tar.zst).]:archive-format:{__dbtool_complete "${___archive_format[@]}"}'
        '--level[The compression level (zstd 1-22, gzip/xz/zip 0-9; default\: the format'\''s).]:level:'
        '--threads[Compression worker threads for tar.zst and tar.xz\: faster, but tens of MiB more memory (default 0\: none).]:threads:'
        '--to[Stream the archive to object storage under this prefix.]:s3\://bucket/prefix/:'
        '--keep[Keep the newest N archives of each database.]:n:'
        '--keep-hourly[Keep the newest archive of each of the last N hours.]:n:'
        '--keep-daily[Keep the newest archive of each of the last N days.]:n:'
        '--keep-weekly[Keep the newest archive of each of the last N ISO weeks.]:n:'
        '--keep-monthly[Keep the newest archive of each of the last N months.]:n:'
        '--keep-yearly[Keep the newest archive of each of the last N years.]:n:'
        '--keep-within[Keep every archive taken within this long of the newest one\: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic'\''s).]:duration:'
        '--dry-run[Check, and print what retention would delete; write and delete nothing.]'
        '--encrypt[Encrypt the archive\: a zip with AES-256 entries (needs a passphrase, below).]'
        '--passphrase-file[The file whose first line is the passphrase (a pipe works\: <(pass show backup)).]:passphrase-file:_files'
        '--passphrase-command[A command that prints the passphrase, run without a shell (default\: $DBTOOL_PASSPHRASE when set).]:command:'
        '--part-size[With --to\: the upload'\''s part size in MiB, 5 to 5120 (default 16).]:mib:'
        '--upload-threads[With --to\: parts uploaded at once; memory holds one part more (default 4).]:upload-threads:'
        '--storage-class[With --to\: the objects'\'' storage class (STANDARD_IA, GLACIER_IR...; default\: the bucket'\''s).]:storage-class:'
        '--sse[With --to\: server-side encryption of every object written\: AES256, or aws\:kms with the account'\''s S3 key (default\: the bucket'\''s).]:algorithm:{__dbtool_complete "${___sse[@]}"}'
        '--sse-kms-key-id[With --sse aws\:kms\: the KMS key (id, ARN or alias) instead of the account'\''s S3 key.]:key:'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--force[Replace --output if it exists.]'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion backup create -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_backup_list() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':target:_files -/'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_backup_verify() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':archive:{__dbtool_custom_complete ---completion backup verify -- positional@0 "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--passphrase-file[The file whose first line is the passphrase (a pipe works\: <(pass show backup)).]:passphrase-file:_files'
        '--passphrase-command[A command that prints the passphrase, run without a shell (default\: $DBTOOL_PASSPHRASE when set).]:command:'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_backup_prune() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':target:_files -/'
        '--keep[Keep the newest N archives of each database.]:n:'
        '--keep-hourly[Keep the newest archive of each of the last N hours.]:n:'
        '--keep-daily[Keep the newest archive of each of the last N days.]:n:'
        '--keep-weekly[Keep the newest archive of each of the last N ISO weeks.]:n:'
        '--keep-monthly[Keep the newest archive of each of the last N months.]:n:'
        '--keep-yearly[Keep the newest archive of each of the last N years.]:n:'
        '--keep-within[Keep every archive taken within this long of the newest one\: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic'\''s).]:duration:'
        '--database[Only the archives of this database (its directory or file); default\: every database'\''s.]:path:{__dbtool_custom_complete ---completion backup prune -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[With --database\: the name of the database file inside its directory.]:file-name:'
        '--dry-run[Print what would be deleted; delete nothing.]'
        '--prune-unverified[Also delete the archives dbtool can not trust (see above).]'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_restore() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar ___log_format=('text' 'json')
    local -ar arg_specs=(
        ':archive:{__dbtool_custom_complete ---completion restore -- positional@0 "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        ':directory:_files -/'
        '--force[Replace the content of a non-empty DIR (refused while its database is in use).]'
        '--live[Restore into DIR'\''s database in place, while applications keep it open.]'
        '--keep-modes[Keep the permissions the archive records for others (default\: nothing readable by others).]'
        '--timeout[With --live\: how long to wait for the database'\''s write lock before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--txid[With a replica\: the TXID to restore, in hexadecimal as in its file names.]:txid:'
        '--at[With a replica\: the time to restore (ISO 8601, e.g. 2026-11-26T21\:55\:21Z).]:time:'
        '--if-db-not-exists[Exit 0 without restoring when DIR already holds a database.]'
        '--if-replica-exists[With a replica\: exit 0 without restoring when it holds nothing.]'
        '--follow[With a replica\: keep DIR current with it, read-only, until SIGTERM.]'
        '--follow-interval[With --follow\: seconds between looks at the replica (default 1).]:seconds:'
        '--passphrase-file[The file whose first line is the passphrase (a pipe works\: <(pass show backup)).]:passphrase-file:_files'
        '--passphrase-command[A command that prints the passphrase, run without a shell (default\: $DBTOOL_PASSPHRASE when set).]:command:'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--log-format[Log lines on stderr\: text (no time under systemd'\''s journal) or json, one object per line.]:format:{__dbtool_complete "${___log_format[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_replicate() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'run:Ship every committed transaction to a replica within --sync-interval (the default of `dbtool replicate`).'
            'status:Show a replica'\''s last TXID, its time and lag, and its files by level.'
            'verify:Read every file of a replica, check it and the chain, and say what is restorable.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        run|status|verify)
            "_dbtool_replicate_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_dbtool_replicate_run() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar ___log_format=('text' 'json')
    local -ar arg_specs=(
        '--to[The replica\: s3\://BUCKET/PREFIX/ or a directory (with --config\: each database'\''s replica).]:replica:_files -/'
        '--sync-interval[Seconds between syncs\: the most a crash loses (default 1).]:seconds:'
        '--checkpoint-pages[Checkpoint once the write-ahead log holds this many pages (default 1000).]:pages:'
        '--snapshot-interval[Hours between snapshots of the whole database (default 24).]:hours:'
        '--outbox-limit[The most the outbox holds while the store is away, in MiB (default 1024).]:mib:'
        '--shutdown-timeout[The longest the last sync takes after SIGTERM, in seconds (default 10).]:seconds:'
        '--startup-timeout[How long to wait for a store that does not answer at start-up, in seconds (default 300; then 75).]:seconds:'
        '--retention[How far back a restore can go\: 30min, 24h, 7d, 1mo (default 24h; a bare m is minutes, as Litestream'\''s). Older files go once a snapshot covers them.]:duration:'
        '--compaction-levels[The interval of each compaction level from 1 up, each longer than the last (default 30s,5m,1h, as Litestream).]:durations:'
        '--no-compaction[Do not merge files into higher levels (a restore then reads every level-0 file since a snapshot).]'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion replicate run -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--log-format[Log lines on stderr\: text (no time under systemd'\''s journal) or json, one object per line.]:format:{__dbtool_complete "${___log_format[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_replicate_status() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':replica:_files -/'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_replicate_verify() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        ':replica:_files -/'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_schema() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '*--table[Only this table (repeatable).]:table:'
        '--sql[Print the CREATE statements instead of the summary.]'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion schema -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_check() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--full[integrity_check instead of quick_check\: slower, also checks that indexes match their tables.]'
        '--max-wal[Warn when the WAL is larger than this\: 256MiB, 1GiB (default\: the database'\''s size, 64MiB at least).]:size:'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion check -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_vacuum() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--live[Run a full VACUUM on a WAL database even though writers wait for it.]'
        '--into[Write a compacted copy to this file instead.]:into:_files'
        '--force[With --into\: replace the file if it exists.]'
        '--incremental[Free up to N pages of an auto_vacuum=incremental database (0\: all).]:pages:'
        '--metrics-file[Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs'\'' samples in it are kept).]:file:_files'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion vacuum -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_optimize() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--analyze[ANALYZE every table, not only those whose statistics are stale.]'
        '--analysis-limit[Rows read per index by ANALYZE (0\: all; default\: all up to 1 GiB, 100000 above).]:rows:'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion optimize -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_stats() {
    local -i ret=1
    local -ar ___format=('text' 'json')
    local -ar arg_specs=(
        '--rows[Count each table'\''s rows (reads every row).]'
        '--backups[Where the backups go (a directory, or s3\://BUCKET/PREFIX/; for several databases, the folder of each under it)\: report the newest.]:dest:_files -/'
        '--endpoint[An S3-compatible endpoint, such as https\://minio.example.com\:9000 (default\: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the profile'\''s endpoint_url, else AWS).]:url:'
        '--region[The bucket'\''s region (default\: $AWS_REGION, the profile'\''s, else us-east-1).]:region:'
        '--profile[The profile of ~/.aws/credentials and ~/.aws/config to use; it outranks $AWS_ACCESS_KEY_ID (default\: $AWS_DEFAULT_PROFILE, else $AWS_PROFILE, else default).]:name:'
        '--ca-bundle[The PEM certificates a https\:// endpoint is checked against, for a private CA (default\: $AWS_CA_BUNDLE, the profile'\''s ca_bundle).]:file:_files'
        '--allow-insecure-endpoint[Allow a plain http\:// endpoint that is not on loopback.]'
        '--retries[Retries of a request after a network error, 5xx or SlowDown, with backoff, before exiting with 75 (default 5).]:retries:'
        '*--database[The database directory created by `dbtool init`, or a database file (default\: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.]:path:{__dbtool_custom_complete ---completion stats -- --database "${current_word_index}" "$(__dbtool_cursor_index_in_current_word)"}'
        '--file-name[The name of the database file inside its directory.]:file-name:'
        '--timeout[How long to wait for a locked database before exiting with 75 (0 to 86400; default 5).]:seconds:'
        '--config[A Litestream configuration file, such as /etc/litestream.yml\: its dbs are the databases (its dbtool\: section, their metrics file and retention).]:file:_files'
        '--jobs[With several databases\: how many at once (default\: the number of cores).]:n:'
        '--fail-fast[With several databases\: stop at the first failure (the others are reported as skipped).]'
        '--format[text for people, json for machines (exactly one JSON document on stdout).]:format:{__dbtool_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[Print nothing but errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_dbtool_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _dbtool ]]; then
    _dbtool "${@}"
else
    compdef _dbtool dbtool
fi
