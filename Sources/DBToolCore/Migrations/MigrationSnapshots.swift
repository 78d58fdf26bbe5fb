import DatabaseKit
import FoundationEssentials

/// Snapshots taken before migrating (`dbtool migrate --snapshot`), and the
/// way back (`dbtool migrate restore-snapshot`), for migrations without a
/// down section.
///
/// Snapshots go to `DIR/snapshots/pre-migrate-<UTC timestamp>.sqlite`; the
/// path of the latest, relative to DIR (so that a copy of DIR names its own
/// snapshot), is kept in `DIR/.dbtool-last-snapshot`, outside the database,
/// so that it survives the restore. `DIR/snapshots` is opened without
/// following a link: a link planted there is refused, never written through.
public enum MigrationSnapshots {
    static let recordFileName = ".dbtool-last-snapshot"

    /// Takes a snapshot of the database and records its path.
    static func take(_ database: DatabaseHandle) throws -> String {
        let directory = database.location.directoryPath + "/snapshots"
        let snapshots = try openSnapshots(database.location.directoryPath)
        var operation = SnapshotOperation(database: database)
        operation.outputDirectory = directory
        operation.openedDirectory = snapshots
        operation.nameStem = "pre-migrate"
        let snapshot = try operation.run().snapshot
        let recordPath = database.location.directoryPath + "/" + recordFileName
        try writeSmallFile(recordPath, contents: "snapshots/" + LocalPath.name(of: snapshot) + "\n")
        return snapshot
    }

    /// `DIR/snapshots`, created (0700) or opened, never through a link.
    private static func openSnapshots(_ directory: String) throws -> DirectoryDescriptor {
        let parent = try DirectoryDescriptor.open(directory)
        defer { parent.close() }
        do {
            return try parent.openOrCreateDirectory("snapshots")
        } catch {
            guard [.tooManySymbolicLinkLevels, .notADirectory].contains(error.errno) else { throw error.reported() }
            throw DBToolError(
                .cantCreate,
                "\(directory)/snapshots is not a directory (a symbolic link, or a file): dbtool writes inside the database directory through no link",
                hint: "Check what put it there; move it away, then migrate again.")
        }
    }

    /// The path of the latest snapshot taken before migrating, if any
    /// (recorded relative to the database directory; an absolute path, as
    /// dbtool 0.4 wrote it, is read as it is).
    public static func latest(_ location: DatabaseLocation) -> String? {
        let recordPath = location.directoryPath + "/" + recordFileName
        guard let bytes = try? FileSystem.contents(recordPath) else { return nil }
        let recorded = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        guard !recorded.isEmpty else { return nil }
        return recorded.hasPrefix("/") ? recorded : location.directoryPath + "/" + recorded
    }

    public struct RestoreReport: Codable, Sendable, Equatable {
        public var database: String
        public var snapshot: String
        /// The newest applied migration after the restore (nil: none).
        public var version: UInt64?
    }

    /// Copies a snapshot over the database, atomically: the online backup API
    /// writes the whole content in one transaction of the live database, so
    /// its WAL and other connections stay consistent (replacing the file by a
    /// rename would not: SQLite could replay the old WAL over it).
    public static func restore(_ database: DatabaseHandle, snapshot: String?) throws -> RestoreReport {
        let location = database.location
        guard let snapshot = snapshot ?? latest(location) else {
            throw DBToolError(
                .noInput, "no snapshot to restore for \(location.filePath)", hint: "Pass --snapshot FILE, or migrate with --snapshot first."
            )
        }
        // What is left of the command's wait (--timeout is the sum of its waits).
        let snapshotDatabase = DatabaseHandle(location: try DatabaseLocation(path: snapshot), timeout: database.waits.remaining)
        try snapshotDatabase.location.checkExists()
        let version = try database.withExclusiveLock(.migrate) { destination in
            let source = try snapshotDatabase.openQueue(readonly: true)
            try source.read { db in
                guard try String.fetchAll(db, sql: "PRAGMA quick_check") == ["ok"] else {
                    throw DBToolError(.dataError, "the snapshot \(snapshot) fails its quick_check: nothing was restored")
                }
            }
            try source.backup(to: destination)
            return try destination.read { db in try MigrationsTable.records(db).map(\.version).max() }
        }
        return RestoreReport(database: location.filePath, snapshot: snapshot, version: version)
    }
}
