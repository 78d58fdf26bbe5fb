import ArgumentParser
import DBToolCore
import FoundationEssentials

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show where a database's space goes, its settings and its last migration.",
        discussion: """
            Space per table and index (SQLite's dbstat table), free pages, the sizes of the \
            database, WAL and shm files, page size, journal mode, auto_vacuum, the newest \
            migration applied, the newest snapshot taken before migrating, and with --backups DEST \
            the newest backup of the database there. --rows \
            also counts each table's rows (reading them all). It only reads, in one read \
            transaction.

            Examples:
              dbtool stats --database /var/lib/myapp/db
              dbtool stats --database /var/lib/myapp/db --rows --format json
              dbtool stats --database /var/lib/myapp/db --backups /backups
            """)

    @Flag(name: .long, help: "Count each table's rows (reads every row).")
    var rows = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where the backups go (a directory, or s3://BUCKET/PREFIX/; for several databases, the folder of each under it): report the newest.",
            valueName: "dest"),
        completion: .directory, transform: nonEmptyPath)
    var backups: String?

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (rows, backups, objectStore, isFleet) = (self.rows, self.backups, self.objectStore.options, database.namesFleet)
        try runOverDatabases("stats", database, fleet, output) { handle in
            var operation = StatsOperation(database: handle)
            operation.countRows = rows
            // A fleet's backups are in a folder per database, as `backup` writes them.
            operation.backups = backups.map { isFleet ? ($0.hasSuffix("/") ? $0 : $0 + "/") + handle.location.fleetName + "/" : $0 }
            operation.objectStore = objectStore
            return (try operation.run(), nil)
        } text: { report in
            var lines = [
                "\(report.database): file \(ByteCount.text(report.fileSize)), WAL \(ByteCount.text(report.walSize)), shm \(ByteCount.text(report.shmSize)); \(report.pageCount) pages of \(report.pageSize) bytes (\(report.freelistCount) free)",
                "  journal_mode \(report.journalMode), auto_vacuum \(report.autoVacuum)",
                "  last migration: \(report.lastMigration.map { "\($0) (\(report.lastMigrationAt ?? "?"))" } ?? "none")",
            ]
            if let backup = report.lastBackup {
                lines.append("  last backup: \(backup) (\(report.lastBackupAt ?? "?"))")
            } else if let searched = report.backupsSearched {
                lines.append("  last backup: none in \(searched)")
            }
            if let snapshot = report.lastSnapshot { lines.append("  last pre-migration snapshot: \(snapshot)") }
            let width = report.objects.map(\.name.count).max() ?? 4
            lines.append("")
            lines.append(
                "  " + "name".padded(to: width) + "  type   pages       bytes"
                    + (rows ? "        rows" : ""))
            for object in report.objects {
                var line = "  " + object.name.padded(to: width)
                line += "  " + object.type.padded(to: 5)
                line += String(object.pages).padded(7) + String(object.bytes).padded(12)
                if rows { line += (object.rows.map(String.init) ?? "").padded(12) }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension String {
    /// Right-aligned in `width` columns.
    fileprivate func padded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
