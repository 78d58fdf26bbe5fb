import FoundationEssentials

/// What the introspection methods learned about tables, kept until the schema
/// may have changed: record persistence asks for a table's primary key on every
/// `insert` or `update`, and a unique key lookup for its indexes: neither must
/// run a PRAGMA each time.
///
/// The cache is emptied:
/// 1. before a statement of this connection that may change the schema runs:
///    `CREATE`, `DROP`, `ALTER`, `ATTACH`, `DETACH`, and `ROLLBACK` (of a
///    transaction or a savepoint, which may undo a `CREATE`), flagged by the
///    ``StatementAuthorizer`` when they are compiled;
/// 2. when, on its first use in a database access, `PRAGMA schema_version`
///    differs from the version it was filled at: another connection changed
///    the schema between two accesses. One cached PRAGMA per access, instead
///    of re-reading each table.
///
/// Entries are keyed by the table name as given, in a schema (nil for a
/// lookup in every schema, the usual case), so that the lookup of every
/// `insert` allocates nothing. A missing table is cached too.
struct SchemaCache {
    /// A table in a schema; `schema` nil for a lookup in every schema.
    struct Key: Hashable {
        let table: String
        let schema: String?
    }

    var primaryKeys: [Key: PrimaryKeyInfo?] = [:]
    /// The last primary key found in ``primaryKeys``: inserting records of
    /// one table asks for the same one each time, and comparing the key is
    /// cheaper than hashing it.
    var lastPrimaryKey: (key: Key, info: PrimaryKeyInfo)?
    /// The last column of a lookup by primary key (`fetchOne(db, key:)`):
    /// the table's name and its one key column, in an array that each lookup
    /// shares rather than builds, without a copy of the whole primary key.
    var lastKeyColumn: (table: String, columns: [String])?
    var columns: [Key: [ColumnInfo]?] = [:]
    var indexes: [Key: [IndexInfo]?] = [:]
    var foreignKeys: [Key: [ForeignKeyInfo]?] = [:]
    /// The schemas, temp first: the order in which SQLite resolves names.
    var schemaIDs: [DatabaseSchemaID]?
    /// The objects of each schema.
    var schemaInfos: [DatabaseSchemaID: SchemaInfo] = [:]
    /// The schema version the entries were read at.
    var schemaVersion: Int32?
    /// Set at the start of each access: the next use checks ``schemaVersion``.
    var needsValidation = true

    mutating func removeAll() {
        lastPrimaryKey = nil
        lastKeyColumn = nil
        if !primaryKeys.isEmpty { primaryKeys.removeAll() }
        if !columns.isEmpty { columns.removeAll() }
        if !indexes.isEmpty { indexes.removeAll() }
        if !foreignKeys.isEmpty { foreignKeys.removeAll() }
        if !schemaInfos.isEmpty { schemaInfos.removeAll() }
        schemaIDs = nil
        schemaVersion = nil
    }
}

extension Database {
    /// Empties the schema cache when another connection changed the schema
    /// since it was filled; checked once per access (see ``SchemaCache``).
    func validateSchemaCache() throws {
        guard schemaCache.needsValidation else { return }
        let version = try Int32.fetchOne(self, sql: "PRAGMA schema_version")
        if version != schemaCache.schemaVersion {
            // Without a version, the cache was just emptied, with the
            // statements; with one, another connection changed the schema.
            if schemaCache.schemaVersion != nil { dropSchemaDependentStatements() }
            schemaCache.removeAll()
            schemaCache.schemaVersion = version
        }
        schemaCache.needsValidation = false
    }
}
