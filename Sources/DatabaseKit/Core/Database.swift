internal import DatabaseKitSQLite
import Foundation

/// A connection to an SQLite database.
///
/// You never create a `Database` yourself: a ``DatabaseQueue`` hands one to the
/// closures of its access methods, and it is only valid inside them.
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
///     print(db.lastInsertedRowID)
/// }
/// ```
public final class Database {
    /// The raw SQLite connection handle; nil once the connection is closed.
    public private(set) var sqliteConnection: SQLiteConnection?

    /// The configuration of the connection.
    public let configuration: Configuration

    /// The connection's name: the configuration label, or a default such as
    /// "DatabaseKit.DatabaseQueue".
    public let description: String

    /// The path given to SQLite.
    let path: String

    /// Statements prepared by the `sql:` APIs and ``cachedStatement(sql:)``,
    /// keyed by SQL, so that repeated SQL is compiled once.
    var statementCache = StatementCache()

    /// BEGIN, COMMIT and the query_only switches, compiled once.
    private(set) lazy var accessStatements = AccessStatements(self)

    /// The thread that runs the current access block: statements and cursors
    /// refuse to run on any other thread.
    var accessThread: pthread_t?

    /// The user's trace function of ``trace(options:_:)``.
    var traceHandler: ((TraceEvent) -> Void)?
    var traceOptions: TracingOptions = []

    /// Table information read by the introspection methods; see ``SchemaCache``.
    var schemaCache = SchemaCache()

    /// The statements of the record persistence methods.
    var recordStatementCache = RecordStatementCache()

    /// Set by the authorizer while a statement that may change the schema compiles.
    var compiledStatementMayChangeSchema = false

    /// Opens a connection.
    ///
    /// - parameters:
    ///   - path: A file path, ":memory:", or a "file:" URI.
    ///   - description: The connection's name.
    ///   - configuration: The configuration.
    /// - throws: ``DatabaseError`` when the file can not be opened, is not a
    ///   database, or the configuration can not be applied.
    init(path: String, description: String, configuration: Configuration) throws {
        self.path = path
        self.description = description
        self.configuration = configuration
        if configuration.passphrase != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message:
                    "a passphrase was given, but the system SQLite has no encryption (it is not SQLCipher): open the database without a passphrase"
            )
        }
        sqliteConnection = try Database.openConnection(path: path, configuration: configuration)
        do {
            try setUp()
        } catch {
            sqlite3_close_v2(sqliteConnection)
            sqliteConnection = nil
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        // close_v2 defers the close until remaining statements are finalized.
        if let sqliteConnection { sqlite3_close_v2(sqliteConnection) }
    }

    private static func openConnection(path: String, configuration: Configuration) throws -> OpaquePointer {
        // Connections are confined to one dispatch queue: SQLite's own mutexes are
        // not needed (SQLITE_OPEN_NOMUTEX).
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= configuration.readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        if path.hasPrefix("file:") { flags |= SQLITE_OPEN_URI }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? sqliteErrorString(code)
            let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
            sqlite3_close_v2(handle)
            var hint = ""
            if configuration.readonly && !FileManager.default.fileExists(atPath: path) {
                hint = " (the file does not exist, and a read-only connection never creates it)"
            }
            throw DatabaseError(
                resultCode: ResultCode(rawValue: extended),
                message: "\(message): \(path)\(hint)")
        }
        return handle
    }

    private func setUp() throws {
        // The opening thread owns the connection until the first access block.
        accessThread = pthread_self()
        defer { accessThread = nil }
        sqlite3_extended_result_codes(sqliteConnection, 1)
        setUpSchemaChangeObserver()
        // Before the busy handler: the check must not wait for other connections.
        try validateFormat()
        setUpBusyMode()
        setUpTrace()
        if configuration.foreignKeysEnabled {
            try execute(sql: "PRAGMA foreign_keys = ON")
        }
        for setup in configuration.setups {
            try setup(self)
        }
    }

    /// Reads the schema, so that a file that is not a database fails now with
    /// SQLITE_NOTADB rather than on first use. A lock held by another
    /// connection (BUSY, LOCKED) proves the file is in use by SQLite: the
    /// opening goes on, and the first access waits or fails per the busy mode.
    private func validateFormat() throws {
        do {
            try execute(sql: "SELECT * FROM sqlite_master LIMIT 1")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            statementCache.removeAll()
        }
    }

    private func setUpBusyMode() {
        switch configuration.busyMode {
        case .immediateError:
            if configuration.transientLockTimeout > 0 {
                sqlite3_busy_timeout(sqliteConnection, CInt((configuration.transientLockTimeout * 1000).rounded(.up)))
            }
        case .timeout(let seconds):
            sqlite3_busy_timeout(sqliteConnection, CInt(clamping: Int((seconds * 1000).rounded(.up))))
        case .callback:
            let context = Unmanaged.passUnretained(self).toOpaque()
            sqlite3_busy_handler(
                sqliteConnection,
                { context, tries in
                    let db = Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
                    guard case .callback(let callback) = db.configuration.busyMode else { return 0 }
                    return callback(Int(tries)) ? 1 : 0
                }, context)
        }
    }

    // MARK: Connection state

    /// The rowid of the most recent successful INSERT.
    /// See <https://www.sqlite.org/c3ref/last_insert_rowid.html>.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(sqliteConnection) }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE.
    /// See <https://www.sqlite.org/c3ref/changes.html>.
    public var changesCount: Int { Int(sqlite3_changes(sqliteConnection)) }

    /// The number of rows changed since the connection was opened.
    /// See <https://www.sqlite.org/c3ref/total_changes.html>.
    public var totalChangesCount: Int { Int(sqlite3_total_changes(sqliteConnection)) }

    /// True when a transaction is open.
    /// See <https://www.sqlite.org/c3ref/get_autocommit.html>.
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(sqliteConnection) == 0 }

    /// The version of the SQLite library, such as "3.40.1".
    public static var sqliteLibVersion: String { String(cString: sqlite3_libversion()) }

    /// True once the connection is closed.
    var isClosed: Bool { sqliteConnection == nil }

    // MARK: Statements

    /// Compiles a single SQL statement.
    ///
    /// - throws: ``DatabaseError`` on a syntax error, when `sql` holds no
    ///   statement, or more than one.
    public func makeStatement(sql: String) throws -> Statement {
        try checkOpen()
        guard let (statement, hasTrailingStatements) = try prepareFirstStatement(of: sql) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement in SQL", sql: sql)
        }
        if hasTrailingStatements {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "multiple statements found: use execute(sql:) to run several statements, or prepare them one at a time",
                sql: sql)
        }
        return statement
    }

    /// Returns a compiled statement from the connection's cache, compiling and
    /// caching it on first use.
    ///
    /// The same statement is returned on each call with the same SQL: do not
    /// use it twice at the same time.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
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

    /// Prepares the first statement of `sql`.
    ///
    /// - returns: nil when `sql` holds only white space and comments; otherwise
    ///   the statement, and whether more statements follow it.
    private func prepareFirstStatement(of sql: String) throws -> (Statement, Bool)? {
        var result: (Statement, Bool)?
        try forEachStatement(in: sql, stopAfterFirst: true) { statement, hasMore in
            result = (statement, hasMore)
        }
        return result
    }

    /// Compiles the statements of `sql` one after the other, calling `body`
    /// with each one before compiling the next (so a statement may depend on
    /// the schema changes of the previous ones).
    func forEachStatement(
        in sql: String,
        stopAfterFirst: Bool = false,
        _ body: (Statement, _ hasMore: Bool) throws -> Void
    ) throws {
        try sql.utf8CString.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            let end = start + buffer.count - 1  // the NUL terminator
            var cursor = start
            while cursor < end {
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                compiledStatementMayChangeSchema = false
                // The length includes the NUL terminator: otherwise SQLite copies the
                // rest of the SQL on every prepare, quadratic over a long script.
                let code = sqlite3_prepare_v2(sqliteConnection, cursor, CInt(end - cursor + 1), &handle, &tail)
                guard code == SQLITE_OK else {
                    throw error(code: code, sql: sqlText(from: cursor, to: tail ?? end))
                }
                cursor = tail ?? end
                guard let handle else { continue }  // white space or a comment
                let statement = Statement(database: self, sqliteStatement: handle)
                statement.mayChangeSchema = compiledStatementMayChangeSchema
                let hasMore = containsStatement(from: cursor, to: end)
                try body(statement, hasMore)
                if stopAfterFirst { return }
            }
        }
    }

    /// The trimmed SQL between two pointers, for error messages.
    func sqlText(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: end - start), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// True when the text between the two pointers holds anything but white
    /// space and semicolons (comments count as content: SQLite decides later).
    private func containsStatement(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> Bool {
        var pointer = start
        while pointer < end {
            switch UInt8(bitPattern: pointer.pointee) {
            case 0x20, 0x09, 0x0A, 0x0D, 0x3B: pointer += 1
            default: return true
            }
        }
        return false
    }

    // MARK: Executing updates

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
    /// named arguments are available to every statement. Left-over or missing
    /// arguments are an error.
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
        var isFirst = true
        try forEachStatement(in: sql) { statement, hasMore in
            if isFirst && !hasMore {
                statementCache[sql] = statement
            }
            isFirst = false
            let values = try consumer.values(for: statement)
            try statement.bind(values, arguments: arguments)
            try statement.execute()
        }
        try consumer.checkFullyConsumed(sql: sql)
    }

    /// Executes one or several SQL statements built with SQL interpolation:
    /// interpolated values become bound arguments.
    ///
    /// ```swift
    /// let name = "O'Brien"
    /// try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
    /// ```
    public func execute(literal sqlLiteral: SQL) throws {
        let (sql, arguments) = sqlLiteral.build()
        try execute(sql: sql, arguments: arguments)
    }

    // MARK: Errors and access checks

    /// The error for a failed call, with SQLite's current message.
    func error(code: CInt, sql: String? = nil, arguments: StatementArguments? = nil) -> DatabaseError {
        // The extended code is more precise than the code a function returned,
        // but only when it belongs to the same primary code.
        var extended = code
        if let sqliteConnection {
            let connectionCode = sqlite3_extended_errcode(sqliteConnection)
            if connectionCode & 0xFF == code & 0xFF { extended = connectionCode }
        }
        let message = sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? sqliteErrorString(code)
        return DatabaseError(
            resultCode: ResultCode(rawValue: extended),
            message: message,
            sql: sql,
            arguments: configuration.publicStatementArguments ? arguments : nil)
    }

    /// Throws when the connection is closed.
    @inline(__always)
    func checkOpen() throws {
        if sqliteConnection == nil {
            throw DatabaseError.misuse("the database connection \(description) is closed")
        }
    }

    /// Throws when a statement or cursor is used outside the access block that
    /// created it.
    @inline(__always)
    func checkAccess(for statement: Statement) throws {
        guard let accessThread, pthread_equal(accessThread, pthread_self()) != 0 else {
            throw DatabaseError.misuse(
                "a statement or cursor was used outside of its database access block: consume it inside the closure given to read, write or inDatabase",
                sql: statement.sql)
        }
    }

    // MARK: Closing

    /// Closes the connection.
    ///
    /// - throws: ``DatabaseError`` (SQLITE_BUSY) when statements created by the
    ///   application are still alive; the connection then stays open.
    func close() throws {
        guard let sqliteConnection else { return }
        statementCache.removeAll()
        recordStatementCache.removeAll()
        accessStatements.removeAll()
        let code = sqlite3_close(sqliteConnection)
        guard code == SQLITE_OK else {
            var alive: [String] = []
            var statement = sqlite3_next_stmt(sqliteConnection, nil)
            while let current = statement {
                alive.append(String(cString: sqlite3_sql(current)))
                statement = sqlite3_next_stmt(sqliteConnection, current)
            }
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message:
                    "can not close the connection while statements are alive: release them first (\(alive.map { "`\($0)`" }.joined(separator: ", ")))"
            )
        }
        self.sqliteConnection = nil
    }

    /// Frees as much memory as possible: the statement cache, the schema
    /// cache, and SQLite's page cache.
    /// See <https://www.sqlite.org/c3ref/db_release_memory.html>.
    public func releaseMemory() {
        statementCache.removeAll()
        recordStatementCache.removeAll()
        schemaCache.removeAll()
        accessStatements.removeAll()
        if let sqliteConnection { sqlite3_db_release_memory(sqliteConnection) }
    }
}

@available(*, unavailable, message: "Database connections are confined to their access block")
extension Database: Sendable {}

extension Database {
    /// The kinds of transactions.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    public enum TransactionKind: String, Sendable {
        /// BEGIN DEFERRED: locks are taken on first read or write.
        case deferred = "DEFERRED"
        /// BEGIN IMMEDIATE: the write lock is taken at once.
        case immediate = "IMMEDIATE"
        /// BEGIN EXCLUSIVE.
        case exclusive = "EXCLUSIVE"
    }

    /// How a transaction block ends.
    public enum TransactionCompletion: Sendable {
        /// Commit the transaction.
        case commit
        /// Roll the transaction back.
        case rollback
    }

    /// A function called when the database is locked, with the number of tries
    /// so far; it returns true to try again.
    public typealias BusyCallback = @Sendable (_ numberOfTries: Int) -> Bool

    /// How a connection behaves when another connection holds a lock it needs.
    /// See <https://www.sqlite.org/c3ref/busy_timeout.html>.
    public enum BusyMode: Sendable {
        /// Fail at once with SQLITE_BUSY.
        case immediateError
        /// Retry for up to this many seconds, then fail with SQLITE_BUSY.
        case timeout(TimeInterval)
        /// Ask the callback whether to retry.
        case callback(BusyCallback)
    }
}
