// Schema introspection, on the PRAGMAs SQLite documents
// (https://www.sqlite.org/pragma.html#pragfunc). Table and schema names are
// always passed as arguments, never spliced into SQL.

extension Database {
    // MARK: Existence

    /// True when the table exists (in `schemaName`, or in main and temp).
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "table", name: name, in: schemaName)
    }

    /// True when the view exists (in `schemaName`, or in main and temp).
    public func viewExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "view", name: name, in: schemaName)
    }

    /// True when the trigger exists (in `schemaName`, or in main and temp).
    public func triggerExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "trigger", name: name, in: schemaName)
    }

    /// True when the index exists (in `schemaName`, or in main and temp).
    public func indexExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "index", name: name, in: schemaName)
    }

    private func schemaObjectExists(type: String, name: String, in schemaName: String?) throws -> Bool {
        let schemas = schemaName.map { [$0] } ?? ["main", "temp"]
        for schema in schemas {
            let master = schema.lowercased() == "temp" ? "sqlite_temp_master" : "sqlite_master"
            let sql = "SELECT 1 FROM \(schema.quotedDatabaseIdentifier).\(master) WHERE type = ? AND name = ? COLLATE NOCASE"
            if try Int.fetchOne(self, sql: sql, arguments: [type, name]) != nil { return true }
        }
        return false
    }

    /// True for the tables SQLite manages itself (`sqlite_sequence`, `sqlite_stat1`, ...).
    public static func isSQLiteInternalTable(_ tableName: String) -> Bool {
        tableName.lowercased().hasPrefix("sqlite_")
    }

    // MARK: Columns and keys

    /// The columns of a table or view, in table order.
    ///
    /// ```swift
    /// for column in try db.columns(in: "player") {
    ///     print(column.name, column.type, column.isNotNull, column.primaryKeyIndex)
    /// }
    /// ```
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func columns(in tableName: String, in schemaName: String? = nil) throws -> [ColumnInfo] {
        try validateSchemaCache()
        let key = SchemaCache.key(tableName, schemaName)
        if let columns = schemaCache.columns[key] { return columns }
        // hidden = 1 marks the hidden columns of virtual tables; generated
        // columns (2, 3) are real columns of the table.
        let columns = try ColumnInfo.fetchAll(
            self, sql: "SELECT * FROM pragma_table_xinfo(?, ?) WHERE hidden <> 1 ORDER BY cid",
            arguments: [tableName, schemaName])
        guard !columns.isEmpty else { throw noSuchTable(tableName, in: schemaName) }
        schemaCache.columns[key] = columns
        return columns
    }

    /// The primary key of a table: its declared columns, or the hidden rowid.
    ///
    /// ```swift
    /// let key = try db.primaryKey("player")
    /// key.columns      // ["id"]
    /// key.rowIDColumn  // "id" for an INTEGER PRIMARY KEY
    /// ```
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func primaryKey(_ tableName: String, in schemaName: String? = nil) throws -> PrimaryKeyInfo {
        try validateSchemaCache()
        let key = SchemaCache.key(tableName, schemaName)
        if let primaryKey = schemaCache.primaryKeys[key] { return primaryKey }
        let keyColumns = try columns(in: tableName, in: schemaName)
            .filter { $0.primaryKeyIndex > 0 }
            .sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let primaryKey: PrimaryKeyInfo
        if keyColumns.isEmpty {
            primaryKey = .hiddenRowID
        } else if keyColumns.count == 1, keyColumns[0].type.uppercased() == "INTEGER",
            // A WITHOUT ROWID table, unlike a rowid alias, has an index for its key.
            try !indexes(on: tableName, in: schemaName).contains(where: { $0.origin == .primaryKeyConstraint })
        {
            primaryKey = PrimaryKeyInfo(columns: [keyColumns[0].name], rowIDColumn: keyColumns[0].name, isRowID: true)
        } else {
            primaryKey = PrimaryKeyInfo(columns: keyColumns.map(\.name), rowIDColumn: nil, isRowID: false)
        }
        schemaCache.primaryKeys[key] = primaryKey
        return primaryKey
    }

    /// The indexes of a table, including those of `UNIQUE` and `PRIMARY KEY`
    /// constraints.
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func indexes(on tableName: String, in schemaName: String? = nil) throws -> [IndexInfo] {
        try validateSchemaCache()
        let key = SchemaCache.key(tableName, schemaName)
        if let indexes = schemaCache.indexes[key] { return indexes }
        let indexes = try readIndexes(on: tableName, in: schemaName)
        schemaCache.indexes[key] = indexes
        return indexes
    }

    private func readIndexes(on tableName: String, in schemaName: String?) throws -> [IndexInfo] {
        let list = try Row.fetchAll(
            self, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?, ?) ORDER BY seq",
            arguments: [tableName, schemaName])
        if list.isEmpty, try !tableExists(tableName, in: schemaName) {
            throw noSuchTable(tableName, in: schemaName)
        }
        return try list.map { row in
            let name: String = row[0]
            let columns = try String?.fetchAll(
                self, sql: "SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno", arguments: [name, schemaName])
            return IndexInfo(
                name: name, columns: columns.map { $0 ?? "" }, isUnique: row[1],
                origin: IndexInfo.Origin(rawValue: row[2]) ?? .createIndex, isPartial: row[3])
        }
    }

    /// The foreign keys of a table.
    ///
    /// - throws: ``DatabaseError`` "no such table" when the table does not exist.
    public func foreignKeys(on tableName: String, in schemaName: String? = nil) throws -> [ForeignKeyInfo] {
        let rows = try Row.fetchAll(
            self,
            sql: "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?, ?) ORDER BY id, seq",
            arguments: [tableName, schemaName])
        if rows.isEmpty, try !tableExists(tableName, in: schemaName) {
            throw noSuchTable(tableName, in: schemaName)
        }
        var keys: [ForeignKeyInfo] = []
        var index = 0
        while index < rows.count {
            let id: Int = rows[index][0]
            let group = rows[index...].prefix { $0[0] as Int == id }
            index += group.count
            let destinationTable: String = group.first![1]
            var destinationColumns = group.compactMap { $0[3] as String? }
            if destinationColumns.count != group.count {
                // `REFERENCES team` with no column list references the primary
                // key. SQLite accepts a reference to a table that does not
                // exist (yet): its columns are then unknown, and left empty.
                destinationColumns =
                    try tableExists(destinationTable, in: schemaName)
                    ? primaryKey(destinationTable, in: schemaName).columns : []
            }
            keys.append(
                ForeignKeyInfo(
                    id: id, destinationTable: destinationTable, originColumns: group.map { $0[2] },
                    destinationColumns: destinationColumns, onDelete: group.first![5], onUpdate: group.first![4]))
        }
        return keys
    }

    /// True when the columns identify at most one row: they contain the primary
    /// key, or the columns of a unique index without a `WHERE` clause.
    /// Column names are compared case-insensitively.
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"])  // true with a UNIQUE email
    /// ```
    public func table(_ tableName: String, hasUniqueKey columns: some Sequence<String>) throws -> Bool {
        let given = Set(columns.map { $0.lowercased() })
        let primaryKey = try primaryKey(tableName)
        if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: given) { return true }
        if let rowIDColumn = primaryKey.rowIDColumn, given.contains("rowid") || given.contains(rowIDColumn.lowercased()) {
            return true
        }
        return try indexes(on: tableName).contains { index in
            index.isUnique && !index.isPartial && !index.columns.contains("")
                && Set(index.columns.map { $0.lowercased() }).isSubset(of: given)
        }
    }

    // MARK: Schema version and foreign key checks

    /// The schema version, which SQLite increments on every schema change
    /// (`PRAGMA schema_version`).
    public func schemaVersion() throws -> Int32 {
        try Int32.fetchOne(self, sql: "PRAGMA schema_version") ?? 0
    }

    /// The rows that break a foreign key constraint, in all tables or in one
    /// (`PRAGMA foreign_key_check`). Useful after inserting with foreign keys off.
    public func foreignKeyViolations(in tableName: String? = nil) throws -> RecordCursor<ForeignKeyViolation> {
        var sql = "PRAGMA foreign_key_check"
        if let tableName { sql += "(\(tableName.quotedDatabaseIdentifier))" }
        return try ForeignKeyViolation.fetchCursor(self, sql: sql)
    }

    /// Throws the first foreign key violation, in all tables or in one.
    ///
    /// - throws: ``DatabaseError`` with the extended code
    ///   `SQLITE_CONSTRAINT_FOREIGNKEY`, and a message naming the tables and the rowid.
    public func checkForeignKeys(in tableName: String? = nil) throws {
        if let violation = try foreignKeyViolations(in: tableName).next() {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: violation.description)
        }
    }

    private func noSuchTable(_ tableName: String, in schemaName: String?) -> DatabaseError {
        let name = schemaName.map { "\($0).\(tableName)" } ?? tableName
        return DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(name)")
    }
}

extension String {
    /// The string as an SQL identifier between double quotes, safe to splice
    /// into SQL: `"player"`, `"my ""table"""`.
    public var quotedDatabaseIdentifier: String {
        // The common case, without a quote inside, costs no Foundation call.
        guard utf8.contains(UInt8(ascii: "\"")) else { return "\"" + self + "\"" }
        return "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
