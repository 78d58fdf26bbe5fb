extension Database {
    /// Prints the rows of every statement of `sql`.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// try db.dumpSQL("SELECT * FROM player ORDER BY id")
    /// ```
    ///
    /// - parameters:
    ///   - sql: one or more SQL statements, separated by semicolons.
    ///   - format: how rows are printed.
    ///   - stream: where they are printed; the standard output by default.
    ///     Pass a class instance: a value type would receive a copy.
    public func dumpSQL(_ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var stream = DumpStream(stream)
        try dumpStatements(allStatements(literal: sql), format: format, to: &stream)
    }

    /// Prints the rows of a request.
    ///
    /// ```swift
    /// try db.dumpRequest(SQLRequest<Row>(sql: "SELECT * FROM player"), format: .quote())
    /// ```
    public func dumpRequest(
        _ request: some FetchRequest, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil
    ) throws {
        var stream = DumpStream(stream)
        try dumpRequest(request, format: format, to: &stream)
    }

    /// Prints the rows of tables and views: tables in the order of their
    /// primary key, views in their own order, or in the order of all their
    /// columns when `stableOrder` is true (for tests).
    ///
    /// ```swift
    /// // player
    /// // 1|Arthur|500
    /// //
    /// // team
    /// // 1|Red
    /// try db.dumpTables(["player", "team"])
    /// ```
    ///
    /// - parameters:
    ///   - tables: the names of the tables and views, printed in this order.
    ///   - format: how rows are printed.
    ///   - tableHeader: when the name of a table is printed above its rows:
    ///     by default, only when there are several tables.
    ///   - stableOrder: when true, views are ordered by all their columns.
    ///   - stream: where rows are printed; the standard output by default.
    public func dumpTables(
        _ tables: [String],
        format: some DumpFormat = .debug(),
        tableHeader: DumpTableHeaderOptions = .automatic,
        stableOrder: Bool = false,
        to stream: (any TextOutputStream)? = nil
    ) throws {
        var stream = DumpStream(stream)
        try dumpTables(tables, format: format, tableHeader: tableHeader, stableOrder: stableOrder, to: &stream)
    }

    /// Prints the schema, then the rows of every table in a stable order.
    ///
    /// ```
    /// sqlite_master
    /// CREATE TABLE "player" ("id" INTEGER PRIMARY KEY, "name" TEXT);
    ///
    /// player
    /// 1,'Arthur'
    /// ```
    ///
    /// Objects of SQLite (`sqlite_` names), of GRDB and DatabaseKit (`grdb_`
    /// names, such as the migrations table), and the shadow tables of
    /// virtual tables are left out.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var stream = DumpStream(stream)
        try dumpSchema(to: &stream)
        stream.margin()
        let tables = try String.fetchAll(
            self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name COLLATE NOCASE"
        ).filter { try !isHiddenFromDump($0) }
        try dumpTables(tables, format: format, tableHeader: .always, stableOrder: true, to: &stream)
    }

    /// Prints the schema under a `sqlite_master` line: one statement per
    /// line, grouped by table, then tables, indexes, triggers and views, by
    /// name. The objects ``dumpContent(format:to:)`` leaves out are left out.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        var stream = DumpStream(stream)
        try dumpSchema(to: &stream)
    }

    // MARK: Implementation

    private func dumpStatements(_ statements: SQLStatementCursor, format: some DumpFormat, to stream: inout DumpStream) throws {
        while let statement = try statements.next() {
            try dumpRows(of: statement, format: format, to: &stream)
        }
    }

    /// Prints the rows of `statement` with a fresh copy of `format`.
    private func dumpRows(of statement: Statement, format: some DumpFormat, to stream: inout DumpStream) throws {
        var format = format
        let cursor = try statement.makeCursor()
        while try cursor.next() != nil {
            try format.writeRow(self, statement: statement, to: &stream)
        }
        format.finalize(self, statement: statement, to: &stream)
    }

    private func dumpRequest(_ request: some FetchRequest, format: some DumpFormat, to stream: inout DumpStream) throws {
        let prepared = try request.makePreparedRequest(self, forSingleResult: false)
        try dumpRows(of: prepared.statement, format: format, to: &stream)
    }

    private func dumpTables(
        _ tables: [String], format: some DumpFormat, tableHeader: DumpTableHeaderOptions, stableOrder: Bool,
        to stream: inout DumpStream
    ) throws {
        let printsHeader = tableHeader == .always || tables.count > 1
        for (position, table) in tables.enumerated() {
            if position > 0 { stream.write("\n") }
            if printsHeader { stream.writeLine(table) }
            let sql = try dumpQuery(of: table, stableOrder: stableOrder)
            try dumpRows(of: makeStatement(sql: sql), format: format, to: &stream)
        }
    }

    /// `SELECT *` from a table or a view, in the order of its primary key
    /// for a table (or a view given one by the schema source); in the order
    /// of all its columns for a view when `stableOrder` is true.
    private func dumpQuery(of table: String, stableOrder: Bool) throws -> String {
        let select = "SELECT * FROM " + table.quotedDatabaseIdentifier
        if try tableExists(table) {
            return try select + " ORDER BY " + primaryKey(table).columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        }
        guard stableOrder else { return select }
        if let key = try? primaryKey(table) {
            return select + " ORDER BY " + key.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        }
        let columnCount = try makeStatement(sql: select).columnCount
        guard columnCount > 0 else { return select }
        return select + " ORDER BY " + (1...columnCount).map(String.init).joined(separator: ", ")
    }

    private func dumpSchema(to stream: inout DumpStream) throws {
        stream.writeLine("sqlite_master")
        let objects = try Row.fetchAll(
            self,
            sql: """
                SELECT sql || ';', name FROM sqlite_master
                WHERE sql IS NOT NULL
                ORDER BY tbl_name COLLATE NOCASE,
                    CASE type WHEN 'table' THEN 'a' WHEN 'index' THEN 'aa' ELSE type END,
                    name COLLATE NOCASE,
                    sql
                """)
        for object in objects where try !isHiddenFromDump(object[1]) {
            stream.writeLine(object[0])
        }
    }

    /// True for the objects of SQLite, of GRDB and DatabaseKit, and the
    /// shadow tables of virtual tables: the `CREATE VIRTUAL TABLE` of the
    /// dump creates them again.
    private func isHiddenFromDump(_ name: String) throws -> Bool {
        if Database.isSQLiteInternalTable(name) || Database.isGRDBInternalTable(name) { return true }
        return try Bool.fetchOne(
            self, sql: "SELECT 1 FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow' AND name = ?",
            arguments: [name]) ?? false
    }
}
