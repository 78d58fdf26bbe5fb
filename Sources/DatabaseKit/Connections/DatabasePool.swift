import Dispatch
import Foundation

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
/// state, never a half transaction. Writes are serialized.
///
/// **If you are not sure whether to use a queue or a pool, choose
/// ``DatabaseQueue``.**
///
/// Connections wait for locks held by the pool's own connections: with
/// ``Database/BusyMode/immediateError``, a pool connection still waits up to
/// one second for such a transient lock before it reports `SQLITE_BUSY`.
public final class DatabasePool: DatabaseWriter {
    private let writer: SerializedDatabase
    private let readers: ReaderPool
    private let snapshotCounter = SnapshotCounter()

    /// The configuration of the connections.
    public let configuration: Configuration

    /// The path of the database file.
    public let path: String

    /// The label that names the pool's dispatch queues.
    private var labelPrefix: String { configuration.label ?? "DatabaseKit.DatabasePool" }

    /// Opens or creates a database file, in WAL mode unless read-only.
    ///
    /// - throws: ``DatabaseError`` when the file can not be opened, is not a
    ///   database, or can not use the WAL mode.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var configuration = configuration
        configuration.transientLockTimeout = 1
        self.configuration = configuration
        self.path = path
        let prefix = configuration.label ?? "DatabaseKit.DatabasePool"
        writer = try SerializedDatabase(path: path, configuration: configuration, label: prefix + ".writer")

        var readerConfiguration = configuration
        // Readers never write, and never leave a transaction open.
        readerConfiguration.allowsUnsafeTransactions = false
        readerConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
        readers = ReaderPool(maximumCount: configuration.maximumReaderCount) { [readerConfiguration] number in
            try SerializedDatabase(path: path, configuration: readerConfiguration, label: "\(prefix).reader.\(number)")
        }

        if !configuration.readonly {
            try writer.sync { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError(message: "could not activate the WAL mode at \(path): journal_mode is \(mode ?? "unknown")")
                }
            }
        }
    }

    // MARK: Reads

    /// Runs read-only statements in a transaction that sees the last committed
    /// state, in parallel with other reads and with writes. Waits for a reader
    /// when all are busy.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in
            try reader.sync { db in try Self.readTransaction(db, value) }
        }
    }

    /// Like ``read(_:)-5a4z8``, without blocking the calling thread.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            // Waiting for a free reader blocks: do it off the caller's thread.
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.read(value) })
            }
        }
    }

    /// Runs `value` later on a reader, inside a read-only transaction.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        DispatchQueue.global().async {
            let reader: SerializedDatabase
            do {
                reader = try self.readers.acquire()
            } catch {
                return value(.failure(error))
            }
            reader.async { db, accessError in
                defer { self.readers.release(reader) }
                if let accessError { return value(.failure(accessError)) }
                do {
                    try Self.readTransaction(db) { db in value(.success(db)) }
                } catch {
                    value(.failure(error))
                }
            }
        }
    }

    /// Runs statements on a reader, without transaction.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in try reader.sync(value) }
    }

    /// Like ``unsafeRead(_:)``; inside another access to the pool (a read or a
    /// write), it runs right away on that access's connection.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        if let reader = readers.currentReader {
            return try reader.reentrantSync(value)
        }
        if writer.isOnQueue {
            return try writer.reentrantSync(value)
        }
        return try unsafeRead(value)
    }

    /// Starts a read from the current state of the writer, and returns
    /// without waiting for its end.
    ///
    /// Call it from a writer access (``writeWithoutTransaction(_:)``), outside
    /// of any transaction: it returns once the read has acquired its snapshot,
    /// so the writer can go on writing while the read sees the state as it was.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT ...")
    ///     let future = dbPool.concurrentRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) ...")! }
    ///     try db.execute(sql: "DELETE ...")   // invisible to the read
    ///     let count = try future.wait()
    /// }
    /// ```
    public func concurrentRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) -> DatabaseFuture<T> {
        precondition(writer.isOnQueue, "concurrentRead must be called from a writer access, such as writeWithoutTransaction")
        let future = DatabaseFuture<T>()
        let reader: SerializedDatabase
        do {
            reader = try readers.acquire()
        } catch {
            future.fulfill(.failure(error))
            return future
        }
        let isolated = DispatchSemaphore(value: 0)
        reader.async { db, accessError in
            defer { self.readers.release(reader) }
            if let accessError {
                isolated.signal()
                return future.fulfill(.failure(accessError))
            }
            do {
                try db.beginTransaction(.deferred)
                // The first read starts the snapshot; the writer may go on after.
                _ = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
            } catch {
                isolated.signal()
                try? db.rollback()
                return future.fulfill(.failure(error))
            }
            isolated.signal()
            let result = Result { try value(db) }
            try? db.commit()
            future.fulfill(result)
        }
        isolated.wait()
        return future
    }

    /// A read in a deferred transaction: its first statement fixes the
    /// snapshot that the whole block sees.
    private static func readTransaction<T>(_ db: Database, _ value: (Database) throws -> T) throws -> T {
        try db.inCommittedTransaction(.deferred) { try value(db) }
    }

    // MARK: Writes

    /// Runs statements in an IMMEDIATE transaction, committed when `updates`
    /// returns and rolled back when it throws. Concurrent reads see either
    /// none or all of it.
    ///
    /// The transaction is IMMEDIATE whatever the configuration's
    /// ``Configuration/defaultTransactionKind``: a deferred transaction that
    /// reads before it writes could fail with `SQLITE_BUSY_SNAPSHOT` when
    /// another process writes in between.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.sync { db in try Self.writeTransaction(db, updates) }
    }

    /// Like ``write(_:)-2tb4e``, without blocking the calling thread.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await writer.execute { db in try Self.writeTransaction(db, updates) }
    }

    /// Runs statements in a transaction committed or rolled back as `updates`
    /// says, and rolled back when it throws.
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in
            try db.inTransaction(kind ?? .immediate) { try updates(db) }
        }
    }

    /// Runs statements outside of any transaction.
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.sync(updates)
    }

    /// Runs statements outside of any transaction, once running reads have
    /// ended, while no read can start.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try readers.barrier { try writer.sync(updates) }
    }

    /// Runs `updates` in a transaction later, then `completion`.
    public func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void
    ) {
        writer.async { db, accessError in
            if let accessError { return completion(db, .failure(accessError)) }
            completion(db, Result { try Self.writeTransaction(db, updates) })
        }
    }

    private static func writeTransaction<T>(_ db: Database, _ updates: (Database) throws -> T) throws -> T {
        try db.inCommittedTransaction(.immediate) { try updates(db) }
    }

    // MARK: Snapshots

    /// A read-only view of the database frozen at the last committed state:
    /// later writes are invisible to it.
    ///
    /// Each snapshot holds a connection with an open read transaction: keep
    /// it only as long as needed (it prevents checkpoints from recycling the
    /// WAL past its state).
    public func makeSnapshot() throws -> DatabaseSnapshot {
        try DatabaseSnapshot(
            path: path,
            configuration: configuration,
            label: "\(labelPrefix).snapshot.\(snapshotCounter.next())")
    }

    /// A pool of snapshots needs `SQLITE_ENABLE_SNAPSHOT`; see
    /// ``DatabaseSnapshotPool``.
    public func makeSnapshotPool() throws -> DatabaseSnapshotPool {
        try DatabaseSnapshotPool(self)
    }

    // MARK: Closing and memory

    /// Closes the writer and every reader. Afterwards every access throws.
    ///
    /// - throws: ``DatabaseError`` when statements created by the application
    ///   are still alive.
    public func close() throws {
        try readers.close()
        try writer.close()
    }

    /// Frees as much memory as possible, on the writer and the idle readers.
    public func releaseMemory() {
        try? writer.reentrantSync { db in db.releaseMemory() }
        readers.releaseMemory()
    }
}

/// Numbers snapshots: 1, 2, ...
///
/// `@unchecked Sendable`: `value` is only touched while holding `lock`.
private final class SnapshotCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
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
        return try result!.get()
    }
}
