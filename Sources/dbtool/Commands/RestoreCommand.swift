import ArgumentParser
import DBToolCore
import Foundation

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a database directory from an archive of dbtool backup.",
        discussion: """
            The archive is read whole and checked against its manifest before anything is written: \
            archives with absolute paths, `..`, links or device entries, and truncated or damaged ones, \
            are refused (65) and nothing changes. The directory is then extracted beside DIR, its \
            database must pass PRAGMA integrity_check, and it takes DIR's place by rename.

            DIR must be empty or missing (its parents are created, mode 0700), unless --force: its \
            content is then moved aside, put back if the restore fails, and deleted once the restore \
            is complete. Files are never swapped under a database in use: when a process has DIR's \
            database open (a SQLite lock, its WAL index, or an open descriptor), restore exits 75 and \
            changes nothing. Stop the application first, or pass --live.

            With --live, the database is restored in place, through SQLite's online backup API, in one \
            write transaction of the running database (waiting up to --timeout for its write lock): \
            connected applications see the restored content from their next transaction. The \
            archive's other files replace theirs; files it does not hold are kept.

            An s3://BUCKET/KEY archive (s3://BUCKET/PREFIX/latest: the newest) is streamed once \
            into the staging directory, checked against its manifest as it is extracted, and \
            refused with nothing changed under the same rules. Encrypted archives take \
            --passphrase-file.

            Examples:
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db-restored
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db --force
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db --live
              dbtool restore s3://backups/myapp/latest /var/lib/myapp/db --force
            """)

    @Argument(help: "The archive (any format dbtool backup writes), or s3://BUCKET/KEY (.../latest: the newest).", completion: .archives)
    var archive: String

    @Argument(help: "The database directory to restore into.", completion: .directory)
    var directory: String

    @Flag(name: .long, help: "Replace the content of a non-empty DIR (refused while its database is in use).")
    var force = false

    @Flag(name: .long, help: "Restore into DIR's database in place, while applications keep it open.")
    var live = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --live: how long to wait for the database's write lock before exiting with 75 (0 to \(Int(DatabaseLocation.maximumTimeout)); default 5).",
            valueName: "seconds"))
    var timeout: Double = DatabaseHandle.defaultTimeout

    func validate() throws {
        try validateTimeout(timeout)
        if live && force { throw ValidationError("--live and --force exclude each other: --live replaces the content in place") }
    }

    @Option(name: .long, help: "The file whose first line is the passphrase of an encrypted archive.", completion: .file())
    var passphraseFile: String?

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = RestoreOperation(archive: archive, directory: directory)
        operation.objectStore = objectStore.options
        if let passphraseFile { operation.passphrase = try Passphrase.read(file: passphraseFile) }
        operation.force = force
        operation.live = live
        operation.timeout = timeout
        let progress = Terminal.isAttached(2) && !output.quiet ? ProgressLine(label: "restoring") : nil
        if let progress {
            operation.progress = { done, total in progress.update(bytes: done, total: total) }
        }
        let restore = operation
        try runReporting(
            output,
            operation: {
                defer { progress?.finishLine() }
                return try restore.run()
            },
            text: { report in
                "Restored \(report.directory) from \(report.archive)"
                    + (report.live ? " in place (live)" : report.replaced ? " (its old content replaced)" : "") + "; "
                    + "integrity_check \(report.integrity).\n" + manifestSummary(report.manifest)
            })
    }
}
