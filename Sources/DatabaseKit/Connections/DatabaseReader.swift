import FoundationEssentials

/// A type that reads a database: ``DatabaseQueue``, ``DatabasePool``,
/// ``DatabaseSnapshot``, ``AnyDatabaseReader``.
///
/// Write code against `any DatabaseReader` (or `some DatabaseReader`) when it
/// should work with every kind of connection.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration of the connections.
    var configuration: Configuration { get }

    /// The path of the database.
    var path: String { get }

    /// Closes the connections; afterwards every access throws.
    ///
    /// - throws: ``DatabaseError`` (SQLITE_BUSY) when statements created by
    ///   the application are still alive: the connections then stay open.
    func close() throws

    /// Interrupts the running statements, from any thread: they fail with
    /// SQLITE_INTERRUPT (see ``DatabaseError/isInterruptionError``), and a
    /// running transaction may be rolled back.
    /// See <https://www.sqlite.org/c3ref/interrupt.html>.
    func interrupt()

    /// Runs read-only statements in a transaction that sees one committed state.
    @_disfavoredOverload
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Like ``DatabaseReader/read(_:)-5k0o4``, without blocking the calling thread.
    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` later, with the connection or the error that prevented
    /// the access, inside a read-only transaction.
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs statements without transaction nor isolation guarantee.
    @_disfavoredOverload
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Like ``DatabaseReader/unsafeRead(_:)-76sqs``, without blocking the calling thread.
    func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` later, without transaction.
    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Like ``DatabaseReader/unsafeRead(_:)-76sqs``, and may run inside another access to the
    /// same reader.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T
}

extension DatabaseReader {
    /// Copies the whole database into `writer`, replacing its content, with
    /// SQLite's online backup API. See <https://www.sqlite.org/backup.html>.
    ///
    /// ```swift
    /// let source = try DatabaseQueue(path: "/path/to/source.sqlite")
    /// let copy = try DatabaseQueue(path: "/path/to/copy.sqlite")
    /// try source.backup(to: copy)
    /// ```
    ///
    /// The source is read in one transaction, so the copy holds exactly one
    /// committed state even while other connections write. The destination is
    /// left as it was when the backup fails or is cancelled.
    ///
    /// - parameters:
    ///   - writer: The destination.
    ///   - pagesPerStep: The pages copied at each step; -1 (the default)
    ///     copies everything in one step.
    ///   - progress: Called after each step. Throwing from it abandons the
    ///     backup, and the error is rethrown.
    /// - throws: ``DatabaseError``, or the error thrown by `progress`.
    public func backup(
        to writer: any DatabaseWriter,
        pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        guard writer !== self else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a database can not be backed up into itself")
        }
        try writer.barrierWriteWithoutTransaction { destinationDb in
            try read { sourceDb in
                try sourceDb.backup(to: destinationDb, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }
}

/// A type-erased ``DatabaseReader``.
public final class AnyDatabaseReader: DatabaseReader {
    private let base: any DatabaseReader

    /// Erases the type of a reader.
    public init(_ base: any DatabaseReader) {
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
}

/// A reader of an unchanging database content (``DatabaseSnapshot``): reads
/// are always isolated, and may nest.
public protocol DatabaseSnapshotReader: DatabaseReader {}

extension DatabaseSnapshotReader {
    /// Runs `value`, inside another access too: a snapshot is always isolated.
    public func reentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try unsafeReentrantRead(value)
    }
}
