import Dispatch
import Foundation

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
    private let serializedDatabase: SerializedDatabase

    /// The error that prevented an in-memory connection from opening, thrown
    /// by every access (see ``init(configuration:)``).
    private let openingError: (any Error)?

    /// The configuration of the connection.
    public var configuration: Configuration { serializedDatabase.configuration }

    /// The path of the database file (":memory:" or a "file:" URI for
    /// in-memory databases).
    public var path: String { serializedDatabase.path }

    /// Opens or creates a database file.
    ///
    /// The file is created when missing, unless the configuration is
    /// read-only. Put it in a dedicated directory: SQLite creates its `-wal`,
    /// `-shm` and `-journal` files beside it.
    ///
    /// - throws: ``DatabaseError`` when the file can not be opened, or is not
    ///   a database (`SQLITE_NOTADB`).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        serializedDatabase = try SerializedDatabase(
            path: path,
            configuration: configuration,
            label: configuration.label ?? "DatabaseKit.DatabaseQueue")
        openingError = nil
        try setUpJournalMode()
    }

    /// Opens a private in-memory database, destroyed with the queue.
    ///
    /// ```swift
    /// let dbQueue = DatabaseQueue()
    /// ```
    ///
    /// Opening an in-memory database only fails on a configuration error
    /// (such as a passphrase): that error is then thrown by every access.
    public init(configuration: Configuration = Configuration()) {
        let label = configuration.label ?? "DatabaseKit.DatabaseQueue"
        do {
            serializedDatabase = try SerializedDatabase(path: ":memory:", configuration: configuration, label: label)
            openingError = nil
        } catch {
            // Stand in a valid connection, closed at once, so that accesses
            // throw the real error rather than crash.
            var fallback = Configuration()
            fallback.label = configuration.label
            serializedDatabase = try! SerializedDatabase(path: ":memory:", configuration: fallback, label: label)
            try? serializedDatabase.close()
            openingError = error
        }
    }

    /// Opens a shared in-memory database: queues opened with the same name
    /// share the same database, which lives as long as one of them does.
    public init(named name: String, configuration: Configuration = Configuration()) throws {
        let label = configuration.label ?? "DatabaseKit.DatabaseQueue"
        serializedDatabase = try SerializedDatabase(
            path: "file:\(name)?mode=memory&cache=shared",
            configuration: configuration,
            label: label)
        openingError = nil
    }

    private func setUpJournalMode() throws {
        guard case .wal = configuration.journalMode, !configuration.readonly else { return }
        try writeWithoutTransaction { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(message: "could not activate the WAL mode at \(db.path): journal_mode is \(mode ?? "unknown")")
            }
        }
    }

    private func checkOpening() throws {
        if let openingError { throw openingError }
    }

    // MARK: Reads

    /// Runs read-only database statements in a transaction, and returns their result.
    ///
    /// Writes inside `value` fail with `SQLITE_READONLY`.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try checkOpening()
        return try serializedDatabase.sync { db in try readOnlyTransaction(db, value) }
    }

    /// Runs read-only database statements in a transaction, without blocking
    /// the current thread.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpening()
        try Task.checkCancellation()
        return try await serializedDatabase.execute { db in try self.readOnlyTransaction(db, value) }
    }

    /// Runs `value` later on the queue, inside a read-only transaction.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        serializedDatabase.async { db, accessError in
            if let error = self.openingError ?? accessError { return value(.failure(error)) }
            do {
                try self.readOnlyTransaction(db) { db in value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }

    /// Runs database statements without transaction nor read-only check.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try checkOpening()
        return try serializedDatabase.sync(value)
    }

    /// Like ``unsafeRead(_:)``, but may be called from inside another access
    /// to this queue (it then runs right away on the same connection).
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try checkOpening()
        return try serializedDatabase.reentrantSync(value)
    }

    private func readOnlyTransaction<T>(_ db: Database, _ value: (Database) throws -> T) throws -> T {
        try db.readOnly {
            try db.inCommittedTransaction(.deferred) { try value(db) }
        }
    }

    // MARK: Writes

    /// Runs database statements in a transaction, committed when `updates`
    /// returns and rolled back when it throws.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.execute(sql: "UPDATE player SET score = score + 1")
    /// }
    /// ```
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try checkOpening()
        return try serializedDatabase.sync { db in try writeTransaction(db, updates) }
    }

    /// Runs database statements in a transaction, without blocking the
    /// current thread.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpening()
        try Task.checkCancellation()
        return try await serializedDatabase.execute { db in try self.writeTransaction(db, updates) }
    }

    private func writeTransaction<T>(_ db: Database, _ updates: (Database) throws -> T) throws -> T {
        try db.inCommittedTransaction(nil) { try updates(db) }
    }

    /// Runs database statements outside of any transaction.
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try checkOpening()
        return try serializedDatabase.sync(updates)
    }

    /// Runs database statements outside of any transaction. A queue has no
    /// concurrent reads: this is ``writeWithoutTransaction(_:)``.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction(updates)
    }

    /// Runs `updates` in a transaction later on the queue, then `completion`.
    public func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void
    ) {
        serializedDatabase.async { db, accessError in
            if let error = self.openingError ?? accessError { return completion(db, .failure(error)) }
            completion(db, Result { try self.writeTransaction(db, updates) })
        }
    }

    /// Runs database statements outside of any transaction (the same as
    /// ``writeWithoutTransaction(_:)``).
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in
    ///     try db.execute(sql: "CREATE TABLE place (...)")
    /// }
    /// ```
    public func inDatabase<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction(updates)
    }

    /// Runs database statements in a transaction, committed or rolled back
    /// according to the returned completion, and rolled back when it throws.
    ///
    /// - parameter kind: The transaction kind (default: the configuration's
    ///   ``Configuration/defaultTransactionKind``).
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writeWithoutTransaction { db in
            try db.inTransaction(kind) { try updates(db) }
        }
    }

    // MARK: Closing and memory

    /// Closes the connection. Afterwards, every access throws.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_BUSY`) when statements created by
    ///   the application are still alive: the connection then stays open.
    public func close() throws {
        try serializedDatabase.close()
    }

    /// Frees as much memory as possible.
    public func releaseMemory() {
        try? serializedDatabase.reentrantSync { db in db.releaseMemory() }
    }
}

extension Database {
    /// Runs `value` with writes disallowed (`PRAGMA query_only`).
    /// See <https://www.sqlite.org/pragma.html#pragma_query_only>.
    func readOnly<T>(_ value: () throws -> T) throws -> T {
        if configuration.readonly { return try value() }
        try checkOpen()
        try accessStatements.queryOnly(true).execute()
        let result: T
        do {
            result = try value()
        } catch {
            try? accessStatements.queryOnly(false).execute()
            throw error
        }
        // A failure to switch back must be reported: the connection would
        // otherwise stay read-only for the writes that follow.
        try accessStatements.queryOnly(false).execute()
        return result
    }
}
