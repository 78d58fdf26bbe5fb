import FoundationEssentials

// Schema introspection, on the PRAGMAs SQLite documents
// (https://www.sqlite.org/pragma.html#pragfunc).
//
// Without a schema name, a table is looked up as SQLite resolves names: in
// temp, then main, then the attached databases, in attachment order. With a
// schema name, only there; an unknown schema throws "no such schema".

extension Database {
    // MARK: Schemas

    /// The schemas of the connection, temp first.
    func schemaIdentifiers() throws -> [DatabaseSchemaID] {
        try validateSchemaCache()
        if let schemaIDs = schemaCache.schemaIDs { return schemaIDs }
        // PRAGMA statements, as GRDB's introspection runs them: a trace of the
        // application's SELECT statements does not list the schema's.
        var schemaIDs = try Row.fetchAll(self, sql: "PRAGMA database_list").map { DatabaseSchemaID(name: $0["name"]) }
        // temp shadows the other schemas. SQLite lists it once it holds
        // something, and always resolves it.
        schemaIDs.removeAll { $0 == .temp }
        schemaIDs.insert(.temp, at: 0)
        schemaCache.schemaIDs = schemaIDs
        return schemaIDs
    }

    /// The schema with this name (case-insensitive).
    ///
    /// - throws: "no such schema: name".
    private func schemaIdentifier(named name: String) throws -> DatabaseSchemaID {
        let lowercased = name.lowercased()
        guard let schemaID = try schemaIdentifiers().first(where: { $0.name.lowercased() == lowercased }) else {
            throw DatabaseError.noSuchSchema(name)
        }
        return schemaID
    }

    /// The objects of a schema.
    func schema(_ schemaID: DatabaseSchemaID) throws -> SchemaInfo {
        if let info = schemaCache.schemaInfos[schemaID] { return info }
        // The schema a fetch needs is not what the application reads.
        let info = try withoutRecordingSelection { try SchemaInfo(self, schemaID: schemaID) }
        schemaCache.schemaInfos[schemaID] = info
        return info
    }

    /// The name of a table as its schema spells it, nil when no schema has
    /// it. The schema tables are tables too.
    func canonicalTableName(_ tableName: String) throws -> String? {
        for schemaID in try schemaIdentifiers() {
            if let name = try schema(schemaID).canonicalName(tableName, ofType: .table) { return name }
            if tableName.lowercased() == schemaID.unqualifiedSchemaTableName { return schemaID.unqualifiedSchemaTableName }
        }
        return nil
    }

    /// The names of every table of every schema.
    func allTableNames() throws -> [String] {
        try schemaIdentifiers().flatMap { schemaID in
            try schema(schemaID).objects.filter { $0.type == .table }.map(\.name).sorted()
        }
    }

    // MARK: Existence

    /// True when the table exists (in `schemaName`, or in any schema).
    ///
    /// - throws: ``DatabaseError`` "no such schema" for an unknown schema.
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try objectExists(name, ofType: .table, in: schemaName)
    }

    /// True when the view exists (in `schemaName`, or in any schema).
    public func viewExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try objectExists(name, ofType: .view, in: schemaName)
    }

    /// True when the trigger exists (in `schemaName`, or in any schema).
    public func triggerExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try objectExists(name, ofType: .trigger, in: schemaName)
    }

    /// True when the index exists (in `schemaName`, or in any schema).
    public func indexExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try objectExists(name, ofType: .index, in: schemaName)
    }

    private func objectExists(_ name: String, ofType type: SchemaObjectType, in schemaName: String?) throws -> Bool {
        if let schemaName { return try schema(schemaIdentifier(named: schemaName)).contains(name, ofType: type) }
        return try schemaIdentifiers().contains { try schema($0).contains(name, ofType: type) }
    }

    /// True for the tables SQLite manages itself (`sqlite_sequence`,
    /// `sqlite_stat1`, ...) and the `pragma_` table-valued functions.
    public static func isSQLiteInternalTable(_ tableName: String) -> Bool {
        tableName.hasPrefix("sqlite_") || tableName.hasPrefix("pragma_")
    }

    /// True for the tables GRDB and DatabaseKit manage (`grdb_migrations`).
    public static func isGRDBInternalTable(_ tableName: String) -> Bool {
        tableName.hasPrefix("grdb_")
    }

    // MARK: Introspection helpers

    /// The result of `introspect` for a table: in one schema, or the first
    /// schema that has it; nil results are cached too.
    private func lookUp<T>(
        _ cache: WritableKeyPath<SchemaCache, [SchemaCache.Key: T?]>,
        _ tableName: String, in schemaName: String?,
        _ introspect: (DatabaseObjectID) throws -> T?
    ) throws -> T? {
        try validateSchemaCache()
        let key = SchemaCache.Key(table: tableName, schema: schemaName)
        if let cached = schemaCache[keyPath: cache][key] { return cached }
        var result: T?
        if let schemaName {
            result = try introspect(DatabaseObjectID(name: tableName, schemaID: schemaIdentifier(named: schemaName)))
        } else {
            for schemaID in try schemaIdentifiers() {
                result = try introspect(DatabaseObjectID(name: tableName, schemaID: schemaID))
                if result != nil { break }
            }
        }
        schemaCache[keyPath: cache][key] = .some(result)
        return result
    }

    // MARK: Columns

    /// The columns of a table or view, in table order (the hidden columns of
    /// virtual tables excluded; generated columns included).
    ///
    /// ```swift
    /// for column in try db.columns(in: "player") {
    ///     print(column.name, column.type, column.isNotNull, column.primaryKeyIndex)
    /// }
    /// ```
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func columns(in tableName: String, in schemaName: String? = nil) throws -> [ColumnInfo] {
        guard let columns = try lookUp(\.columns, tableName, in: schemaName, primitiveColumns) else {
            throw DatabaseError.noSuchTable(tableName)
        }
        return columns.filter { $0.hidden != 1 }
    }

    /// The columns of `PRAGMA table_xinfo`, hidden ones included; nil when
    /// the table or view does not exist.
    private func primitiveColumns(_ table: DatabaseObjectID) throws -> [ColumnInfo]? {
        let columns = try ColumnInfo.fetchAll(
            self, sql: "PRAGMA \(table.schemaID.name.quotedDatabaseIdentifier).table_xinfo(\(table.name.quotedDatabaseIdentifier))")
        return columns.isEmpty ? nil : columns
    }

    // MARK: Primary key

    /// The primary key of a table: its declared columns, or the hidden rowid.
    /// A view has a primary key only when the configuration's
    /// ``Configuration/schemaSource`` gives one.
    ///
    /// ```swift
    /// let key = try db.primaryKey("player")
    /// key.columns      // ["id"]
    /// key.rowIDColumn  // "id" for an INTEGER PRIMARY KEY
    /// ```
    ///
    /// - throws: ``DatabaseError`` "no such table", or "database view ... has
    ///   no primary key".
    public func primaryKey(_ tableName: String, in schemaName: String? = nil) throws -> PrimaryKeyInfo {
        // The lookup of every record insert and update: straight to the cache.
        try validateSchemaCache()
        let key = SchemaCache.Key(table: tableName, schema: schemaName)
        if let last = schemaCache.lastPrimaryKey, last.key == key { return last.info }
        if case .some(.some(let primaryKey)) = schemaCache.primaryKeys[key] {
            schemaCache.lastPrimaryKey = (key, primaryKey)
            return primaryKey
        }
        if let primaryKey = try lookUp(\.primaryKeys, tableName, in: schemaName, primaryKey(of:)) { return primaryKey }
        if try viewExists(tableName, in: schemaName) {
            throw DatabaseError(message: "database view \(tableName) has no primary key")
        }
        throw DatabaseError.noSuchTable(tableName)
    }

    private func primaryKey(of table: DatabaseObjectID) throws -> PrimaryKeyInfo? {
        let info = try schema(table.schemaID)
        if info.contains(table.name, ofType: .view) {
            guard let schemaSource, let columns = try schemaSource.columnsForPrimaryKey(self, inView: table), !columns.isEmpty,
                let viewColumns = try primitiveColumns(table)
            else { return nil }
            let keyColumns = try columns.enumerated().map { position, name in
                guard var column = viewColumns.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                    throw DatabaseError(
                        resultCode: .SQLITE_MISUSE,
                        message: "the schema source gives a primary key column that view \(table.name) does not have: \(name)")
                }
                column.primaryKeyIndex = position + 1
                return column
            }
            return .regular(keyColumns, tableHasRowID: false)
        }
        guard info.contains(table.name, ofType: .table), let columns = try primitiveColumns(table) else { return nil }
        let keyColumns = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        switch keyColumns.count {
        case 0:
            return .hiddenRowID
        case 1 where keyColumns[0].type.uppercased() == "INTEGER" && !isWithoutRowID(table, info):
            return .rowID(keyColumns[0])
        default:
            return .regular(keyColumns, tableHasRowID: !isWithoutRowID(table, info))
        }
    }

    /// True for a `WITHOUT ROWID` table (`PRAGMA table_list`, SQLite 3.37+).
    private func isWithoutRowID(_ table: DatabaseObjectID, _ info: SchemaInfo) -> Bool {
        let row = try? Row.fetchOne(
            self, sql: "PRAGMA \(table.schemaID.name.quotedDatabaseIdentifier).table_list(\(table.name.quotedDatabaseIdentifier))")
        return row?["wr"] ?? false
    }

    // MARK: Indexes

    /// The indexes of a table, including those of `UNIQUE` and `PRIMARY KEY`
    /// constraints. Indexes on expressions are not listed.
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func indexes(on tableName: String, in schemaName: String? = nil) throws -> [IndexInfo] {
        guard let indexes = try lookUp(\.indexes, tableName, in: schemaName, indexes(of:)) else {
            throw DatabaseError.noSuchTable(tableName)
        }
        return indexes
    }

    private func indexes(of table: DatabaseObjectID) throws -> [IndexInfo]? {
        guard try schema(table.schemaID).contains(table.name, ofType: .table) else { return nil }
        let schema = table.schemaID.name.quotedDatabaseIdentifier
        let list = try Row.fetchAll(self, sql: "PRAGMA \(schema).index_list(\(table.name.quotedDatabaseIdentifier))")
        return try list.compactMap { row in
            let name: String = row["name"]
            let columns = try Row.fetchAll(self, sql: "PRAGMA \(schema).index_info(\(name.quotedDatabaseIdentifier))")
                .map { $0["name"] as String? }
            // A NULL name is the rowid or an expression: not an index of columns.
            guard !columns.contains(nil) else { return nil }
            return IndexInfo(
                name: name, columns: columns.compactMap { $0 }, isUnique: row["unique"], origin: IndexInfo.Origin(rawValue: row["origin"]),
                isPartial: row["partial"])
        }
    }

    /// True when the columns identify at most one row: they contain the
    /// primary key, or the columns of a unique index. Column names are
    /// compared case-insensitively.
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"])  // true with a UNIQUE email
    /// ```
    public func table(_ tableName: String, hasUniqueKey columns: some Collection<String>) throws -> Bool {
        try columnsForUniqueKey(columns, in: tableName) != nil
    }

    /// The columns of the unique key that `columns` contains, if any: the
    /// primary key first, then unique indexes.
    func columnsForUniqueKey(_ columns: some Collection<String>, in tableName: String) throws -> [String]? {
        let given = Set(columns.map { $0.lowercased() })
        if given.isEmpty { return nil }
        if let primaryKey = try? self.primaryKey(tableName) {
            if primaryKey.tableHasRowID && given == ["rowid"] { return ["rowid"] }
            if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: given) { return primaryKey.columns }
        }
        if try tableExists(tableName) {
            let index = try indexes(on: tableName).first { index in
                index.isUnique && !index.isPartial && Set(index.columns.map { $0.lowercased() }).isSubset(of: given)
            }
            if let index { return index.columns }
        }
        return nil
    }

    // MARK: Foreign keys

    /// The foreign keys of a table.
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func foreignKeys(on tableName: String, in schemaName: String? = nil) throws -> [ForeignKeyInfo] {
        guard let keys = try lookUp(\.foreignKeys, tableName, in: schemaName, foreignKeys(of:)) else {
            throw DatabaseError.noSuchTable(tableName)
        }
        return keys
    }

    private func foreignKeys(of table: DatabaseObjectID) throws -> [ForeignKeyInfo]? {
        guard try schema(table.schemaID).contains(table.name, ofType: .table) else { return nil }
        // In the order of their id, then seq: the order SQLite lists them in.
        let rows = try Row.fetchAll(
            self, sql: "PRAGMA \(table.schemaID.name.quotedDatabaseIdentifier).foreign_key_list(\(table.name.quotedDatabaseIdentifier))")
        var keys: [ForeignKeyInfo] = []
        var index = 0
        while index < rows.count {
            let id: Int = rows[index]["id"]
            let first = rows[index]
            let group = rows[index...].prefix { $0["id"] as Int == id }
            index += group.count
            let destinationTable: String = first["table"]
            let origins: [String] = group.map { $0["from"] }
            var destinations = group.compactMap { $0["to"] as String? }
            if destinations.count != group.count {
                // `REFERENCES team` with no column list references the primary
                // key. SQLite accepts a reference to a table that does not
                // exist (yet): its columns are then unknown, and left empty.
                destinations =
                    try tableExists(destinationTable, in: table.schemaID.name)
                    ? primaryKey(destinationTable, in: table.schemaID.name).columns : []
            }
            keys.append(
                ForeignKeyInfo(
                    id: id, destinationTable: destinationTable,
                    mapping: zip(origins, destinations).map { (origin: $0, destination: $1) },
                    onDelete: first["on_delete"], onUpdate: first["on_update"]))
        }
        return keys
    }

    // MARK: Schema version and foreign key checks

    /// The schema version, which SQLite increments on every schema change
    /// (`PRAGMA schema_version`).
    public func schemaVersion() throws -> Int32 {
        try Int32.fetchOne(self, sql: "PRAGMA schema_version") ?? 0
    }

    /// The rows that break a foreign key constraint, in all tables
    /// (`PRAGMA foreign_key_check`). Useful after inserting with foreign keys off.
    public func foreignKeyViolations() throws -> RecordCursor<ForeignKeyViolation> {
        try ForeignKeyViolation.fetchCursor(self, sql: "PRAGMA foreign_key_check")
    }

    /// The rows of a table that break a foreign key constraint.
    ///
    /// - throws: ``DatabaseError`` "no such table" or "no such schema".
    public func foreignKeyViolations(in tableName: String, in schemaName: String? = nil) throws -> RecordCursor<ForeignKeyViolation> {
        let schemaIDs = try schemaName.map { [try schemaIdentifier(named: $0)] } ?? schemaIdentifiers()
        for schemaID in schemaIDs where try schema(schemaID).contains(tableName, ofType: .table) {
            return try ForeignKeyViolation.fetchCursor(
                self,
                sql: "PRAGMA \(schemaID.name.quotedDatabaseIdentifier).foreign_key_check(\(tableName.quotedDatabaseIdentifier))")
        }
        throw DatabaseError.noSuchTable(tableName)
    }

    /// Throws the first foreign key violation, in all tables.
    ///
    /// - throws: ``DatabaseError`` with the extended code
    ///   `SQLITE_CONSTRAINT_FOREIGNKEY`, and a message naming the tables,
    ///   the columns and the row; see ``ForeignKeyViolation/failureDescription(_:)``.
    public func checkForeignKeys() throws {
        if let violation = try foreignKeyViolations().next() { throw violation.databaseError(self) }
    }

    /// Throws the first foreign key violation of a table.
    public func checkForeignKeys(in tableName: String, in schemaName: String? = nil) throws {
        if let violation = try foreignKeyViolations(in: tableName, in: schemaName).next() { throw violation.databaseError(self) }
    }
}

extension String {
    /// The string as an SQL identifier between double quotes, safe to splice
    /// into SQL: `"player"`, `"my ""table"""`.
    public var quotedDatabaseIdentifier: String {
        // The common case, without a quote inside, costs no Foundation call.
        guard utf8.contains(UInt8(ascii: "\"")) else { return "\"" + self + "\"" }
        return "\"" + replacing("\"", with: "\"\"") + "\""
    }
}
