import DatabaseKit
import FoundationEssentials

/// The table where dbtool records applied SQL-file migrations:
///
/// ```sql
/// CREATE TABLE dbtool_migrations (
///     version INTEGER PRIMARY KEY,   -- the file's version
///     name TEXT NOT NULL,            -- the file's name after the version
///     checksum TEXT NOT NULL,        -- SHA-256 of the up section (LF line endings)
///     applied_at TEXT NOT NULL,      -- UTC, yyyy-MM-dd HH:mm:ss.SSS
///     duration_ms INTEGER NOT NULL,  -- time spent running the up section
///     baseline INTEGER NOT NULL,     -- 1 when recorded by `migrate baseline` without running
///     repaired_at TEXT,              -- when `migrate repair` re-recorded the checksum
///     previous_checksum TEXT         -- the checksum before that repair
/// )
/// ```
public struct MigrationsTable: MigrationRecorder {
    public static let name = "dbtool_migrations"

    /// The files being applied, by identifier (the version in decimal).
    let files: [String: MigrationFile]

    init(files: [MigrationFile]) {
        self.files = Dictionary(files.map { (String($0.version), $0) }) { first, _ in first }
    }

    /// One row of the table.
    public struct Record: Codable, Sendable, Equatable {
        public var version: UInt64
        public var name: String
        public var checksum: String
        public var appliedAt: String
        public var durationMs: Int64
        public var baseline: Bool
        public var repairedAt: String?
    }

    package func prepare(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(Self.name) (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at TEXT NOT NULL,
                    duration_ms INTEGER NOT NULL,
                    baseline INTEGER NOT NULL DEFAULT 0,
                    repaired_at TEXT,
                    previous_checksum TEXT)
                """)
    }

    package func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        Set(try Self.records(db).map { String($0.version) })
    }

    package func record(_ step: MigrationStep, duration: TimeInterval, in db: Database) throws {
        guard let file = files[step.identifier] else { return }
        try Self.insert(file, durationMs: Int64((duration * 1000).rounded()), baseline: false, in: db)
    }

    /// Deletes the records of reverted migrations.
    package func forget(_ identifiers: Set<String>, in db: Database) throws {
        for version in identifiers.compactMap({ Int64($0) }) {
            try db.execute(sql: "DELETE FROM \(Self.name) WHERE version = ?", arguments: [version])
        }
    }

    static func insert(_ file: MigrationFile, durationMs: Int64, baseline: Bool, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(name) (version, name, checksum, applied_at, duration_ms, baseline) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [Int64(file.version), file.name, file.checksum, Date(), durationMs, baseline])
    }

    /// The applied migrations, in version order; empty when the table does not exist.
    public static func records(_ db: Database) throws -> [Record] {
        let exists =
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name]) ?? false
        guard exists else { return [] }
        return try Row.fetchAll(db, sql: "SELECT * FROM \(name) ORDER BY version").map { row in
            // Decoded with errors rather than subscripts: a table edited by
            // hand must be reported, not stop the process.
            do {
                let stored = try row.decode(Int64.self, forColumn: "version")
                guard let version = UInt64(exactly: stored) else {
                    throw DBToolError(
                        .dataError, "the table \(name) holds the negative version \(stored)",
                        hint: "Fix or delete that row with `dbtool exec`.")
                }
                return Record(
                    version: version, name: try row.decode(forColumn: "name"), checksum: try row.decode(forColumn: "checksum"),
                    appliedAt: try row.decode(forColumn: "applied_at"), durationMs: try row.decode(forColumn: "duration_ms"),
                    baseline: try row.decode(forColumn: "baseline"), repairedAt: try row.decode(forColumn: "repaired_at"))
            } catch let error as RowDecodingError {
                throw DBToolError(
                    .dataError, "the table \(name) holds a row dbtool can not read: \(error)",
                    hint: "Fix or delete that row with `dbtool exec`.")
            }
        }
    }
}
