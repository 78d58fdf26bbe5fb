internal import DatabaseKitSQLite
import FoundationEssentials

extension Database {
    // MARK: Compiling

    /// Compiles a single SQL statement.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
    /// ```
    ///
    /// - throws: ``DatabaseError``: SQLITE_ERROR on a syntax error or when
    ///   `sql` holds no statement ("empty statement"); SQLITE_MISUSE when it
    ///   holds more than one (use ``execute(sql:arguments:)`` or
    ///   ``allStatements(sql:arguments:)`` for those).
    public func makeStatement(sql: String) throws -> Statement {
        try checkOpen()
        return try sql.utf8CString.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress!  // never nil: the buffer holds the NUL terminator
            let end = start + buffer.count - 1
            var cursor = start
            guard let statement = try prepareNextStatement(from: &cursor, end: end) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "empty statement", sql: sql)
            }
            // A second statement, compilable or not, is an error; comments are not.
            if containsStatement(from: cursor, to: end) {
                let second: Statement?
                do {
                    second = try prepareNextStatement(from: &cursor, end: end)
                } catch {
                    second = statement
                }
                if second != nil {
                    throw DatabaseError(
                        resultCode: .SQLITE_MISUSE,
                        message:
                            "Multiple statements found. To execute multiple statements, use Database.execute(sql:) or Database.allStatements(sql:) instead.",
                        sql: sql)
                }
            }
            return statement
        }
    }

    /// Compiles a single SQL statement built with SQL interpolation, with its
    /// arguments set.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(literal: "SELECT * FROM player WHERE id = \(id)")
    /// ```
    public func makeStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try makeStatement(sql: sql)
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// Returns a compiled statement from the connection's cache, compiling and
    /// caching it on first use.
    ///
    /// The same statement is returned on each call with the same SQL: do not
    /// use it twice at the same time. A statement whose execution fails
    /// leaves the cache.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Like ``cachedStatement(sql:)``, with SQL interpolation: the arguments
    /// are set on the statement.
    public func cachedStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try cachedStatement(sql: sql)
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// A cached statement that no cursor is currently iterating, or a new one
    /// when the cached statement is busy. Backs the `sql:` fetching methods.
    func reusableStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            if !statement.isBorrowed { return statement }
            return try makeStatement(sql: sql)
        }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Compiles the statement that starts at `cursor`, and moves `cursor`
    /// past it.
    ///
    /// - returns: nil when only white space and comments remain.
    /// - throws: The compilation error, with the SQL from the statement on.
    func prepareNextStatement(from cursor: inout UnsafePointer<CChar>, end: UnsafePointer<CChar>) throws -> Statement? {
        while cursor < end {
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            authorizer.reset()
            // The length includes the NUL terminator: otherwise SQLite copies the
            // rest of the SQL on every prepare, quadratic over a long script.
            let code = sqlite3_prepare_v2(sqliteConnection, cursor, CInt(end - cursor + 1), &handle, &tail)
            let compilation = authorizer.compilation
            authorizer.reset()
            guard code == SQLITE_OK else {
                let error = self.error(code: code, sql: String(cString: cursor))
                if error.isInterruptionError, interruption.isCancelled, ignoresCancellationDepth == 0 {
                    throw CancellationError()
                }
                throw error
            }
            let start = cursor
            cursor = tail ?? end
            if cursor <= start { cursor = end }  // never loop on a tail that does not move
            guard let handle else { continue }  // white space or a comment
            return Statement(database: self, sqliteStatement: handle, compilation: compilation)
        }
        return nil
    }

    /// True when the text between the two pointers holds anything but white
    /// space and semicolons (comments count as content: SQLite decides).
    func containsStatement(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> Bool {
        var pointer = start
        while pointer < end {
            switch UInt8(bitPattern: pointer.pointee) {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3B: pointer += 1
            default: return true
            }
        }
        return false
    }

    // MARK: Executing

    /// Executes one or several SQL statements separated by semicolons.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     INSERT INTO player (name, score) VALUES (?, ?);
    ///     INSERT INTO player (name, score) VALUES (?, ?);
    ///     """, arguments: ["Arthur", 750, "Barbara", 1000])
    /// ```
    ///
    /// Each statement consumes the positional arguments it needs, in order;
    /// named arguments are available to every statement, and may go unused.
    /// A missing argument, or a positional argument left over, is an error.
    ///
    /// - throws: ``DatabaseError`` naming the failing statement.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try checkOpen()
        // A single statement is compiled once and reused: most SQL is executed
        // many times.
        if let statement = statementCache[sql], !statement.isBorrowed {
            try statement.execute(arguments: arguments)
            return
        }
        var consumer = ArgumentsConsumer(arguments)
        try sql.utf8CString.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress!  // never nil: the buffer holds the NUL terminator
            let end = start + buffer.count - 1
            var cursor = start
            var isFirst = true
            while let statement = try prepareNextStatement(from: &cursor, end: end) {
                if isFirst && !containsStatement(from: cursor, to: end) {
                    statementCache[sql] = statement
                }
                isFirst = false
                try statement.bind(consumer.values(for: statement), arguments: arguments)
                try statement.execute()
            }
        }
        try consumer.checkNoPositionalValueLeft(sql: nil)
    }

    /// Executes one or several SQL statements built with SQL interpolation:
    /// interpolated values become bound arguments.
    ///
    /// ```swift
    /// let name = "O'Brien"
    /// try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
    /// ```
    public func execute(literal sqlLiteral: SQL) throws {
        let (sql, arguments) = try sqlLiteral.build(self)
        try execute(sql: sql, arguments: arguments)
    }

    /// The statements of `sql`, one at a time; see ``SQLStatementCursor``.
    ///
    /// - parameters:
    ///   - sql: One or several SQL statements.
    ///   - arguments: Arguments shared by the statements, or nil to set them
    ///     on each statement later.
    public func allStatements(sql: String, arguments: StatementArguments? = nil) throws -> SQLStatementCursor {
        try checkOpen()
        return SQLStatementCursor(database: self, sql: sql, arguments: arguments)
    }

    /// The statements of an SQL literal, one at a time, with their arguments.
    public func allStatements(literal sqlLiteral: SQL) throws -> SQLStatementCursor {
        let (sql, arguments) = try sqlLiteral.build(self)
        return try allStatements(sql: sql, arguments: arguments.isEmpty ? nil : arguments)
    }
}
