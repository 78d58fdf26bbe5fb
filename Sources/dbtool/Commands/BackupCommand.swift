import ArgumentParser
import DBToolCore
import Foundation

extension ArchiveFormat: ExpressibleByArgument {}

/// `dbtool backup` (creates an archive: `create` is the default) and `dbtool backup verify`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Archive the whole database directory, consistent while the application writes.",
        discussion: """
            `dbtool backup --database DIR (--output FILE | --output-dir DIR)` writes an archive (the \
            options below are those of `backup create`, the default); `dbtool backup verify \
            ARCHIVE` checks one.

            Examples:
              dbtool backup --database /var/lib/myapp/db --output-dir /backups --keep 14
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst

            Exit status: 0 archive written (verify: sound); 64 usage error; 65 verify: the archive \
            or its database is damaged; 66 no database or archive; 73 cannot create the archive; 74 \
            I/O error or disk full (nothing is left under the final name); 75 another backup of \
            the database is running, or it stayed locked past --timeout; 77 permission denied; 130 \
            interrupted (temp files removed).
            """,
        subcommands: [CreateBackupCommand.self, VerifyBackupCommand.self],
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
            which writers wait for during that copy alone (reported as lockSeconds).

            The archive is written to a temp file beside its destination (mode 0600), fsynced and \
            renamed: a crash or signal never leaves a partial archive under its final name, and the \
            next run removes the temp files of killed runs. A second backup of the same database \
            while one runs exits 75 at once.

            With --output-dir DIR the archive is named FOLDER-YYYYMMDDTHHMMSS.mmmZ.EXT (UTC), and \
            --keep N deletes all but the newest N archives of that database there, once the new one \
            is complete.

            The archive format is the one --output's extension names (.tar.zst, .tar.gz or .tgz, \
            .tar.xz, .tar, .zip); --archive-format chooses it for --output-dir, and is refused when \
            it contradicts the extension. --format json prints one JSON document, as on every command.

            Examples:
              dbtool backup --database /var/lib/myapp/db --output-dir /backups --keep 14
              dbtool backup --database /var/lib/myapp/db --output /tmp/db.tar.gz --level 9
              dbtool backup --database db --output-dir /backups --archive-format zip
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db-restored
            """)

    @Option(name: .customLong("output"), help: "The archive to write.", completion: .file())
    var outputPath: String?

    @Option(name: .long, help: "Write a timestamped archive in this directory instead.", completion: .directory)
    var outputDir: String?

    @Option(name: .long, help: "The archive format (default: the one --output's extension names, else tar.zst).")
    var archiveFormat: ArchiveFormat?

    @Option(name: .long, help: "The compression level (zstd 1-22, gzip/xz/zip 0-9; default: the format's).")
    var level: Int?

    @Option(
        name: .long,
        help: "Compression worker threads for tar.zst and tar.xz: faster, but tens of MiB more memory (default 0: none).")
    var threads: Int?

    @Option(name: .long, help: "With --output-dir: keep only the newest N archives of this database.")
    var keep: Int?

    @Flag(name: .long, help: "Replace --output if it exists.")
    var force = false

    /// The option of the first design, refused with the name of its successor.
    @Option(name: .long, help: .hidden)
    var report: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let report {
            throw ValidationError("--report is now --format, as on every command: use --format \(report)")
        }
        if (outputPath == nil) == (outputDir == nil) {
            throw ValidationError("give exactly one destination: --output FILE or --output-dir DIR")
        }
        if keep != nil && outputDir == nil {
            throw ValidationError("--keep works with --output-dir only")
        }
        if let threads, !(0...256).contains(threads) {
            throw ValidationError("--threads must be from 0 to 256 (got \(threads))")
        }
        if let keep, keep < 1 {
            throw ValidationError("--keep must be 1 or more (got \(keep))")
        }
    }

    func run() throws {
        var operation = BackupOperation(database: database.handle)
        operation.output = outputPath
        operation.outputDirectory = outputDir
        operation.format = archiveFormat
        operation.level = level
        if let threads { operation.threads = threads }
        operation.keep = keep
        operation.force = force
        let progress = Terminal.isAttached(2) && !output.quiet ? ProgressLine(label: "backup") : nil
        if let progress {
            operation.progress = { step in
                progress.update(bytes: step.done, total: step.total, label: step.phase == .copying ? "copying" : "archiving")
            }
        }
        Interruption.install()
        let backup = operation
        try runReporting(
            output,
            operation: {
                defer { progress?.finishLine() }
                return try backup.run()
            },
            text: { report in
                var text = """
                    Backup of \(report.database) written to \(report.archive)
                    \(report.files) files, \(ByteCount.text(report.sourceBytes)) archived in \(ByteCount.text(report.bytes)) \
                    (\(report.format)); writers waited \(String(format: "%.3f", report.lockSeconds)) s; \
                    \(String(format: "%.1f", report.seconds)) s in all.
                    """
                if !report.skipped.isEmpty { text += "\nSkipped (not regular files): \(report.skipped.joined(separator: ", "))" }
                if !report.deleted.isEmpty { text += "\nDeleted \(report.deleted.count) older archive(s)." }
                if !report.deleteFailures.isEmpty {
                    text += "\nCould not delete \(report.deleteFailures.count) older archive(s): \(report.deleteFailures.joined(separator: "; "))"
                }
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
            integrity_check and foreign_key_check. Exit 0, or 65 naming what is wrong.

            Example:
              dbtool backup verify /backups/db-20261123T020000.000Z.tar.zst
            """)

    @Argument(help: "The archive (any format dbtool backup writes).", completion: .archives)
    var archive: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        Interruption.install()
        let verify = VerifyOperation(archive: archive)
        try runReporting(
            output, operation: { try verify.run() },
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
