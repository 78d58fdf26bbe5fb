internal import DatabaseKitSQLite

/// What the introspection methods learned about tables, kept until the schema
/// may have changed: record persistence asks for a table's primary key on every
/// `insert` or `update`, and must not run a PRAGMA each time.
///
/// The cache is emptied (1) before a statement of this connection that may
/// change the schema runs: `CREATE`, `DROP`, `ALTER`, `ATTACH`, `DETACH`, and
/// transaction or savepoint statements (a rollback may undo a `CREATE`), which
/// the authorizer flags when they are compiled; and (2) at the start of every
/// database access, because other connections may have changed the schema
/// between two accesses.
struct SchemaCache {
    var primaryKeys: [String: PrimaryKeyInfo] = [:]
    var columns: [String: [ColumnInfo]] = [:]

    mutating func removeAll() {
        if !primaryKeys.isEmpty { primaryKeys.removeAll() }
        if !columns.isEmpty { columns.removeAll() }
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
            { context, actionCode, _, _, _, _ in
                if schemaChangingActions.contains(actionCode) {
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
    SQLITE_TRANSACTION, SQLITE_SAVEPOINT,
]
