import DatabaseKit
import Foundation

/// Snapshots taken before migrating (`dbtool migrate --snapshot`), and the
/// way back (`dbtool migrate restore-snapshot`), for migrations without a
/// down section.
///
/// Snapshots go to `DIR/snapshots/pre-migrate-<UTC timestamp>.sqlite`; the
/// path of the latest is kept in `DIR/.dbtool-last-snapshot`, outside the
/// database, so that it survives the restore.
public enum MigrationSnapshots {
    static let recordFileName = ".dbtool-last-snapshot"

    /// Takes a snapshot of the database and records its path.
    static func take(_ database: DatabaseHandle) throws -> String {
        let directory = database.location.directoryPath + "/snapshots"
        try createPrivateDirectory(directory)
        var operation = SnapshotOperation(database: database)
        operation.outputDirectory = directory
        operation.nameStem = "pre-migrate"
        let snapshot = try operation.run().snapshot
        let recordPath = database.location.directoryPath + "/" + recordFileName
        try writeSmallFile(recordPath, contents: snapshot + "\n")
        return snapshot
    }

    /// The path of the latest snapshot taken before migrating, if any.
    public static func latest(_ location: DatabaseLocation) -> String? {
        let recordPath = location.directoryPath + "/" + recordFileName
        return (try? FileSystem.contents(recordPath)).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
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
        let snapshotDatabase = DatabaseHandle(location: DatabaseLocation(path: snapshot), timeout: database.timeout)
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
