/// A type that reads a database: ``DatabaseQueue``, ``DatabasePool`` or
/// ``DatabaseSnapshot``.
///
/// Write code against `any DatabaseReader` (or `some DatabaseReader`) when it
/// should work with every kind of connection.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration of the connections.
    var configuration: Configuration { get }

    /// The path of the database.
    var path: String { get }

    /// Closes the connections; afterwards every access throws.
    func close() throws

    /// Runs read-only statements in a transaction that sees one committed state.
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Like ``read(_:)-5dlwj``, without blocking the calling thread.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` later, with the connection or the error that prevented
    /// the access, inside a read-only transaction.
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs statements without transaction nor isolation guarantee.
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Like ``unsafeRead(_:)``, and may run inside another access to the
    /// same reader.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Frees as much memory as possible.
    func releaseMemory()
}

/// A type that writes a database: ``DatabaseQueue`` or ``DatabasePool``.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs statements in a transaction, committed when `updates` returns and
    /// rolled back when it throws.
    func write<T>(_ updates: (Database) throws -> T) throws -> T

    /// Like ``write(_:)-76inz``, without blocking the calling thread.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs statements outside of any transaction.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Runs statements outside of any transaction, once no read is running,
    /// and while no read can start.
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Runs `updates` in a transaction later, then `completion` with the
    /// connection and the result.
    func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void)
}
