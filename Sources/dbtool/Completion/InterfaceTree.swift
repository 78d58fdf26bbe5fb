import ArgumentParser

/// dbtool's commands as help, shell completion and the man page present
/// them: the same tree as ``DBTool``, except that `migrate` and `backup` also
/// carry the options of the subcommand they run by default (`up`, `create`),
/// so that `dbtool migrate --to <TAB>` completes versions and `dbtool
/// backup --help` lists `--output-dir`.
///
/// Parsing for a run stays with ``DBTool``: there, an option of `up` given to
/// `migrate status` is an error, and `restore-snapshot --snapshot FILE` is not
/// mistaken for `up`'s `--snapshot` flag.
struct DBToolInterface: ParsableCommand {
    static let configuration: CommandConfiguration = {
        var configuration = DBTool.configuration
        configuration.subcommands = DBTool.configuration.subcommands.map { command in
            if command == MigrateCommand.self { return MigrateInterface.self }
            if command == BackupCommand.self { return BackupInterface.self }
            return command
        }
        return configuration
    }()

    /// Whether these arguments are for the interface tree: a completion
    /// script, a completion request from one, the tool description the man
    /// page is made from, or the help of `migrate` or `backup` itself.
    static func handles(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        if first == "---completion" || arguments.contains("--generate-completion-script")
            || arguments.contains("--experimental-dump-help")
        {
            return true
        }
        let parents = [MigrateInterface.configuration.commandName, BackupInterface.configuration.commandName]
        if first == "help" { return arguments.count == 2 && parents.contains(arguments[1]) }
        return arguments.count == 2 && parents.contains(first) && ["--help", "-h", "-help"].contains(arguments[1])
    }
}

/// `migrate` with the options of `migrate up`, its default.
struct MigrateInterface: ParsableCommand {
    static let configuration: CommandConfiguration = {
        var configuration = MigrateCommand.configuration
        configuration.usage = """
            dbtool migrate [--to <version|none>] [--dry-run] [--allow-out-of-order] [--snapshot] [<options>]
              dbtool migrate <subcommand> [<options>]
            """
        return configuration
    }()

    @OptionGroup var up: MigrateUp

    func run() throws { try up.run() }
}

/// `backup` with the options of `backup create`, its default.
struct BackupInterface: ParsableCommand {
    static let configuration: CommandConfiguration = {
        var configuration = BackupCommand.configuration
        configuration.usage = """
            dbtool backup --database <path> (--output <file> | --output-dir <dir> | --to <s3://bucket/prefix/>) [<options>]
              dbtool backup list|verify|prune <archive or place> [<options>]
            """
        return configuration
    }()

    @OptionGroup var create: CreateBackupCommand

    func run() throws { try create.run() }
}
