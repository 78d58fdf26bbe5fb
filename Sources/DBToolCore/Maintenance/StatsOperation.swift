import DatabaseKit
import FoundationEssentials

/// `dbtool stats`: where a database's space goes, and its settings, read in
/// one read transaction (SQLite's `dbstat` table for the space of each
/// table and index; row counts only on request, since they read every row).
public struct StatsOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// Count the rows of each table (reads them all).
    public var countRows = false
    /// Where this database's backups go (a directory or `s3://…`): the
    /// newest trusted archive of its series there is reported.
    public var backups: String?
    /// How to reach the object store of an `s3://` ``backups``.
    public var objectStore = ObjectStoreOptions()

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// The space of one table or index.
    public struct Object: Codable, Sendable, Equatable {
        public var name: String
        /// `table` or `index`.
        public var type: String
        /// The table an index belongs to (its own name for a table).
        public var table: String
        public var pages: Int
        public var bytes: Int64
        /// Bytes of its pages that hold nothing.
        public var unusedBytes: Int64
        /// With `--rows`, for tables.
        public var rows: Int?
    }

    /// What the database holds.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var pageSize: Int
        public var pageCount: Int
        public var freelistCount: Int
        public var fileSize: Int64
        public var walSize: Int64
        public var shmSize: Int64
        public var journalMode: String
        /// `none`, `full` or `incremental`.
        public var autoVacuum: String
        /// Tables and indexes, largest first.
        public var objects: [Object]
        /// `VERSION NAME` of the newest migration dbtool applied, and when.
        public var lastMigration: String?
        public var lastMigrationAt: String?
        /// The newest snapshot `migrate --snapshot` took, if any.
        public var lastSnapshot: String?
        /// With ``StatsOperation/backups``: the newest trusted archive of
        /// this database there, and when it was taken.
        public var lastBackup: String?
        public var lastBackupAt: String?
        /// With ``StatsOperation/backups``: where the backups were looked
        /// for; with no ``lastBackup``, none of this database is there.
        public var backupsSearched: String?
    }

    /// - throws: ``DBToolError`` 75 when a lock was held past the timeout;
    ///   the errors of listing ``backups``.
    public func run() throws -> Report {
        let path = database.location.filePath
        let dbQueue = try database.openForReading()
        var report = try database.reportingErrors {
            try dbQueue.read { db in
                let autoVacuum = try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0
                let newest = try MigrationsTable.records(db).last
                return Report(
                    database: path, pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0,
                    pageCount: try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                    freelistCount: try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0, fileSize: FileSystem.size(path),
                    walSize: FileSystem.size(path + "-wal"), shmSize: FileSystem.size(path + "-shm"),
                    journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown",
                    autoVacuum: ["none", "full", "incremental"][min(max(autoVacuum, 0), 2)], objects: try objects(db),
                    lastMigration: newest.map { "\($0.version) \($0.name)" }, lastMigrationAt: newest?.appliedAt,
                    lastSnapshot: MigrationSnapshots.latest(database.location))
            }
        }
        if let backups {
            var list = BackupListOperation(target: backups)
            list.objectStore = objectStore
            let identity = SeriesIdentity(location: database.location, establishing: false)
            let ids = [identity.id, identity.legacyID]
            let newest = try list.run().archives.last { $0.verified && $0.series.map(ids.contains) == true }
            report.lastBackup = newest?.location
            report.lastBackupAt = newest?.created
            report.backupsSearched = backups
        }
        return report
    }

    private func objects(_ db: Database) throws -> [Object] {
        var objects: [Object] = []
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT s.name, COALESCE(m.type, 'table'), COALESCE(m.tbl_name, s.name), COUNT(*), SUM(s.pgsize), SUM(s.unused)
                FROM dbstat AS s LEFT JOIN sqlite_master AS m ON m.name = s.name
                GROUP BY s.name ORDER BY SUM(s.pgsize) DESC, s.name
                """)
        for row in rows {
            var object = Object(name: row[0], type: row[1], table: row[2], pages: row[3], bytes: row[4], unusedBytes: row[5])
            if countRows && object.type == "table" {
                object.rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(object.name.quotedDatabaseIdentifier)")
            }
            objects.append(object)
        }
        return objects
    }
}
