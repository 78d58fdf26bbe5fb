internal import DatabaseKitSQLite
import Foundation

/// What the introspection methods learned about tables, kept until the schema
/// may have changed: record persistence asks for a table's primary key on every
/// `insert` or `update`, and a unique key lookup for its indexes: neither must
/// run a PRAGMA each time.
///
/// The cache is emptied:
/// 1. before a statement of this connection that may change the schema runs:
///    `CREATE`, `DROP`, `ALTER`, `ATTACH`, `DETACH`, and `ROLLBACK` (of a
///    transaction or a savepoint, which may undo a `CREATE`), flagged by the
///    authorizer when they are compiled;
/// 2. when, on its first use in a database access, `PRAGMA schema_version`
///    differs from the version it was filled at: another connection changed
///    the schema between two accesses. One cached PRAGMA per access, instead
///    of re-reading each table.
struct SchemaCache {
    var primaryKeys: [String: PrimaryKeyInfo] = [:]
    var columns: [String: [ColumnInfo]] = [:]
    var indexes: [String: [IndexInfo]] = [:]
    /// The schema version the entries were read at.
    var schemaVersion: Int32?
    /// Set at the start of each access: the next use checks ``schemaVersion``.
    var needsValidation = true

    mutating func removeAll() {
        if !primaryKeys.isEmpty { primaryKeys.removeAll() }
        if !columns.isEmpty { columns.removeAll() }
        if !indexes.isEmpty { indexes.removeAll() }
        schemaVersion = nil
    }

    /// The cache key of a table: the name as given (a record always gives the
    /// same one; another spelling is only another entry), so that the lookup
    /// of every `insert` allocates nothing.
    static func key(_ table: String, _ schema: String?) -> String {
        guard let schema else { return table }
        return schema + "\u{0}" + table  // no SQL name contains NUL: no collision
    }
}

extension Database {
    /// Installs the authorizer that flags the statements which may change the
    /// schema while they are compiled (see ``SchemaCache``).
    func setUpSchemaChangeObserver() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            sqliteConnection,
            { context, actionCode, operation, _, _, _ in
                let mayChangeSchema: Bool
                switch actionCode {
                case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
                    // BEGIN, COMMIT and RELEASE keep the schema; ROLLBACK may undo a change.
                    mayChangeSchema = operation.map { strcmp($0, "ROLLBACK") == 0 } ?? false
                default:
                    mayChangeSchema = schemaChangingActions.contains(actionCode)
                }
                if mayChangeSchema {
                    let db = Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
                    db.compiledStatementMayChangeSchema = true
                }
                return SQLITE_OK
            },
            context)
    }
}

/// The authorizer action codes of statements that may change the schema.
private let schemaChangingActions: Set<CInt> = [
    SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
    SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
    SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX,
    SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER,
    SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE, SQLITE_ALTER_TABLE, SQLITE_ATTACH, SQLITE_DETACH,
]

extension Database {
    /// Empties the schema cache when another connection changed the schema
    /// since it was filled; checked once per access (see ``SchemaCache``).
    func validateSchemaCache() throws {
        guard schemaCache.needsValidation else { return }
        let version = try Int32.fetchOne(self, sql: "PRAGMA schema_version")
        if version != schemaCache.schemaVersion {
            schemaCache.removeAll()
            schemaCache.schemaVersion = version
        }
        schemaCache.needsValidation = false
    }
}
