import ArgumentParser
import DBToolCore
import FoundationEssentials

extension ArchiveFormat: ExpressibleByArgument {}

/// `dbtool backup` (creates an archive: `create` is the default) and `dbtool backup verify`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Archive the whole database directory, consistent while the application writes.",
        discussion: """
            `dbtool backup --database DIR (--output FILE | --output-dir DIR | --to s3://BUCKET/PREFIX/)` \
            writes an archive (the options below are those of `backup create`, the default); \
            `dbtool backup list` shows the archives of a directory or prefix; `dbtool backup verify \
            ARCHIVE` checks one.

            Examples:
              dbtool backup --database /var/lib/myapp/db --output-dir /backups --keep 14
              dbtool backup --database db --to s3://backups/myapp/ --keep-daily 7
              dbtool backup list s3://backups/myapp/
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst

            Exit status: 0 archive written (verify: sound); 64 usage error; 65 verify: the archive \
            or its database is damaged; 66 no database, archive or bucket; 73 cannot create the \
            archive; 74 I/O error or disk full (nothing is left under the final name); 75 another \
            backup of the database is running, it stayed locked past --timeout, or the object \
            store failed after --retries; 77 permission denied (credentials refused, passphrase \
            missing); 130 interrupted (temp files removed, uploads aborted).
            """,
        subcommands: [CreateBackupCommand.self, ListBackupCommand.self, VerifyBackupCommand.self, PruneBackupCommand.self],
        defaultSubcommand: CreateBackupCommand.self)
}

struct CreateBackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Archive the whole database directory (the default of `dbtool backup`).",
        discussion: """
            The archive holds the database directory: the database, its -wal and -shm, and every \
            other file, under one folder named after the directory, with a manifest \
            (.dbtool-manifest.json: versions, page count, migrations, size and SHA-256 of each file). \
            The database file streams into the archive under a read transaction while the \
            application keeps writing; only the -wal and -shm are copied under SQLite's write lock, \
            which writers wait for during that copy alone (reported as writerStallMs).

            The archive is written to a temp file beside its destination (mode 0600), fsynced and \
            renamed: a crash or signal never leaves a partial archive under its final name, and the \
            next run removes the temp files of killed runs. A second backup of the same database \
            while one runs exits 75 at once.

            With --output-dir DIR the archive is named FOLDER-YYYYMMDDTHHMMSS.mmmZ.EXT (UTC). \
            Retention then deletes the archives of that database there that no rule keeps, once the \
            new one is complete: --keep N keeps the newest N; --keep-hourly, --keep-daily, \
            --keep-weekly, --keep-monthly and --keep-yearly N keep the newest archive of each of \
            the last N hours, days, ISO weeks, months or years that have one (UTC), as restic's \
            forget does. An archive kept by any rule stays. --dry-run prints what would be deleted, \
            and writes and deletes nothing.

            With --to s3://BUCKET/PREFIX/ the archive streams to S3-compatible object storage as \
            it is written (a multipart upload of --part-size parts, --upload-threads at once; \
            nothing is staged on local disk but the -wal). The object appears under its key only \
            once complete: an error or signal aborts the upload, and the next run aborts those of \
            killed runs. Its metadata holds its SHA-256, page count and last migration, for \
            `backup list`. The key comes from the AWS SDKs' credential chain, in their order: \
            AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (unless --profile is given), a profile's \
            role_arn (STS AssumeRole), a web identity (AWS_WEB_IDENTITY_TOKEN_FILE and \
            AWS_ROLE_ARN), the profile's keys or credential_process (--profile, else \
            AWS_DEFAULT_PROFILE, AWS_PROFILE, default; a profile named but not found is 64), \
            container credentials, then the EC2 instance's role (IMDSv2); temporary keys are \
            refreshed before they expire. The profile's endpoint_url applies unless \
            AWS_ENDPOINT_URL is set. Retention applies to the prefix as to a directory.

            --encrypt writes a zip archive whose entries are encrypted with AES-256 (WinZip AE-2, \
            readable by 7z and bsdtar); entry names and sizes stay visible. The passphrase comes \
            from --passphrase-file FILE, from the first line --passphrase-command prints (run \
            without a shell, e.g. "pass show backup"; a failure is 77), or from \
            $DBTOOL_PASSPHRASE; never from an argument.

            The archive format is the one --output's extension names (.tar.zst, .tar.gz or .tgz, \
            .tar.xz, .tar, .zip); --archive-format chooses it for --output-dir, and is refused when \
            it contradicts the extension. --format json prints one JSON document, as on every command.

            Examples:
              dbtool backup --database /var/lib/myapp/db --output-dir /backups --keep 14
              dbtool backup --database /var/lib/myapp/db --output /tmp/db.tar.gz --level 9
              dbtool backup --database db --output-dir /backups --archive-format zip
              dbtool backup --database db --to s3://bak/app/ --keep-daily 7 --keep-weekly 4
              dbtool backup --database db --output-dir /backups --keep-daily 7 --dry-run
              dbtool backup --database db --output-dir /bak --encrypt --passphrase-file key
              dbtool backup verify /bak/db.zip --passphrase-command "pass show bak"
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db-restored
            """)

    @Option(name: .customLong("output"), help: "The archive to write.", completion: .file(), transform: nonEmptyPath)
    var outputPath: String?

    @Option(name: .long, help: "Write a timestamped archive in this directory instead.", completion: .directory, transform: nonEmptyPath)
    var outputDir: String?

    @Option(name: .long, help: "The archive format (default: the one --output's extension names, else tar.zst).")
    var archiveFormat: ArchiveFormat?

    @Option(name: .long, parsing: .unconditional, help: "The compression level (zstd 1-22, gzip/xz/zip 0-9; default: the format's).")
    var level: Int?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Compression worker threads for tar.zst and tar.xz: faster, but tens of MiB more memory (default 0: none).")
    var threads: Int?

    @Option(
        name: .long, help: ArgumentHelp("Stream the archive to object storage under this prefix.", valueName: "s3://bucket/prefix/"),
        transform: nonEmptyPath)
    var to: String?

    @OptionGroup(title: "Retention (with --output-dir or --to)") var retention: RetentionOptions

    @Flag(name: .long, help: "Check, and print what retention would delete; write and delete nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Encrypt the archive: a zip with AES-256 entries (needs a passphrase, below).")
    var encrypt = false

    @OptionGroup(title: "Passphrase (with --encrypt)") var passphrase: PassphraseOptions

    @OptionGroup(title: "Upload (with --to)") var upload: UploadOptions

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments

    @Flag(name: .long, help: "Replace --output if it exists.")
    var force = false

    /// The option of the first design, refused with the name of its successor.
    @Option(name: .long, help: .hidden)
    var report: String?

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let report {
            throw ValidationError("--report is now --format, as on every command: use --format \(report)")
        }
        if [outputPath, outputDir, to].compactMap({ $0 }).count != 1 {
            throw ValidationError("give exactly one destination: --output FILE, --output-dir DIR or --to s3://BUCKET/PREFIX/")
        }
        if let to, !StoreLocation.isObjectStorage(to) {
            throw ValidationError("--to takes an s3://BUCKET/PREFIX/ URL (got \(to)); write local archives with --output-dir")
        }
        if !retention.policy.isEmpty && outputPath != nil {
            throw ValidationError("\(retention.policy.description) works with --output-dir or --to only")
        }
        if encrypt && !passphrase.isAvailable {
            throw ValidationError("--encrypt needs a passphrase: --passphrase-file FILE, --passphrase-command CMD, or $DBTOOL_PASSPHRASE")
        }
        if !encrypt && passphrase.isGiven { throw ValidationError("--passphrase-file and --passphrase-command work with --encrypt") }
        if upload.sse != nil && to == nil { throw ValidationError("--sse works with --to s3://BUCKET/PREFIX/") }
        if database.namesFleet && outputPath != nil {
            throw ValidationError("--output names one file: with several databases, give --output-dir DIR or --to (a folder per database)")
        }
        if let threads, !(0...256).contains(threads) {
            throw ValidationError("--threads must be from 0 to 256 (got \(threads))")
        }
    }

    /// The backup of one database, as the options ask.
    private func operation(_ handle: DatabaseHandle, passphrase: String?) -> BackupOperation {
        var operation = BackupOperation(database: handle)
        operation.output = outputPath
        operation.outputDirectory = outputDir
        operation.format = archiveFormat
        operation.level = level
        if let threads { operation.threads = threads }
        operation.retention = retention.policy
        operation.force = force
        operation.dryRun = dryRun
        operation.objectPrefix = to
        operation.objectStore = objectStore.options
        operation.upload.partSize = upload.partSize << 20
        operation.upload.threads = upload.uploadThreads
        operation.upload.storageClass = upload.storageClass
        operation.upload.serverSideEncryption = upload.sse
        operation.upload.serverSideEncryptionKeyID = upload.sseKMSKeyID
        operation.passphrase = passphrase
        return operation
    }

    /// A fleet: each database's archives in a folder of its own
    /// (`DIR/NAME/`, `s3://BUCKET/PREFIX/NAME/`), so that each series and its
    /// retention stay one database's.
    private func runFleet(passphrase: String?) throws {
        guard let first = try database.handles.first else { return }
        let shared = operation(first, passphrase: passphrase)
        let configuration = try database.configuration
        try runOverDatabases("backup", database, fleet, output, metrics: metrics) { handle in
            var operation = shared
            operation.database = handle
            // No --keep given: the configuration file's retention of this database.
            if shared.retention.isEmpty, let policy = configuration?.database(at: handle.location)?.dbtool.retention {
                operation.retention = policy
            }
            operation.outputDirectory = shared.outputDirectory.map { $0 + "/" + handle.location.fleetName }
            operation.outputRoot = shared.outputDirectory
            operation.objectPrefix = shared.objectPrefix.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + handle.location.fleetName + "/" }
            let report = try operation.run()
            return (report, report.dryRun ? nil : report.bytes)
        } text: { report in
            report.dryRun
                ? "\(report.database): would write \(report.archive)"
                : "\(report.database): \(report.archive) (\(ByteCount.text(report.bytes)))"
        }
    }

    func run() throws {
        retention.noteUnits(quiet: output.quiet)
        let passphrase = encrypt ? try self.passphrase.passphrase() : nil
        if database.namesFleet { return try runFleet(passphrase: passphrase) }
        let handle = try database.handle
        var operation = self.operation(handle, passphrase: passphrase)
        let progress = Terminal.isAttached(2) && !output.quiet ? ProgressLine(label: "backup") : nil
        if let progress { operation.progress = progress.update }
        let backup = operation
        try runReporting(
            output,
            operation: {
                defer { progress?.finishLine() }
                return try metrics.recorded("backup", database: handle) {
                    let report = try backup.run()
                    return (report, report.dryRun ? nil : report.bytes)
                }
            },
            text: { report in
                if report.dryRun {
                    let deletions = report.wouldDelete.isEmpty ? "nothing" : report.wouldDelete.joined(separator: "\n  ")
                    return "Dry run: would write \(report.archive) (\(report.files) files, \(ByteCount.text(report.sourceBytes)) now); "
                        + "retention would delete \(report.wouldDelete.isEmpty ? "" : "\(report.wouldDelete.count):\n  ")\(deletions)"
                }
                var text = """
                    Backup of \(report.database) written to \(report.archive)
                    \(report.files) files, \(ByteCount.text(report.sourceBytes)) archived in \(ByteCount.text(report.bytes)) \
                    (\(report.format)); writers waited \(Decimals.text(report.lockSeconds, places: 3)) s; \
                    \(Decimals.text(report.seconds, places: 1)) s in all.
                    """
                if !report.skipped.isEmpty { text += "\nSkipped (not regular files): \(report.skipped.joined(separator: ", "))" }
                if let sha256 = report.sha256 { text += "\nSHA-256 \(sha256)" }
                if !report.abortedUploads.isEmpty { text += "\nAborted \(report.abortedUploads.count) upload(s) left by killed runs." }
                if !report.deleted.isEmpty {
                    text += "\nDeleted \(report.deleted.count) older archive(s): \(report.deleted.joined(separator: ", "))"
                }
                if !report.deleteFailures.isEmpty {
                    text +=
                        "\nCould not delete \(report.deleteFailures.count) older archive(s): \(report.deleteFailures.joined(separator: "; "))"
                }
                for warning in report.warnings { text += "\nwarning: \(warning)" }
                return text
            })
    }
}

struct VerifyBackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that an archive is whole and holds a sound database.",
        discussion: """
            Reads the whole archive, checks every file against the size and SHA-256 in its manifest, \
            extracts it to a temp directory ($TMPDIR, removed afterwards) and runs PRAGMA \
            integrity_check and foreign_key_check. Exit 0, or 65 naming what is wrong. An s3:// \
            archive is streamed once (ranged GETs, no local copy of the archive); \
            s3://BUCKET/PREFIX/latest names the newest archive under PREFIX.

            Examples:
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst
              dbtool backup verify s3://backups/myapp/latest
              dbtool backup verify /bak/db-20261123T020000.000Z.zip --passphrase-file key
            """)

    @Argument(help: "The archive (any format dbtool backup writes), or s3://BUCKET/KEY.", completion: .archives, transform: nonEmptyPath)
    var archive: String

    @OptionGroup(title: "Passphrase of an encrypted archive") var passphrase: PassphraseOptions

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var verify = VerifyOperation(archive: archive)
        verify.objectStore = objectStore.options
        verify.passphrase = try passphrase.passphrase()
        let operation = verify
        try runReporting(
            output, operation: { try operation.run() },
            text: { report in
                "\(report.archive) is sound: \(report.manifest.files.count) files match the manifest, integrity_check ok.\n"
                    + manifestSummary(report.manifest)
            })
    }
}

/// Two lines about a backup, for verify and restore.
func manifestSummary(_ manifest: BackupManifest) -> String {
    let migration = manifest.migrations.last.map { "last migration \($0.version) \($0.name)" } ?? "no dbtool migrations"
    return """
        Backup of \(manifest.folder)/\(manifest.databaseFile) taken \(manifest.created) by dbtool \(manifest.dbtoolVersion) \
        (SQLite \(manifest.sqliteVersion)): \(manifest.pageCount) pages of \(manifest.pageSize) bytes, \(migration).
        """
}

struct ListBackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the archives in a backup directory or under an s3:// prefix, oldest first.",
        discussion: """
            Shows each archive's name, size and time, and what its record says (database, page \
            count, last migration), without reading the archive. An archive without a record \
            matching it (copied there by hand, cut short, written before version 0.5, the \
            archive of a corrupt database) is listed UNVERIFIED: retention never counts nor deletes \
            it, and it is never latest. The newest verified archive is what DIR/latest and \
            s3://BUCKET/PREFIX/latest name.

            Examples:
              dbtool backup list /backups
              dbtool backup list s3://backups/myapp/ --format json
            """)

    @Argument(help: "A directory of archives, or s3://BUCKET/PREFIX/.", completion: .directory, transform: nonEmptyPath)
    var target: String

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var list = BackupListOperation(target: target)
        list.objectStore = objectStore.options
        let operation = list
        try runReporting(
            output, operation: { try operation.run() },
            text: { report in
                guard !report.archives.isEmpty else { return "No archives in \(report.target)." }
                return report.archives.map { archive in
                    var line = "\(archive.location)  \(ByteCount.text(archive.size))  \(archive.created)"
                    if let database = archive.database, archive.verified { line += "  \(database)" }
                    if let pages = archive.pageCount { line += "  \(pages) pages" }
                    if let migration = archive.lastMigration { line += "  migration \(migration)" }
                    if archive.encrypted == true { line += "  encrypted" }
                    if let sse = archive.serverSideEncryption { line += "  sse \(sse)" }
                    if let key = archive.serverSideEncryptionKeyID { line += " (\(key))" }
                    if !archive.verified { line += "  UNVERIFIED: \(archive.unverifiedReason ?? "")" }
                    if archive.location == report.latest { line += "  (latest)" }
                    return line
                }.joined(separator: "\n")
            })
    }
}
