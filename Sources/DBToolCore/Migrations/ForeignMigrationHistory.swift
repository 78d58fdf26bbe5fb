import DatabaseKit

/// The bookkeeping table of another migration tool, found in a database that
/// dbtool has not migrated yet: goose's `goose_db_version`, golang-migrate's
/// `schema_migrations (version, dirty)`, dbmate's `schema_migrations (version)`.
///
/// dbtool never applies a migration that such a table says is applied: it
/// refuses until `dbtool migrate adopt` (or `baseline`) records them.
public struct ForeignMigrationHistory: Codable, Sendable, Equatable {
    /// The tool that wrote the table.
    public enum Tool: String, Codable, Sendable {
        case goose
        case golangMigrate = "golang-migrate"
        /// dbmate, or any tool with its one-row-per-version table (Rails).
        case dbmate
    }

    public var tool: Tool
    /// The table's name.
    public var table: String
    /// The versions the table says are applied, ascending. For golang-migrate,
    /// which records only the current version, every file version up to it.
    public var appliedVersions: [UInt64]
    /// The newest applied version.
    public var version: UInt64?
    /// golang-migrate: the current version failed midway (`dirty = 1`).
    public var dirty: Bool

    /// Reads the table of another tool, nil when there is none (or it records nothing).
    ///
    /// - parameters:
    ///   - db: A connection to the database, inside a read.
    ///   - fileVersions: The versions of the migration files:
    ///     golang-migrate's history is "every version up to the current one".
    static func load(_ db: Database, fileVersions: [UInt64]) throws -> ForeignMigrationHistory? {
        if try db.tableExists("goose_db_version") {
            // goose appends a row per up (is_applied 1) and down (0); the
            // newest row of a version says where it stands. Version 0 is the
            // row goose inserts when it creates the table.
            var applied: Set<UInt64> = []
            let rows = try Row.fetchAll(db, sql: "SELECT version_id, is_applied FROM goose_db_version ORDER BY id")
            for row in rows {
                let version = try historyVersion(row[0], table: "goose_db_version")
                if version == 0 { continue }
                if try row.decode(Bool.self, atIndex: 1) { applied.insert(version) } else { applied.remove(version) }
            }
            return ForeignMigrationHistory(tool: .goose, table: "goose_db_version", versions: applied, dirty: false)
        }
        guard try db.tableExists("schema_migrations") else { return nil }
        let columns = Set(try db.columns(in: "schema_migrations").map { $0.name.lowercased() })
        guard columns.contains("version") else { return nil }
        if columns.contains("dirty") {
            guard let row = try Row.fetchOne(db, sql: "SELECT version, dirty FROM schema_migrations LIMIT 1") else { return nil }
            let current = try historyVersion(row[0], table: "schema_migrations")
            let applied = Set(fileVersions.filter { $0 <= current }).union([current])
            return ForeignMigrationHistory(
                tool: .golangMigrate, table: "schema_migrations", versions: applied, dirty: try row.decode(Bool.self, atIndex: 1))
        }
        let values = try DatabaseValue.fetchAll(db, sql: "SELECT version FROM schema_migrations")
        let versions = try values.map { try historyVersion($0, table: "schema_migrations") }
        return ForeignMigrationHistory(tool: .dbmate, table: "schema_migrations", versions: Set(versions), dirty: false)
    }

    private init?(tool: Tool, table: String, versions: Set<UInt64>, dirty: Bool) {
        guard !versions.isEmpty else { return nil }
        self.tool = tool
        self.table = table
        appliedVersions = versions.sorted()
        version = appliedVersions.last
        self.dirty = dirty
    }

    /// A version as the other tool stored it: an integer, or digits in a text (dbmate).
    private static func historyVersion(_ value: DatabaseValue, table: String) throws -> UInt64 {
        switch value.storage {
        case .int64(let int64) where int64 >= 0: return UInt64(int64)
        case .string(let text): if let version = UInt64(text) { return version }
        default: break
        }
        throw DBToolError(
            .dataError, "the table \(table) holds the version \(value), which dbtool can not read",
            hint: "Fix that row, or record the history with `dbtool migrate baseline VERSION`.")
    }

    /// "goose (table goose_db_version)".
    public var description: String { "\(tool.rawValue) (table \(table))" }
}
