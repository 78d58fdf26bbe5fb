@preconcurrency import Dispatch
import FoundationEssentials

/// Concurrent access to a database in WAL mode: one writer, and up to
/// ``Configuration/maximumReaderCount`` readers that run in parallel with each
/// other and with the writer.
///
/// ```swift
/// let dbPool = try DatabasePool(path: "/path/to/database.sqlite")
/// try dbPool.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try dbPool.read { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
/// }
/// ```
///
/// Reads see snapshot isolation: an immutable view of the last committed
/// state, never a half transaction. The snapshot is taken by the first
/// statement of the read. Writes are serialized.
///
/// Opening a pool sets the WAL mode (persistent in the file), `synchronous =
/// NORMAL` on the writer (an fsync at checkpoints, not at each commit: safe
/// in WAL mode, as GRDB does), and makes sure the `-wal` file is not empty.
/// Readers are read-only connections, which wait up to ten seconds for the
/// transient locks of other connections.
///
/// **If you are not sure whether to use a queue or a pool, choose
/// ``DatabaseQueue``.**
public final class DatabasePool: DatabaseWriter {
    private let writer: SerializedDatabase
    private let readers: ReaderPool
    private let snapshotCount = Locked(0)
    private let suspensionObservers: SuspensionObservers

    /// The configuration of the connections.
    public var configuration: Configuration { writer.configuration }

    /// The path of the database file.
    public var path: String { writer.path }

    /// Opens or creates a database file, in WAL mode unless read-only.
    ///
    /// - throws: ``DatabaseError`` when the file can not be opened, is not a
    ///   database, or can not use the WAL mode.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var configuration = configuration
        configuration.transientLockTimeout = 1
        writer = try SerializedDatabase(path: path, configuration: configuration, defaultLabel: "GRDB.DatabasePool", purpose: "writer")

        var readerConfiguration = configuration
        readerConfiguration.readonly = true
        // Readers never leave a transaction open: they are not the same
        // connection from one read to the next.
        readerConfiguration.allowsUnsafeTransactions = false
        // <https://www.sqlite.org/wal.html#sometimes_queries_return_sqlite_busy_in_wal_mode>:
        // recovery and the last connection's close take locks for a moment.
        if readerConfiguration.readonlyBusyMode == nil { readerConfiguration.readonlyBusyMode = .timeout(10) }
        readers = ReaderPool(maximumCount: configuration.maximumReaderCount, qos: configuration.readQoS) {
            [readerConfiguration] number in
            try SerializedDatabase(
                path: path, configuration: readerConfiguration, defaultLabel: "GRDB.DatabasePool", purpose: "reader.\(number)")
        }
        if !configuration.readonly {
            try writer.sync { try $0.setUpWALMode() }
        }
        suspensionObservers = SuspensionObservers(configuration: configuration, writer: writer)
    }

    // MARK: Reads

    /// Runs read-only statements in a transaction that sees the last committed
    /// state, in parallel with other reads and with writes. Waits for a reader
    /// when all are busy.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in
            try reader.sync { db in try db.isolatedRead { try value(db) } }
        }
    }

    /// Like ``DatabasePool/read(_:)-1uyp``, without blocking the calling thread.
    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await readers.withReader { reader in
            try await reader.execute { db in try db.isolatedRead { try value(db) } }
        }
    }

    /// Runs `value` later on a reader, inside a read-only transaction.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        readers.asyncAcquire { result in
            switch result {
            case .failure(let error):
                value(.failure(error))
            case .success(let reader):
                reader.async { db in
                    defer { self.readers.release(reader) }
                    db.runReadOnlyTransaction(value)
                }
            }
        }
    }

    /// Runs statements on a reader, without transaction.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in try reader.sync(value) }
    }

    /// Like ``DatabasePool/unsafeRead(_:)-dz73``, without blocking the calling thread.
    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await readers.withReader { reader in try await reader.execute(value) }
    }

    /// Runs `value` later on a reader, without transaction.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        readers.asyncAcquire { result in
            switch result {
            case .failure(let error):
                value(.failure(error))
            case .success(let reader):
                reader.async { db in
                    defer { self.readers.release(reader) }
                    value(db.accessResult())
                }
            }
        }
    }

    /// Like ``DatabasePool/unsafeRead(_:)-dz73``; inside another access to the pool (a
    /// read or a write), it runs right away on that access's connection.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        if let reader = readers.currentReader {
            return try reader.reentrantSync(value)
        }
        if writer.isOnQueue {
            return try writer.execute(value)
        }
        return try unsafeRead(value)
    }

    /// Starts a read from the current state of the writer, and returns
    /// once the read has acquired its snapshot.
    ///
    /// Call it from a writer access (``DatabasePool/writeWithoutTransaction(_:)-2xqad``),
    /// outside of any transaction: the writer can go on writing while the
    /// read sees the state as it was.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT ...")
    ///     dbPool.asyncConcurrentRead { dbResult in
    ///         // sees the INSERT, not the DELETE below
    ///     }
    ///     try db.execute(sql: "DELETE ...")
    /// }
    /// ```
    public func asyncConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        if let error = checkConcurrentReadCaller() {
            value(.failure(error))
            return
        }
        let isolated = DispatchSemaphore(value: 0)
        let reader: SerializedDatabase
        do {
            reader = try readers.acquire()
        } catch {
            value(.failure(error))
            return
        }
        reader.async { db in
            defer { self.readers.release(reader) }
            do {
                try db.beginTransaction(.deferred)
                // The first read takes the snapshot; the writer may go on after.
                _ = try db.schemaVersion()
            } catch {
                try? db.rollback()
                isolated.signal()
                value(.failure(error))
                return
            }
            isolated.signal()
            value(.success(db))
            do { try db.commit() } catch { try? db.rollback() }
        }
        isolated.wait()
    }

    /// Same as ``asyncConcurrentRead(_:)``.
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncConcurrentRead(value)
    }

    /// Starts a read from the current state of the writer, and returns
    /// without waiting for its end; ``DatabaseFuture/wait()`` gives its value.
    public func concurrentRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) -> DatabaseFuture<T> {
        let future = DatabaseFuture<T>()
        asyncConcurrentRead { dbResult in
            future.fulfill(dbResult.flatMap { db in Result { try value(db) } })
        }
        return future
    }

    /// The misuse of a concurrent read: not from the writer, or from a transaction.
    private func checkConcurrentReadCaller() -> DatabaseError? {
        guard writer.isOnQueue else {
            return .misuse("asyncConcurrentRead must be called from a writer access, such as writeWithoutTransaction")
        }
        let inTransaction = writer.execute { $0.isInsideTransaction }
        if inTransaction {
            return .misuse(
                "asyncConcurrentRead must not be called from inside a transaction: use writeWithoutTransaction instead of write")
        }
        return nil
    }

    /// Closes the reader connections: the next reads open new ones. Use it
    /// after the file was changed by means SQLite does not see (a restored
    /// backup), or to release their memory.
    public func invalidateReadOnlyConnections() {
        readers.removeAll()
    }

    // MARK: Writes

    /// Runs statements outside of any transaction.
    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.sync(updates)
    }

    /// Like ``DatabasePool/writeWithoutTransaction(_:)-2xqad``, without blocking the calling thread.
    public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(updates)
    }

    /// Runs statements outside of any transaction, once running reads have
    /// ended, while no read can start.
    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try readers.barrier { try writer.sync(updates) }
    }

    /// Like ``DatabasePool/barrierWriteWithoutTransaction(_:)-76k2x``, without blocking the calling thread.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await readers.barrier {
            try await writer.execute(updates)
        }
    }

    /// Runs `updates` later, outside of any transaction, once no read is running.
    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        readers.asyncBarrier {
            self.writer.sync { updates($0.accessResult()) }
        }
    }

    /// Runs `updates` later, outside of any transaction.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.async(updates)
    }

    /// Like ``DatabasePool/writeWithoutTransaction(_:)-2xqad``, and may run inside another
    /// access to the writer.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }

    /// Runs statements in a transaction committed or rolled back as `updates`
    /// says, and rolled back when it throws.
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in
            try db.inTransaction(kind) { try updates(db) }
        }
    }

    // MARK: Snapshots

    /// A read-only view of the database frozen at the last committed state:
    /// later writes are invisible to it.
    ///
    /// Each snapshot holds a connection with an open read transaction: keep
    /// it only as long as needed (it prevents checkpoints from recycling the
    /// WAL past its state).
    public func makeSnapshot() throws -> DatabaseSnapshot {
        if writer.isOnQueue, writer.execute({ $0.isInsideTransaction }) {
            throw DatabaseError.misuse("makeSnapshot() must not be called from inside a transaction")
        }
        var configuration = self.configuration
        configuration.readonly = true
        let number = snapshotCount.withLock { count in
            count += 1
            return count
        }
        return try DatabaseSnapshot(path: path, configuration: configuration, purpose: "snapshot.\(number)")
    }

    /// A pool of snapshots needs `SQLITE_ENABLE_SNAPSHOT`; see
    /// ``DatabaseSnapshotPool``.
    public func makeSnapshotPool() throws -> DatabaseSnapshotPool {
        try DatabaseSnapshotPool(self)
    }

    // MARK: Closing and memory

    /// Closes every connection, once running reads end. Afterwards every
    /// access throws `SQLITE_MISUSE`, and closing again does nothing.
    ///
    /// The readers close first, so that the writer, closing last, checkpoints
    /// the WAL and deletes the `-wal` and `-shm` files.
    ///
    /// - throws: `SQLITE_BUSY` when statements created by the application are
    ///   still alive, as GRDB: alive on the writer, nothing is closed and the
    ///   pool stays usable; alive on a reader, the pool is closed all the same
    ///   (that reader's connection ends when its last statement is released).
    ///   SQLite's error log (``Database/logError``) names each statement.
    public func close() throws {
        try readers.close { closeReaders in
            try writer.reentrantSync { db in
                try db.checkClosable()
                do {
                    try closeReaders()
                } catch {
                    db.close_v2()
                    throw error
                }
                try db.close()
            }
        }
    }

    /// Interrupts the running statements of every connection.
    public func interrupt() {
        writer.interrupt()
        readers.forEach { $0.interrupt() }
    }

    /// Frees as much memory as possible: on the writer, and by closing the
    /// idle readers (unless ``Configuration/persistentReadOnlyConnections``,
    /// which keeps them and frees their memory).
    public func releaseMemory() {
        writer.reentrantSync { $0.releaseMemory() }
        if configuration.persistentReadOnlyConnections {
            readers.forEach { reader in reader.reentrantSync { $0.releaseMemory() } }
        } else {
            _ = try? readers.barrier { readers.removeAll() }
        }
    }

    /// Frees memory later, without waiting for running reads.
    public func releaseMemoryEventually() {
        if configuration.persistentReadOnlyConnections {
            readers.forEach { reader in reader.async { $0.releaseMemory() } }
        } else {
            readers.removeAll()
        }
        writer.async { $0.releaseMemory() }
    }
}

/// The result of ``DatabasePool/concurrentRead(_:)``, available later.
///
/// `@unchecked Sendable`: `result` is written once, before `ready` is
/// signalled, and read after waiting on it.
public final class DatabaseFuture<Value: Sendable>: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    init() {}

    func fulfill(_ result: Result<Value, any Error>) {
        self.result = result
        ready.signal()
    }

    /// Blocks until the read is done, and returns its value or throws its error.
    public func wait() throws -> Value {
        ready.wait()
        // Let other waiters through too.
        ready.signal()
        // Set before the signal.
        guard let result else { throw DatabaseError.misuse("the concurrent read has no result") }
        return try result.get()
    }
}
