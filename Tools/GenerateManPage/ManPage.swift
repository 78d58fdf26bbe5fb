import DBToolCore

/// dbtool's man page in man(7) source, from the tool description: NAME,
/// SYNOPSIS, DESCRIPTION, one subsection per command with its options and
/// its examples in literal displays, then ENVIRONMENT, FILES, EXIT STATUS
/// and SEE ALSO. `mandoc -Tlint` accepts it without a message.
struct ManPage {
    let tool: ToolDescription.Command
    let date: String
    let version: String

    var source: String {
        var page = Roff()
        page.request("TH", "DBTOOL", "1", date, "dbtool \(version)", "User Commands")
        // Left-aligned and never hyphenated: option names and paths must
        // read as typed.
        page.request("ad", "l")
        page.request("nh")
        page.request("nr", "HY", "0")
        page.section("NAME")
        page.text("dbtool \\- " + Roff.escaped(tool.abstract ?? ""))
        page.section("SYNOPSIS")
        page.line("\\fBdbtool\\fR \\fIcommand\\fR [\\fIoptions\\fR]")
        page.section("DESCRIPTION")
        page.discussion(tool.discussion ?? "", skippingExitStatus: true)
        page.request("PP")
        page.text(
            "Every command takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR (its options and examples) and \\fB\\-\\-version\\fR; "
                + "most take \\fB\\-\\-format json\\fR (one JSON document on stdout) and \\fB\\-q\\fR, \\fB\\-\\-quiet\\fR.")
        page.section("COMMANDS")
        for command in (tool.subcommands ?? []) where command.isShown {
            describe(command, path: ["dbtool"], parentDefault: nil, into: &page)
        }
        page.section("ENVIRONMENT")
        for (name, meaning) in Self.environment { page.entry("\\fB\(name)\\fR", meaning) }
        page.section("FILES")
        for (name, meaning) in Self.files { page.entry("\\fI\(Roff.escaped(name))\\fR", meaning) }
        page.section("EXIT STATUS")
        for status in ExitStatus.allCases { page.entry("\\fB\(status.rawValue)\\fR", status.meaning) }
        page.request("PP")
        page.text("\\fBmigrate status \\-\\-exit\\-code\\fR also exits 1 when migrations are pending and 3 when migrate would refuse.")
        page.section("SEE ALSO")
        page.line("\\fBsqlite3\\fR(1), \\fBbsdtar\\fR(1), \\fBzstd\\fR(1)")
        return page.source
    }

    private func describe(_ command: ToolDescription.Command, path: [String], parentDefault: String?, into page: inout Roff) {
        let path = path + [command.commandName]
        page.request("SS", path.joined(separator: " "))
        page.text(Roff.formatted(command.abstract ?? ""))
        if command.commandName == parentDefault {
            page.request("PP")
            page.text("The default subcommand: its options are listed under \\fB\(Roff.escaped(path.dropLast().joined(separator: " ")))\\fR.")
            return
        }
        page.discussion(command.discussion ?? "", skippingExitStatus: false)
        let arguments = (command.arguments ?? []).filter { $0.shouldDisplay && !Self.builtIn.contains($0.names?.first?.name ?? "") }
        if !arguments.isEmpty {
            page.request("PP")
            page.text("Options:")
            for argument in arguments { page.entry(Self.synopsis(argument), Self.help(argument)) }
        }
        // A default subcommand whose options the parent lists is not described twice.
        for subcommand in (command.subcommands ?? []) where subcommand.isShown {
            describe(subcommand, path: path, parentDefault: arguments.isEmpty ? nil : command.defaultSubcommand, into: &page)
        }
    }

    /// `--help` and `--version`, described once for all commands.
    private static let builtIn: Set<String> = ["help", "version", "h"]

    /// `\fB--to\fR \fIversion|none\fR`, `\fIarchive\fR`.
    private static func synopsis(_ argument: ToolDescription.Argument) -> String {
        let value = "\\fI\(Roff.escaped(argument.valueName ?? "value"))\\fR"
        switch argument.kind {
        case .positional: return value + (argument.isRepeating == true ? " ..." : "")
        case .flag, .option:
            let names = (argument.names ?? []).sorted { $0.name.count < $1.name.count }
                .map { "\\fB\(Roff.escaped($0.typed))\\fR" }.joined(separator: ", ")
            return argument.kind == .flag ? names : names + " " + value
        }
    }

    private static func help(_ argument: ToolDescription.Argument) -> String {
        var text = Roff.formatted(argument.abstract ?? "")
        if argument.kind == .option, let value = argument.defaultValue, !(argument.abstract ?? "").contains("default") {
            text += " (default: \(Roff.escaped(value)))"
        }
        return text
    }

    static let environment: [(String, String)] = [
        ("DBTOOL_DATABASE", "The database, for the commands that take \\fB\\-\\-database\\fR, when that option is not given."),
        ("DBTOOL_MIGRATIONS", "The migrations directory, when \\fB\\-\\-migrations\\fR is not given."),
        ("DBTOOL_MIGRATE_SNAPSHOT", "When \\fB1\\fR, \\fBmigrate\\fR snapshots the database first, as with \\fB\\-\\-snapshot\\fR."),
        ("DBTOOL_PASSPHRASE", "The passphrase of encrypted backups, when neither \\fB\\-\\-passphrase\\-file\\fR nor \\fB\\-\\-passphrase\\-command\\fR is given."),
        ("AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN", "The key for \\fIs3://\\fR repositories, unless \\fB\\-\\-profile\\fR names a profile."),
        ("AWS_PROFILE, AWS_DEFAULT_PROFILE, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE", "The profile of the AWS shared files, and where they are (\\fI~/.aws/config\\fR, \\fI~/.aws/credentials\\fR)."),
        ("AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_STS, AWS_REGION, AWS_CA_BUNDLE", "Where the object store and STS are, and the certificates their TLS is checked against."),
        ("AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN, AWS_ROLE_SESSION_NAME", "A web identity whose role's keys STS gives (Kubernetes service accounts)."),
        ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, AWS_CONTAINER_CREDENTIALS_FULL_URI, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "Container credentials (ECS tasks, EKS pod identity)."),
        ("AWS_EC2_METADATA_SERVICE_ENDPOINT, AWS_EC2_METADATA_DISABLED", "The EC2 instance metadata service, whose role's keys come last in the chain (IMDSv2); \\fBtrue\\fR turns it off."),
        ("TMPDIR", "Where \\fBbackup verify\\fR extracts the archive it checks (default \\fI/tmp\\fR); the copy is removed afterwards."),
    ]

    static let files: [(String, String)] = [
        ("DIR/db.sqlite", "The database of a directory made by \\fBdbtool init\\fR (another name with \\fB\\-\\-file\\-name\\fR); its \\fI\\-wal\\fR and \\fI\\-shm\\fR files beside it."),
        ("DIR/.dbtool-migrate.lock", "Locked (\\fBflock\\fR(2)) by a running \\fBmigrate\\fR, so that one runs at a time; left in place, empty."),
        ("DIR/.dbtool-backup.lock", "Locked by a running \\fBbackup\\fR of the directory; a second one exits 75."),
        ("DIR/snapshots/pre-migrate-*.sqlite", "Snapshots taken by \\fBmigrate \\-\\-snapshot\\fR; \\fIDIR/.dbtool-last-snapshot\\fR names the latest, for \\fBmigrate restore\\-snapshot\\fR."),
        (BackupManifest.entryName, "In every archive: versions, page count, applied migrations, and the size and SHA\\-256 of each file; \\fBbackup verify\\fR and \\fBrestore\\fR check against it."),
        (".dbtool-backup-*, .dbtool-snapshot-*, .dbtool-restore-*, .dbtool-write-*", "Temporary files of a run in progress (mode 0600), renamed into place when complete; the next run removes those a killed run left."),
    ]
}

extension ToolDescription.Command {
    /// Shown in the page: not hidden, and not ArgumentParser's `help` command
    /// (the page says once that every command takes `--help`).
    var isShown: Bool { shouldDisplay != false && commandName != "help" }
}
