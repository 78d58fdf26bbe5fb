// The fetching loops shared by rows, values and records. Each public `fetch*`
// method resolves its source (SQL, statement, or request) to a statement and
// its arguments, and calls one of these.

extension Statement {
    /// Runs the statement and calls `body` with a row that reads each result
    /// row in turn, until `body` returns false. The statement is reset afterwards.
    @inline(__always)
    func forEachRow(arguments: StatementArguments?, adapter: (any RowAdapter)? = nil, _ body: (Row) throws -> Bool) throws {
        var row = try Row.forFetching(self, adapter: adapter)
        var rowGeneration = columnsGeneration
        var iteration = try StatementIteration(statement: self, arguments: arguments)
        defer { iteration.finish() }
        guard try iteration.step() else { return }
        try iteration.refresh(&row, madeAt: &rowGeneration, adapter: adapter)
        // The same row for the rest: a constant, read without retaining it.
        let currentRow = row
        guard try body(currentRow) else { return }
        while try iteration.step() {
            if try !body(currentRow) { break }
        }
    }

    /// All the elements extracted from the result rows.
    @inline(__always)
    func fetchAll<T>(arguments: StatementArguments?, adapter: (any RowAdapter)? = nil, _ element: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(arguments: arguments, adapter: adapter) { row in
            result.append(try element(row))
            return true
        }
        return result
    }

    /// The distinct elements extracted from the result rows.
    @inline(__always)
    func fetchSet<T: Hashable>(arguments: StatementArguments?, adapter: (any RowAdapter)? = nil, _ element: (Row) throws -> T) throws
        -> Set<T>
    {
        var result: Set<T> = []
        try forEachRow(arguments: arguments, adapter: adapter) { row in
            result.insert(try element(row))
            return true
        }
        return result
    }

    /// The element extracted from the first result row, if any.
    ///
    /// The element is returned straight from `element`, never stored in a
    /// local `T?`: in generic code such a local makes the runtime look up the
    /// metadata of `Optional<T>` on each call (measured: 450 instructions).
    @inline(__always)
    func fetchOne<T>(arguments: StatementArguments?, adapter: (any RowAdapter)? = nil, _ element: (Row) throws -> T?) throws -> T? {
        let row = try Row.forFetching(self, adapter: adapter)
        let columnsGeneration = self.columnsGeneration
        return try fetchOne(arguments: arguments) { statement in
            // A step that recompiled the statement changed its columns.
            if statement.columnsGeneration == columnsGeneration { return try element(row) }
            return try element(Row.forFetching(statement, adapter: adapter))
        }
    }

    /// The element extracted from the first result row, if any, by a
    /// function that reads the statement's columns itself (no row).
    @inline(__always)
    func fetchOne<T>(arguments: StatementArguments?, _ element: (Statement) throws -> T?) throws -> T? {
        var iteration = try StatementIteration(statement: self, arguments: arguments)
        defer { iteration.finish() }
        guard try iteration.step() else { return nil }
        return try element(self)
    }
}

extension Database {
    /// The statement for SQL given to a `fetch*(db, sql:)` method: compiled once
    /// and reused, unless a cursor is currently iterating it.
    @inline(__always)
    func statementForFetch(sql: String) throws -> Statement {
        try checkOpen()
        return try reusableStatement(sql: sql)
    }
}

extension Row {
    /// The row a fetch reads: the statement's current row, seen through the
    /// adapter when there is one (resolved once, against the statement's columns).
    @inline(__always)
    static func forFetching(_ statement: Statement, adapter: (any RowAdapter)?) throws -> Row {
        let row = Row(statement: statement)
        guard let adapter else { return row }
        return Row(base: row, layout: try adapter.layoutedAdapter(from: statement.columnNames), indexed: true)
    }
}

/// Where a fetch method gets its statement: SQL, an SQL literal, a prepared
/// statement, or a request. Each public `fetch*` method builds one and hands
/// it to the shared loops, so the four families of sources are written once.
struct FetchSource {
    let statement: Statement
    let arguments: StatementArguments?
    let adapter: (any RowAdapter)?
    /// The prefetch of `including(all:)` associations, with its connection.
    private(set) var prefetch: (db: Database, run: (Database, [Row]) throws -> Void)?

    /// SQL and arguments, through the transparent statement cache.
    @inline(__always)
    init(_ db: Database, sql: String, arguments: StatementArguments, adapter: (any RowAdapter)?) throws {
        statement = try db.statementForFetch(sql: sql)
        self.arguments = arguments
        self.adapter = adapter
    }

    /// An SQL literal.
    init(_ db: Database, literal: SQL, adapter: (any RowAdapter)?) throws {
        let (sql, arguments) = try literal.build(db)
        try self.init(db, sql: sql, arguments: arguments, adapter: adapter)
    }

    /// A prepared statement, with new arguments or its own.
    @inline(__always)
    init(_ statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)?) {
        self.statement = statement
        self.arguments = arguments
        self.adapter = adapter
    }

    /// A request, prepared for this connection.
    init(_ db: Database, request: some FetchRequest, singleResult: Bool = false) throws {
        if let parts = try request._fetchParts(db, singleResult: singleResult) {
            self.init(db, parts: parts)
        } else {
            let prepared = try request.makePreparedRequest(db, forSingleResult: singleResult)
            self.init(prepared.statement, arguments: nil, adapter: prepared.adapter)
        }
    }

    /// The parts of an SQL or query interface request, which binds its
    /// arguments in the fetch itself.
    init(_ db: Database, parts: _FetchParts) {
        (statement, arguments, adapter) = (parts.statement, parts.arguments, parts.adapter)
        if let run = parts.prefetch { prefetch = (db, run) }
    }

    @inline(__always)
    func fetchAll<T>(_ element: (Row) throws -> T) throws -> [T] {
        if let prefetch { return try prefetchedRows(prefetch).map(element) }
        return try statement.fetchAll(arguments: arguments, adapter: adapter, element)
    }

    @inline(__always)
    func fetchSet<T: Hashable>(_ element: (Row) throws -> T) throws -> Set<T> {
        if let prefetch { return try Set(prefetchedRows(prefetch).map(element)) }
        return try statement.fetchSet(arguments: arguments, adapter: adapter, element)
    }

    @inline(__always)
    func fetchOne<T>(_ element: (Row) throws -> T?) throws -> T? {
        if let prefetch {
            guard let row = try statement.fetchOne(arguments: arguments, adapter: adapter, { $0.copy() }) else {
                try prefetch.run(prefetch.db, [])  // what an observation tracks
                return nil
            }
            try prefetch.run(prefetch.db, [row])
            return try element(row)
        }
        return try statement.fetchOne(arguments: arguments, adapter: adapter, element)
    }

    /// The rows, copied, with their associated rows.
    private func prefetchedRows(_ prefetch: (db: Database, run: (Database, [Row]) throws -> Void)) throws -> [Row] {
        let rows = try statement.fetchAll(arguments: arguments, adapter: adapter) { $0.copy() }
        try prefetch.run(prefetch.db, rows)
        return rows
    }

    /// Refuses a cursor over a request with `including(all:)`: its rows
    /// would all be in memory before the first one, which a cursor promises
    /// not to do.
    func refusingPrefetch() throws -> FetchSource {
        if prefetch != nil {
            throw DatabaseError.misuse("a request with including(all:) fetches all its rows at once: use fetchAll instead of fetchCursor")
        }
        return self
    }
}

extension SQLRequest {
    /// The connection's statement of the SQL; the fetch binds the arguments.
    public func _fetchParts(_ db: Database, singleResult: Bool) throws -> _FetchParts? {
        let (statement, arguments, adapter) = try makeFetch(db)
        return _FetchParts(statement: statement, arguments: arguments, adapter: adapter)
    }
}
