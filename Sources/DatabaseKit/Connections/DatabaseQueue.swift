import Dispatch
import FoundationEssentials

/// A single database connection, safe to use from any thread: its accesses
/// are serialized.
///
/// ```swift
/// let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite")
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try dbQueue.read { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
/// }
/// ```
///
/// **If you are not sure whether to use a queue or a pool, choose
/// `DatabaseQueue`.**
///
/// Database methods are not reentrant: starting an access from inside
/// another access to the same queue stops the program (use the outer `db`).
public final class DatabaseQueue: DatabaseWriter {
    private let writer: SerializedDatabase

    /// The observers of the suspension notifications, if the configuration
    /// asks for them.
    private let suspensionObservers: SuspensionObservers

    /// The configuration of the connection.
    public var configuration: Configuration { writer.configuration }

    /// The path of the database file (":memory:" or a "file:" URI for
    /// in-memory databases).
    public var path: String { writer.path }

    /// Opens or creates a database file.
    ///
    /// The file is created when missing, unless the configuration is
    /// read-only. Put it in a dedicated directory: SQLite creates its `-wal`,
    /// `-shm` and `-journal` files beside it.
    ///
    /// - throws: ``DatabaseError`` when the file can not be opened, or is not
    ///   a database (`SQLITE_NOTADB`).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var configuration = configuration
        configuration.maximumReaderCount = 1
        writer = try SerializedDatabase(path: path, configuration: configuration, defaultLabel: "GRDB.DatabaseQueue")
        if case .wal = configuration.journalMode, !configuration.readonly {
            try writer.sync { try $0.setUpWALMode() }
        }
        suspensionObservers = SuspensionObservers(configuration: configuration, writer: writer)
    }

    /// Opens a private in-memory database, destroyed with the queue.
    ///
    /// ```swift
    /// let dbQueue = DatabaseQueue()
    /// ```
    ///
    /// A configuration SQLite can not apply (a passphrase, a failing
    /// ``Configuration/prepareDatabase(_:)``) gives a queue whose accesses all
    /// throw that error; ``init(named:configuration:)`` throws it instead.
    public convenience init(configuration: Configuration = Configuration()) {
        do {
            try self.init(inMemoryPath: ":memory:", configuration: configuration)
        } catch {
            // A connection that reports the error at every access, so that
            // this initializer never stops the program.
            self.init(failedConfiguration: configuration, error: error)
        }
    }

    /// Opens a shared in-memory database: queues opened with the same name
    /// share the same database, which lives as long as one of them does.
    public convenience init(named name: String, configuration: Configuration = Configuration()) throws {
        try self.init(inMemoryPath: "file:\(name)?mode=memory&cache=shared", configuration: configuration)
    }

    private init(inMemoryPath path: String, configuration: Configuration) throws {
        writer = try SerializedDatabase(path: path, configuration: configuration, defaultLabel: "GRDB.DatabaseQueue")
        suspensionObservers = SuspensionObservers(configuration: configuration, writer: writer)
    }

    private init(failedConfiguration configuration: Configuration, error: any Error) {
        // Never opened, with the error to report: every access throws it.
        writer = SerializedDatabase(closedBy: error, configuration: configuration, defaultLabel: "GRDB.DatabaseQueue")
        suspensionObservers = SuspensionObservers(configuration: configuration, writer: writer)
    }

    // MARK: Closing and memory

    /// Closes the connection. Afterwards, every access throws.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_BUSY`) when statements created by
    ///   the application are still alive: the connection then stays open.
    public func close() throws {
        try writer.close()
    }

    /// Interrupts the running statement: it fails with SQLITE_INTERRUPT.
    public func interrupt() {
        writer.interrupt()
    }

    /// Frees as much memory as possible.
    public func releaseMemory() {
        writer.reentrantSync { $0.releaseMemory() }
    }

    // MARK: Reads

    /// Runs read-only database statements in a transaction, and returns their result.
    ///
    /// Writes inside `value` fail with `SQLITE_READONLY`.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.sync { db in
            try db.isolated(readOnly: true) { try value(db) }
        }
    }

    /// Runs read-only database statements in a transaction, without blocking
    /// the current thread.
    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute { db in
            try db.isolated(readOnly: true) { try value(db) }
        }
    }

    /// Runs `value` later on the queue, inside a read-only transaction.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.async { db in db.runReadOnlyTransaction(value) }
    }

    /// Runs database statements without transaction nor read-only check.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) rethrows -> T {
        try writer.sync(value)
    }

    /// Like ``DatabaseQueue/unsafeRead(_:)-2qrky``, without blocking the calling thread.
    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(value)
    }

    /// Runs `value` later on the queue, without transaction.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.async { db in value(db.accessResult()) }
    }

    /// Like ``DatabaseQueue/unsafeRead(_:)-2qrky``, but may be called from inside another
    /// access to this queue (it then runs right away on the same connection).
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(value)
    }

    /// From a write access outside of a transaction: runs `value` right
    /// away, in a read-only transaction (a queue has one connection).
    /// Called from anywhere else, `value` receives a misuse error.
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        guard writer.isOnQueue else {
            value(.failure(DatabaseError.misuse("spawnConcurrentRead must be called from a writer access, such as writeWithoutTransaction")))
            return
        }
        writer.execute { db in
            guard !db.isInsideTransaction else {
                value(.failure(DatabaseError.misuse("spawnConcurrentRead must not be called from inside a transaction")))
                return
            }
            db.runReadOnlyTransaction(value)
        }
    }

    // MARK: Writes

    /// Runs database statements outside of any transaction.
    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.sync(updates)
    }

    /// Like ``DatabaseQueue/writeWithoutTransaction(_:)-4ouxf``, without blocking the calling thread.
    public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(updates)
    }

    /// Runs database statements outside of any transaction. A queue has no
    /// concurrent reads: this is ``DatabaseQueue/writeWithoutTransaction(_:)-4ouxf``.
    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.sync(updates)
    }

    /// Like ``DatabaseQueue/barrierWriteWithoutTransaction(_:)-5jzvh``, without blocking the calling thread.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(updates)
    }

    /// Runs `updates` later on the queue, outside of any transaction.
    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.async { db in updates(db.accessResult()) }
    }

    /// Runs `updates` later on the queue, outside of any transaction.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.async(updates)
    }

    /// Like ``DatabaseQueue/writeWithoutTransaction(_:)-4ouxf``, and may run inside
    /// another access to this queue.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }

    /// Runs database statements outside of any transaction (the same as
    /// ``DatabaseQueue/writeWithoutTransaction(_:)-4ouxf``).
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in
    ///     try db.execute(sql: "CREATE TABLE place (...)")
    /// }
    /// ```
    public func inDatabase<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.sync(updates)
    }

    /// Runs database statements in a transaction, committed or rolled back
    /// according to the returned completion, and rolled back when it throws.
    ///
    /// - parameters:
    ///   - kind: The transaction kind (by default IMMEDIATE; see
    ///     ``Configuration/defaultTransactionKind``).
    ///   - updates: The statements; the completion it returns commits or
    ///     rolls back.
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in
            try db.inTransaction(kind) { try updates(db) }
        }
    }

    /// Runs database statements in a transaction committed or rolled back as
    /// `updates` says (the seeds' name for ``inTransaction(_:_:)``).
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try inTransaction(kind, updates)
    }

    // MARK: Copies

    /// An in-memory copy of a database file. The file is opened read-only
    /// and never changed.
    ///
    /// - parameters:
    ///   - path: The database file to copy.
    ///   - configuration: The configuration of the copy; with `readonly`,
    ///     the copy refuses writes.
    public static func inMemoryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try copy(fromPath: path, configuration: configuration) { try DatabaseQueue(inMemoryPath: ":memory:", configuration: $0) }
    }

    /// A copy of a database file in a private temporary file, deleted when
    /// the queue is closed or released: for databases too large for memory.
    public static func temporaryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        // SQLite: an empty path is a private, temporary on-disk database.
        try copy(fromPath: path, configuration: configuration) { try DatabaseQueue(path: "", configuration: $0) }
    }

    private static func copy(
        fromPath path: String, configuration: Configuration, makeCopy: (Configuration) throws -> DatabaseQueue
    ) throws -> DatabaseQueue {
        var sourceConfiguration = configuration
        sourceConfiguration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: sourceConfiguration)
        var copyConfiguration = configuration
        copyConfiguration.readonly = false
        copyConfiguration.journalMode = .default
        let copy = try makeCopy(copyConfiguration)
        try source.backup(to: copy)
        try source.close()
        if configuration.readonly {
            // The copy was opened writable, to be written: it turns
            // read-only now, as a read-only connection would be.
            try copy.writer.sync { try $0.beginReadOnly() }
        }
        return copy
    }
}

extension Database {
    /// Runs `value` with the connection inside a read-only DEFERRED
    /// transaction, ended whatever happens.
    func runReadOnlyTransaction(_ value: (Result<Database, any Error>) -> Void) {
        do {
            try beginReadOnly()
            try beginTransaction(.deferred)
        } catch {
            try? endReadOnly()
            value(.failure(error))
            return
        }
        value(.success(self))
        do { try commit() } catch { try? rollback() }
        try? endReadOnly()
    }

    /// The connection, or the error that prevents using it.
    func accessResult() -> Result<Database, any Error> {
        Result { try checkOpen(); return self }
    }

    /// Sets the WAL mode and its companions, as GRDB does: `synchronous =
    /// NORMAL` (an fsync at checkpoints, not at each commit: safe in WAL
    /// mode), and a non-empty `-wal` file, so that read-only connections
    /// opened next never fail for lack of it.
    ///
    /// Processes opening a new file at once all switch its journal mode: the
    /// switch is retried as the busy mode says, since SQLite answers
    /// SQLITE_BUSY there without calling the busy handler (a connection
    /// reading the file waits for another that waits for it).
    func setUpWALMode() throws {
        let mode = try retryingWhenBusy { try String.fetchOne(self, sql: "PRAGMA journal_mode = WAL") }
        guard mode?.lowercased() == "wal" else {
            throw DatabaseError(message: "could not activate the WAL mode at \(path): journal_mode is \(mode ?? "unknown")")
        }
        journalModeCache = "wal"
        try execute(sql: "PRAGMA synchronous = NORMAL")
        let walPath = path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0
        if walSize == 0 {
            try inSavepoint {
                try execute(sql: "CREATE TABLE grdb_issue_102 (id INTEGER PRIMARY KEY); DROP TABLE grdb_issue_102;")
                return .commit
            }
        }
    }
}
