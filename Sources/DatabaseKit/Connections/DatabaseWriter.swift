import FoundationEssentials

/// A type that writes a database: ``DatabaseQueue``, ``DatabasePool``,
/// ``AnyDatabaseWriter``.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs statements outside of any transaction.
    @_disfavoredOverload
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// Like ``DatabaseWriter/writeWithoutTransaction(_:)-7wyx5``, without blocking the calling thread.
    func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T

    /// Runs statements outside of any transaction, once no read is running,
    /// and while no read can start.
    @_disfavoredOverload
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Like ``DatabaseWriter/barrierWriteWithoutTransaction(_:)-2cysz``, without blocking the calling thread.
    func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T

    /// Runs `updates` later, outside of any transaction, once no read is running.
    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs `updates` later, outside of any transaction.
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void)

    /// Like ``DatabaseWriter/writeWithoutTransaction(_:)-7wyx5``, and may run inside another
    /// access to the same writer (then on its connection, in its transaction).
    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// From a write access outside of a transaction: starts a read that sees
    /// the database as it is now, and returns as soon as that read has
    /// started, so that the writer can go on writing while the read runs.
    func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)
}

extension DatabaseWriter {
    /// Runs statements in a transaction, committed when `updates` returns and
    /// rolled back when it throws.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.execute(sql: "UPDATE player SET score = score + 1")
    /// }
    /// ```
    @_disfavoredOverload
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in
            try db.inCommittedTransaction(nil) { try updates(db) }
        }
    }

    /// Like ``DatabaseWriter/write(_:)-81rhj``, without blocking the calling thread.
    public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in
            try db.inCommittedTransaction(nil) { try updates(db) }
        }
    }

    /// Runs `updates` in a transaction later, then `completion` with the
    /// connection and the result.
    public func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void
    ) {
        asyncWriteWithoutTransaction { db in
            completion(db, Result { try db.inCommittedTransaction(nil) { try updates(db) } })
        }
    }

    /// Starts notifying `transactionObserver` of the changes and
    /// transactions of the writer's connection.
    public func add(
        transactionObserver: some TransactionObserver,
        extent: Database.TransactionObservationExtent = .observerLifetime
    ) {
        writeWithoutTransaction { $0.add(transactionObserver: transactionObserver, extent: extent) }
    }

    /// Stops notifying `transactionObserver`.
    public func remove(transactionObserver: some TransactionObserver) {
        writeWithoutTransaction { $0.remove(transactionObserver: transactionObserver) }
    }

    /// Deletes every table, view, index and trigger, and the content, of the
    /// database: an empty database, as just created.
    @_disfavoredOverload
    public func erase() throws {
        try barrierWriteWithoutTransaction { try $0.erase() }
    }

    /// Like ``DatabaseWriter/erase()-547m3``, without blocking the calling thread.
    public func erase() async throws {
        try await barrierWriteWithoutTransaction { try $0.erase() }
    }

    /// Rebuilds the database file (`VACUUM`), to reclaim free pages.
    /// See <https://www.sqlite.org/lang_vacuum.html>.
    @_disfavoredOverload
    public func vacuum() throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Like ``DatabaseWriter/vacuum()-63bld``, without blocking the calling thread.
    public func vacuum() async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Writes a compacted copy of the database to a new file (`VACUUM INTO`).
    ///
    /// - throws: ``DatabaseError`` when the file exists, or can not be written.
    @_disfavoredOverload
    public func vacuum(into filePath: String) throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }

    /// Like ``DatabaseWriter/vacuum(into:)-4tl8g``, without blocking the calling thread.
    public func vacuum(into filePath: String) async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }
}

extension Database {
    /// Deletes every schema object and all content: the database is empty,
    /// as just created. An empty in-memory database is copied over it with
    /// the backup API, which keeps the file's page size and journal mode.
    func erase() throws {
        let empty = DatabaseQueue()
        try empty.read { emptyDb in try emptyDb.backup(to: self) }
        clearSchemaCache()
    }
}

/// A type-erased ``DatabaseWriter``.
public final class AnyDatabaseWriter: DatabaseWriter {
    private let base: any DatabaseWriter

    /// Erases the type of a writer.
    public init(_ base: any DatabaseWriter) {
        self.base = base
    }

    public var configuration: Configuration { base.configuration }
    public var path: String { base.path }
    public func close() throws { try base.close() }
    public func interrupt() { base.interrupt() }

    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T { try base.read(value) }

    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await base.read(value)
    }

    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { base.asyncRead(value) }

    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeRead(value) }

    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await base.unsafeRead(value)
    }

    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncUnsafeRead(value)
    }

    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeReentrantRead(value) }

    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try base.writeWithoutTransaction(updates)
    }

    public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await base.writeWithoutTransaction(updates)
    }

    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.barrierWriteWithoutTransaction(updates)
    }

    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await base.barrierWriteWithoutTransaction(updates)
    }

    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncBarrierWriteWithoutTransaction(updates)
    }

    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        base.asyncWriteWithoutTransaction(updates)
    }

    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try base.unsafeReentrantWrite(updates)
    }

    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.spawnConcurrentRead(value)
    }
}
