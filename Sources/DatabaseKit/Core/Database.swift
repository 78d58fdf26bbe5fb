// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): the connection's caches

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
// and flags: without them and the cursors' and the decoder's, insert-sql runs 6% more instructions,
// point-queries 5%, transactions 8.6%.

internal import DatabaseKitSQLite
import FoundationEssentials
import Synchronization

/// A connection to an SQLite database.
///
/// You never create a `Database` yourself: a ``DatabaseQueue`` or a
/// ``DatabasePool`` hands one to the closures of its access methods, and it
/// is only valid inside them.
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
///     print(db.lastInsertedRowID)
/// }
/// ```
public final class Database: CustomStringConvertible, CustomDebugStringConvertible {
    /// The raw SQLite connection handle; nil once the connection is closed.
    // Read by every statement execution, on the connection's thread only:
    // no dynamic exclusivity check.
    @exclusivity(unchecked) public private(set) var sqliteConnection: SQLiteConnection?

    /// The configuration of the connection.
    public let configuration: Configuration

    /// The connection's name: the configuration label, or a default such as
    /// "GRDB.DatabaseQueue", followed by the role of a pool connection
    /// ("writer", "reader.1", ...).
    public let description: String

    /// `<Database: description>`.
    public var debugDescription: String { "<Database: \(description)>" }

    /// The schema source of the connection (see ``Configuration/schemaSource``),
    /// changed for a while by ``withSchemaSource(_:execute:)``.
    public internal(set) var schemaSource: (any DatabaseSchemaSource)?

    /// The path given to SQLite.
    let path: String

    /// Statements prepared by the `sql:` APIs and ``cachedStatement(sql:)``,
    /// keyed by SQL, so that repeated SQL is compiled once. Looked up by
    /// every `sql:` call: no dynamic exclusivity check (see
    /// ``observationBroker``).
    @exclusivity(unchecked) var statementCache = StatementCache()

    /// BEGIN, COMMIT and the query_only switches, compiled once (a constant:
    /// read by every access block without an exclusivity check).
    let accessStatements = AccessStatements()

    /// The authorizer, installed once: it flags schema changes and
    /// transaction statements as they compile.
    private(set) lazy var authorizer = StatementAuthorizer(self)

    /// The transaction observers' broker; nil until the first observer.
    ///
    /// This and the other flags read by every execution skip the dynamic
    /// exclusivity check: a connection is only used by the thread of its
    /// current access block (see ``accessThread``).
    @exclusivity(unchecked) private(set) var observationBroker: DatabaseObservationBroker?

    /// The thread that runs the current access block: statements and cursors
    /// refuse to run on any other thread.
    var accessThread: pthread_t? {
        get {
            let thread = accessThreadID.load(ordering: .relaxed)
            return thread == 0 ? nil : thread
        }
        set { accessThreadID.store(newValue ?? 0, ordering: .relaxed) }
    }

    /// ``accessThread``, 0 outside of an access. Atomic: any thread may ask
    /// whether it runs the current access (``isAccessedByCurrentThread``).
    /// Relaxed loads suffice: the thread that runs an access wrote its own
    /// identifier, and any other thread can only read another value.
    private let accessThreadID = Atomic<UInt>(0)

    /// True when the current thread runs an access block of this connection.
    var isAccessedByCurrentThread: Bool {
        accessThreadID.load(ordering: .relaxed) == pthread_self()
    }

    /// The user's trace function of ``trace(options:_:)``.
    var traceHandler: ((TraceEvent) -> Void)?
    var traceOptions: TracingOptions = []

    /// Table information read by the introspection methods; see
    /// ``SchemaCache``. Invalidated by every access block: no dynamic
    /// exclusivity check (see ``observationBroker``).
    @exclusivity(unchecked) var schemaCache = SchemaCache()

    /// The statements of the record persistence methods. Looked up by every
    /// record insert, update and fetch by key: no dynamic exclusivity check
    /// (see ``observationBroker``).
    @exclusivity(unchecked) var recordStatementCache = RecordStatementCache()

    /// The functions and collations added to the connection, kept alive
    /// while SQLite may call them.
    var functions: [DatabaseFunction.ID: DatabaseFunction] = [:]
    var collations: [DatabaseCollation.ID: DatabaseCollation] = [:]

    /// The nesting of ``readOnly(_:)`` blocks.
    var readOnlyDepth = 0

    /// True inside ``inTransaction(_:_:)`` and ``inSavepoint(_:)``: a
    /// statement that finds no transaction there throws SQLITE_ABORT (see
    /// ``statementWillExecute(_:)``).
    @exclusivity(unchecked) var isInsideTransactionBlock = false

    /// The cancellation and suspension flags, shared with the tasks and
    /// notifications that set them from other threads.
    let interruption = ConnectionInterruption()

    /// The depth of ``ignoringCancellation(_:)`` blocks.
    var ignoresCancellationDepth = 0

    /// True while a pool read defers its transaction (see
    /// `Database+DeferredRead.swift`): the statements of the connection
    /// then take the slow path of ``stepDeferringRead(_:isFirst:)``.
    @exclusivity(unchecked) var isDeferringReadTransaction = false

    /// The first statement of a read that defers its transaction, once it
    /// has a row: its snapshot is the read's until the transaction begins.
    @exclusivity(unchecked) var readPin: Statement?

    /// Why the deferred transaction of the current read could not begin:
    /// every later statement of the read throws it.
    var deferredReadFailure: (any Error)?

    /// The union of the regions read by the statements executed inside
    /// ``recordingSelection(_:_:)``; nil outside of it. Read by every
    /// execution: no dynamic exclusivity check (see ``observationBroker``).
    @exclusivity(unchecked) var recordedSelection: DatabaseRegion?

    /// Whether the connection was inside a transaction after the previous
    /// statement: transitions set and clear the ``transactionDate``.
    @exclusivity(unchecked) var wasInsideTransaction = false
    var transactionDateResult: Result<Date, any Error>?

    /// The journal mode, read once for the suspension rules.
    var journalModeCache: String?

    /// Why a closed connection can not be used: nil once ``close()`` closed
    /// it, the configuration error of a queue that could not open.
    private(set) var closedReason: (any Error)?

    /// Opens a connection.
    ///
    /// - parameters:
    ///   - path: A file path, ":memory:", "" (a private temporary file), or a
    ///     "file:" URI.
    ///   - description: The connection's name.
    ///   - configuration: The configuration.
    /// - throws: ``DatabaseError`` when the file can not be opened, is not a
    ///   database, or the configuration can not be applied.
    init(path: String, description: String, configuration: Configuration) throws {
        _ = sqliteGlobalSetUp
        self.path = path
        self.description = description
        self.configuration = configuration
        self.schemaSource = configuration.schemaSource
        if configuration.passphrase != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message:
                    "a passphrase was given, but the system SQLite has no encryption (it is not SQLCipher): open the database without a passphrase"
            )
        }
        sqliteConnection = try Database.openConnection(path: path, configuration: configuration)
        interruption.connection = sqliteConnection
        do {
            try setUp()
        } catch {
            closeAfterFailedSetUp()
            throw error
        }
    }

    /// A connection that never opened: every access throws `reason`.
    init(closedBy reason: any Error, description: String, configuration: Configuration) {
        self.path = ":memory:"
        self.description = description
        self.configuration = configuration
        self.schemaSource = configuration.schemaSource
        closedReason = reason
    }

    deinit {
        close_v2()
    }

    private static func openConnection(path: String, configuration: Configuration) throws -> OpaquePointer {
        // Connections are confined to one dispatch queue: SQLite's own mutexes are
        // not needed (SQLITE_OPEN_NOMUTEX).
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= configuration.readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        if !configuration.createsMissingFile { flags &= ~SQLITE_OPEN_CREATE }
        if !configuration.followsSymbolicLinks { flags |= SQLITE_OPEN_NOFOLLOW }
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
        authorizer.register()
        setUpDoubleQuotedStringLiterals()
        setUpBusyMode()
        setUpTrace()
        if configuration.foreignKeysEnabled {
            try execute(sql: "PRAGMA foreign_keys = ON")
        }
        addDefaultFunctionsAndCollations()
        try configuration.setUp(self)
        // Last: the setups may set a key or register what the check needs.
        try validateFormat()
    }

    /// Reads the schema, so that a file that is not a database fails now with
    /// SQLITE_NOTADB rather than on first use. A lock held by another
    /// connection (BUSY, LOCKED) proves the file is in use by SQLite: the
    /// opening goes on, and the first access waits or fails per the busy mode.
    /// The check itself does not wait for that lock: waiting could not
    /// change its outcome, and would make the opening last the whole busy
    /// timeout. The timeout in effect (the configuration's, or the one
    /// `prepareDatabase` set) is put back after it; a busy callback is left
    /// to decide, as it does for every statement.
    private func validateFormat() throws {
        let busyTimeout = try Int32.fetchOne(makeStatement(sql: "PRAGMA busy_timeout")) ?? 0  // not cached: read once
        if busyTimeout > 0 { sqlite3_busy_timeout(sqliteConnection, 0) }
        defer { if busyTimeout > 0 { sqlite3_busy_timeout(sqliteConnection, busyTimeout) } }
        do {
            try execute(sql: "SELECT * FROM sqlite_master LIMIT 1")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            statementCache.removeAll()
        }
    }

    private func setUpDoubleQuotedStringLiterals() {
        // SQLite accepts "text" as a string when no column has that name, a
        // source of bugs; GRDB turns it off unless asked.
        let enabled: CInt = configuration.acceptsDoubleQuotedStringLiterals ? 1 : 0
        dbkit_db_config_int(sqliteConnection, SQLITE_DBCONFIG_DQS_DDL, enabled)
        dbkit_db_config_int(sqliteConnection, SQLITE_DBCONFIG_DQS_DML, enabled)
    }

    private func setUpBusyMode() {
        let busyMode = configuration.readonly ? (configuration.readonlyBusyMode ?? configuration.busyMode) : configuration.busyMode
        switch busyMode {
        case .immediateError:
            if configuration.transientLockTimeout > 0 {
                sqlite3_busy_timeout(sqliteConnection, busyTimeoutMilliseconds(configuration.transientLockTimeout))
            }
        case .timeout(let seconds):
            sqlite3_busy_timeout(sqliteConnection, busyTimeoutMilliseconds(seconds))
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

    /// Runs `body` again after SQLITE_BUSY for as long as the busy mode
    /// would wait: for the statements SQLite fails at once rather than risk
    /// a deadlock by calling the busy handler.
    func retryingWhenBusy<T>(_ body: () throws -> T) throws -> T {
        let busyMode = configuration.readonly ? (configuration.readonlyBusyMode ?? configuration.busyMode) : configuration.busyMode
        let clock = ContinuousClock()
        let start = clock.now
        var tries = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                let waited = start.duration(to: clock.now).components
                let waitedSeconds = Double(waited.seconds) + Double(waited.attoseconds) * 1e-18
                let mayRetry: Bool
                switch busyMode {  // a NaN timeout compares false: no retry
                case .immediateError: mayRetry = waitedSeconds < configuration.transientLockTimeout
                case .timeout(let seconds): mayRetry = waitedSeconds < seconds
                case .callback(let callback): mayRetry = callback(tries)
                }
                guard mayRetry else { throw error }
                tries += 1
                // 1, 2, 4 … ms, then every 50 ms: the other connection holds
                // the lock for one statement.
                usleep(UInt32(min(1 << min(tries - 1, 6), 50)) * 1000)
            }
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

    /// True when a transaction is open, as in every `DatabasePool` read (see
    /// <https://www.sqlite.org/c3ref/get_autocommit.html>).
    public var isInsideTransaction: Bool {
        guard let sqliteConnection else { return false }
        return sqlite3_get_autocommit(sqliteConnection) == 0 || isDeferringReadTransaction
    }

    /// The result code of the most recent failed call.
    /// See <https://www.sqlite.org/c3ref/errcode.html>.
    public var lastErrorCode: ResultCode { ResultCode(rawValue: sqlite3_errcode(sqliteConnection)) }

    /// The message of the most recent failed call.
    public var lastErrorMessage: String? { sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } }

    /// The maximum number of arguments a statement accepts
    /// (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    public var maximumStatementArgumentCount: Int {
        Int(sqlite3_limit(sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }

    /// The version of the SQLite library, such as "3.40.1".
    public static var sqliteLibVersion: String { String(cString: sqlite3_libversion()) }

    /// The version number of the SQLite library, such as 3040001.
    public static var sqliteLibVersionNumber: CInt { sqlite3_libversion_number() }

    /// True when `sql` ends with a complete statement: its last semicolon
    /// is outside strings, comments and a trigger body (`sqlite3_complete`).
    /// For tools that feed SQLite a script in parts.
    package static func endsWithCompleteStatement(_ sql: String) -> Bool { sqlite3_complete(sql) != 0 }

    /// True once the connection is closed.
    var isClosed: Bool { sqliteConnection == nil }

    /// True inside ``readOnly(_:)``, and on read-only connections.
    var isReadOnly: Bool { readOnlyDepth > 0 || configuration.readonly }

    /// Creates the broker with the first transaction observer.
    func makeObservationBroker() -> DatabaseObservationBroker {
        if let observationBroker { return observationBroker }
        let broker = DatabaseObservationBroker(self)
        observationBroker = broker
        return broker
    }

    // MARK: Errors and access checks

    /// The error for a failed call, with SQLite's current message.
    func error(code: CInt, sql: String? = nil, arguments: StatementArguments? = nil) -> DatabaseError {
        // The extended code is more precise than the code a function returned,
        // but only when it belongs to the same primary code.
        var extended = code
        var connectionMessage: String?
        if let sqliteConnection {
            let connectionCode = sqlite3_extended_errcode(sqliteConnection)
            if connectionCode & 0xFF == code & 0xFF {
                extended = connectionCode
                connectionMessage = String(cString: sqlite3_errmsg(sqliteConnection))
            }
        }
        // The connection does not always record the error (sqlite3_backup_step
        // does not, for one): its message would then be "not an error", or
        // another error's. The code's own text is right.
        let message = connectionMessage ?? sqliteErrorString(code)
        return DatabaseError(
            resultCode: ResultCode(rawValue: extended),
            message: message,
            sql: sql,
            arguments: arguments,
            publicStatementArguments: configuration.publicStatementArguments)
    }

    /// Throws when the connection is closed.
    @inline(__always)
    func checkOpen() throws {
        if sqliteConnection == nil { throw closedReason ?? DatabaseError.connectionIsClosed() }
    }

    /// Throws when a statement or cursor is used outside the access block that
    /// created it.
    @inline(__always)
    func checkAccess(for statement: Statement) throws {
        // `pthread_t` is an integer on Linux, where `pthread_equal` compares
        // with `==`: compared inline, this check costs no call but
        // `pthread_self`, on every step of every statement.
        guard isAccessedByCurrentThread else {
            try checkOpen()
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
        configuration.connectionWillClose?(sqliteConnection)
        dropAllCachedStatements()
        let code = sqlite3_close(sqliteConnection)
        guard code == SQLITE_OK else {
            throw unclosableError(code: code, message: String(cString: sqlite3_errmsg(sqliteConnection)))
        }
        didClose()
    }

    /// Throws the error ``close()`` would throw because statements of the
    /// application are alive, without closing: a pool checks its writer
    /// before it closes its readers, as GRDB closes the writer first.
    func checkClosable() throws {
        guard let sqliteConnection else { return }
        dropAllCachedStatements()
        guard sqlite3_next_stmt(sqliteConnection, nil) != nil else { return }
        // The message sqlite3_close() gives in this case.
        throw unclosableError(code: SQLITE_BUSY, message: "unable to close due to unfinalized statements or unfinished backups")
    }

    /// The error of a connection that can not close, after one line per
    /// statement still alive in SQLite's error log.
    private func unclosableError(code: CInt, message: String) -> DatabaseError {
        var alive: [String] = []
        var statement = sqlite3_next_stmt(sqliteConnection, nil)
        while let current = statement {
            let sql = String(cString: sqlite3_sql(current))
            alive.append(sql)
            Database.log(ResultCode(rawValue: code), "unfinalized statement: \(sql)")
            statement = sqlite3_next_stmt(sqliteConnection, current)
        }
        return DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: "\(message) (unfinalized statements: \(alive.map { "`\($0)`" }.joined(separator: ", ")))")
    }

    /// Closes the connection, or makes it a zombie that SQLite closes when
    /// the last statement is finalized. Never fails.
    func close_v2() {
        guard let sqliteConnection else { return }
        configuration.connectionWillClose?(sqliteConnection)
        dropAllCachedStatements()
        let code = sqlite3_close_v2(sqliteConnection)
        if code != SQLITE_OK {
            Database.log(ResultCode(rawValue: code), "could not close database: \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
        didClose()
    }

    /// Closes the connection for good: every later access throws `reason`.
    func closeReporting(_ reason: any Error) {
        close_v2()
        closedReason = reason
    }

    /// Closes a connection whose set up failed, keeping its error.
    private func closeAfterFailedSetUp() {
        dropAllCachedStatements()
        sqlite3_close_v2(sqliteConnection)
        didClose()
    }

    private func didClose() {
        observationBroker = nil
        interruption.connection = nil
        sqliteConnection = nil
    }

    /// Finalizes the statements the connection keeps, so that it can close.
    private func dropAllCachedStatements() {
        statementCache.removeAll()
        recordStatementCache.removeAll()
        accessStatements.removeAll()
    }

    /// Drops the cached statements that match.
    func dropCachedStatements(where shouldDrop: (Statement) -> Bool) {
        statementCache.removeAll(where: shouldDrop)
        recordStatementCache.removeAll(where: shouldDrop)
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

    /// Empties the schema cache: the next introspection reads the schema
    /// again. The cached statements go too, as in GRDB, so that the next
    /// ones are compiled against the schema as it is now.
    public func clearSchemaCache() {
        schemaCache.removeAll()
        dropSchemaDependentStatements()
    }

    /// Drops the cached statements whose columns may have changed with the
    /// schema (not BEGIN and COMMIT).
    func dropSchemaDependentStatements() {
        statementCache.removeAll()
        recordStatementCache.removeAll()
    }
}

@available(*, unavailable, message: "Database connections are confined to their access block")
extension Database: Sendable {}

/// The milliseconds of a busy timeout, within what SQLite accepts: a timeout
/// that is negative or NaN waits not at all, one too large for a `CInt` of
/// milliseconds (24 days) waits that long.
func busyTimeoutMilliseconds(_ seconds: TimeInterval) -> CInt {
    guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
    let milliseconds = (seconds * 1000).rounded(.up)
    if milliseconds <= 0 { return 0 }
    if milliseconds >= Double(CInt.max) { return .max }
    return CInt(milliseconds)
}

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
    @frozen
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
        /// Any value is accepted: a negative or NaN timeout does not wait, and
        /// one beyond 24 days (`CInt.max` milliseconds) waits 24 days.
        case timeout(TimeInterval)
        /// Ask the callback whether to retry.
        case callback(BusyCallback)
    }
}
