import ArgumentParser
import DBToolCore
import FoundationEssentials

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a database directory from an archive of dbtool backup.",
        discussion: """
            The archive is read once, from a file, a pipe (- or /dev/stdin) or an object: each entry \
            is checked and extracted into a private staging directory beside DIR, and the files \
            extracted must be exactly those of its manifest, with their SHA-256. Archives with \
            absolute paths, `..`, links or device entries, and truncated, damaged or altered ones, are \
            refused (65) and DIR is not touched. The staged database must pass PRAGMA \
            integrity_check; the staging directory then takes DIR's place by rename. Nothing restored \
            is readable or writable by others unless --keep-modes.

            DIR must be empty or missing (its parents are created, mode 0700), unless --force: its \
            content is then moved aside, put back if the restore fails, and deleted once the restore \
            is complete. Files are never swapped under a database in use: when a process has a file \
            of DIR open, or holds a SQLite lock or the WAL index of any database in DIR (whatever its \
            name, links followed), restore exits 75 and changes nothing. Stop the application first, \
            or pass --live. DIR is checked again just before the swap, under a lock beside it: a DIR \
            that appeared or filled meanwhile is refused (73) and left as it is, and a second restore \
            into DIR exits 75. A restore also holds DIR's migration lock: no `dbtool migrate` runs \
            during it.

            With --live, the backup's database is copied into DIR's database of the same name, in \
            place, through SQLite's online backup API, in one write transaction of the running \
            database (waiting up to --timeout for its write lock): connected applications see the \
            restored content from their next transaction. Its writers wait for the whole copy: 3 to 7 \
            ms per MB of database (0.3 to 0.7 s for 100 MB, measured; reported as writerStallMs). \
            Rule of thumb: an application's busy timeout should exceed 10 ms per MB of database, \
            else it sees SQLITE_BUSY during the restore. The archive's other files \
            replace theirs; files it does not hold are kept. A DIR whose database has another name, \
            or holds no database, is refused (65).

            An s3://BUCKET/KEY archive (s3://BUCKET/PREFIX/latest: the newest) is streamed the same \
            way. Encrypted archives take --passphrase-file, --passphrase-command or $DBTOOL_PASSPHRASE.

            A replica that `dbtool replicate` (or Litestream 0.5) writes, a directory or an \
            s3://BUCKET/PREFIX/ ending with /, is restored to its latest state, to --txid N (its \
            hexadecimal TXID), or to --at TIME (ISO 8601: the state of the last sync before TIME): \
            the newest snapshot before the target and the files after it are applied in the staging \
            directory, each checked, and the same rules follow. --if-db-not-exists exits 0 without \
            restoring when DIR already holds a database, --if-replica-exists when the replica holds \
            nothing: a container's boot script restores only what is missing. With --follow, DIR \
            then stays a read-only copy that follows the replica: every --follow-interval seconds \
            the new files' pages are written into DIR's database in place, as one transaction of \
            SQLite's rollback journal (readers see the state before or after, never half of it, \
            and wait only while the changed pages are written; the copy has no write-ahead log), \
            until SIGTERM or SIGINT (then 0). Run again on the copy a follower left (a restart, \
            a reboot, a kill), it goes on from the copy's TXID instead of restoring anew, first \
            rolling back an update a kill cut short; the copy of another replica, or a database \
            replaced since, is refused (73) unless --force.

            Examples:
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db-restored
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db --force
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst ./db --live
              dbtool restore s3://backups/myapp/latest /var/lib/myapp/db --force
              ssh backup-host cat /bak/db.tar.zst | dbtool restore - ./db-restored
              dbtool restore s3://bak/app-replica/ ./db --at 2026-11-26T21:55:21Z
              dbtool restore s3://bak/app-replica/ /data/db --if-db-not-exists
              dbtool restore s3://bak/app-replica/ /srv/read-copy --follow
            """)

    @Argument(
        help:
            "The archive (any format dbtool backup writes), - for stdin, s3://BUCKET/KEY (.../latest: the newest), or a replica (a directory, s3://BUCKET/PREFIX/).",
        completion: .archives, transform: nonEmptyPath)
    var archive: String

    @Argument(help: "The database directory to restore into.", completion: .directory, transform: nonEmptyPath)
    var directory: String

    @Flag(name: .long, help: "Replace the content of a non-empty DIR (refused while its database is in use).")
    var force = false

    @Flag(name: .long, help: "Restore into DIR's database in place, while applications keep it open.")
    var live = false

    @Flag(name: .long, help: "Keep the permissions the archive records for others (default: nothing readable by others).")
    var keepModes = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "With --live: how long to wait for the database's write lock before exiting with 75 (0 to \(Int(DatabaseLocation.maximumTimeout)); default 5).",
            valueName: "seconds"))
    var timeout: Double = DatabaseHandle.defaultTimeout

    @Option(name: .long, help: ArgumentHelp("With a replica: the TXID to restore, in hexadecimal as in its file names.", valueName: "txid"))
    var txid: String?

    @Option(
        name: .long, help: ArgumentHelp("With a replica: the time to restore (ISO 8601, e.g. 2026-11-26T21:55:21Z).", valueName: "time"))
    var at: String?

    @Flag(name: .long, help: "Exit 0 without restoring when DIR already holds a database.")
    var ifDbNotExists = false

    @Flag(name: .long, help: "With a replica: exit 0 without restoring when it holds nothing.")
    var ifReplicaExists = false

    @Flag(name: .long, help: "With a replica: keep DIR current with it, read-only, until SIGTERM.")
    var follow = false

    @Option(name: .long, help: ArgumentHelp("With --follow: seconds between looks at the replica (default 1).", valueName: "seconds"))
    var followInterval: Double = 1

    func validate() throws {
        try validateTimeout(timeout)
        if !follow && log.logFormat != .text { throw ValidationError("--log-format shapes the log of --follow: add --follow, or drop it") }
        if follow && ifDbNotExists { throw ValidationError("--follow starts from a restore: it takes no --if-db-not-exists") }
        if follow && (txid != nil || at != nil) { throw ValidationError("--follow follows the latest state: it takes no --txid or --at") }
        guard followInterval >= 0.05 && followInterval <= 3600 else {
            throw ValidationError("--follow-interval takes 0.05 to 3600 seconds")
        }
        if txid != nil && at != nil { throw ValidationError("--txid and --at exclude each other: give one target") }
        if let txid, UInt64(txid, radix: 16) == nil {
            throw ValidationError("--txid takes a hexadecimal TXID as in the replica's file names (got \(txid))")
        }
        if let at, ISOTime.parse(at) == nil {
            throw ValidationError("--at takes an ISO 8601 time such as 2026-11-26T21:55:21Z (got \(at))")
        }
        if live && force { throw ValidationError("--live and --force exclude each other: --live replaces the content in place") }
    }

    @OptionGroup(title: "Passphrase of an encrypted archive") var passphrase: PassphraseOptions

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions
    @OptionGroup var log: LogOptions

    func run() throws {
        var operation = RestoreOperation(archive: archive, directory: directory)
        operation.objectStore = objectStore.options
        operation.passphrase = try passphrase.passphrase()
        operation.force = force
        operation.live = live
        operation.keepsModes = keepModes
        operation.timeout = timeout
        operation.txid = txid.flatMap { UInt64($0, radix: 16) }
        operation.time = at.flatMap(ISOTime.parse)
        operation.ifDatabaseNotExists = ifDbNotExists
        operation.ifReplicaExists = ifReplicaExists
        operation.preparesForFollowing = follow
        let progress = Terminal.isAttached(2) && !output.quiet ? ProgressLine(label: "restoring") : nil
        if let progress { operation.progress = progress.update }
        let restore = operation
        if follow {
            try runFollowing(restore, progress: progress)
            return
        }
        try runReporting(
            output,
            operation: {
                defer { progress?.finishLine() }
                return try restore.run()
            },
            text: { report in
                if let skipped = report.skipped { return "Nothing restored: \(skipped).\n" }
                return "Restored \(report.directory) from \(report.archive)"
                    + (report.replica.map { " at TXID \($0.txid) (\(ISOTime.seconds($0.time)), \($0.files) files)" }
                        ?? "")
                    + (report.live
                        ? " in place (live; writers waited \(report.writerStallMs ?? 0) ms)"
                        : report.replaced ? " (its old content replaced)" : "")
                    + "; integrity_check \(report.integrity).\n" + (report.manifest.map(manifestSummary) ?? "")
            })
    }

    /// A restore, then the copy kept current: one report at the end.
    private func runFollowing(_ restore: RestoreOperation, progress: ProgressLine?) throws {
        struct Followed: Encodable {
            /// The copy's directory.
            var directory: String
            /// The restore that made the copy; nil when a follower's copy was gone on from.
            var restore: RestoreOperation.Report?
            /// The TXID a follower's copy was gone on from, hexadecimal.
            var resumedAt: String?
            var follow: FollowOperation.Report
        }
        let notice = output.notice
        let quiet = output.quiet
        let objectStore = objectStore.options
        let interval = followInterval
        let log = log
        try runReporting(
            output,
            operation: { () throws -> Followed in
                // A copy a follower left (a restart) is gone on from, not restored anew.
                let resumedAt =
                    restore.force || restore.live
                    ? nil
                    : try FollowOperation.resumePoint(replica: restore.archive, directory: restore.directory, objectStore: objectStore)
                var restored: RestoreOperation.Report?
                let txid: String
                let directory = try LocalPath.resolve(restore.directory, what: "the directory to restore into")
                var started: @Sendable () -> Void = {}
                if let resumedAt {
                    txid = resumedAt
                    started = { notice("\(directory) holds a follower's copy at TXID \(resumedAt): going on from there") }
                } else {
                    let report: RestoreOperation.Report
                    do {
                        defer { progress?.finishLine() }
                        report = try restore.run()
                    }
                    guard let point = report.replica else {
                        throw DBToolError(
                            .usage, "--follow follows a replica (a directory or s3://BUCKET/PREFIX/), not the archive \(report.archive)")
                    }
                    notice("restored \(report.directory) at TXID \(point.txid); following \(report.archive)")
                    (restored, txid) = (report, point.txid)
                }
                var follow = FollowOperation(replica: restore.archive, directory: restored?.directory ?? directory, txid: txid)
                follow.interval = interval
                follow.objectStore = objectStore
                follow.started = started
                follow.log = log.sink(command: "restore --follow", database: follow.directory, quiet: quiet)
                return Followed(directory: follow.directory, restore: restored, resumedAt: resumedAt, follow: try follow.run())
            },
            text: { report in
                "Followed \(report.restore?.archive ?? restore.archive) into \(report.directory) up to TXID \(report.follow.txid) (\(report.follow.updates) updates).\n"
            })
    }
}
