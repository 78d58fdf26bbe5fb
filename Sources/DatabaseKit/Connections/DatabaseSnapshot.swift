internal import DatabaseKitSQLite
import FoundationEssentials

/// A read-only view of a WAL database, frozen at its creation: writes
/// committed afterwards are invisible to it. Create one with
/// ``DatabasePool/makeSnapshot()``.
///
/// ```swift
/// let snapshot = try dbPool.makeSnapshot()
/// try dbPool.write { db in try db.execute(sql: "DELETE FROM player") }
/// let count = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
/// // count is the number of players before the DELETE
/// ```
///
/// A snapshot holds its own connection with an open read transaction, until
/// it is closed or released.
public final class DatabaseSnapshot: DatabaseSnapshotReader {
    private let serializedDatabase: SerializedDatabase

    /// The configuration of the snapshot's connection.
    public var configuration: Configuration { serializedDatabase.configuration }

    /// The path of the database file.
    public var path: String { serializedDatabase.path }

    init(path: String, configuration: Configuration, purpose: String) throws {
        var configuration = configuration
        // The snapshot *is* a transaction left open on purpose.
        configuration.allowsUnsafeTransactions = true
        serializedDatabase = try SerializedDatabase(
            path: path, configuration: configuration, defaultLabel: "GRDB.DatabasePool", purpose: purpose)
        try serializedDatabase.sync { db in
            try db.beginTransaction(.deferred)
            // The first read fixes the snapshot.
            _ = try db.schemaVersion()
        }
    }

    deinit {
        // End the read transaction; the connection then closes.
        serializedDatabase.reentrantSync { db in try? db.rollback() }
    }

    /// Runs read-only statements on the frozen state. Rethrows, as GRDB's:
    /// a closed snapshot makes the statements of `value` throw.
    public func read<T>(_ value: (Database) throws -> T) rethrows -> T {
        try serializedDatabase.sync(value)
    }

    /// Like ``DatabaseSnapshot/read(_:)-4i802``, without blocking the calling thread.
    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await serializedDatabase.execute(value)
    }

    /// Runs `value` later on the frozen state.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        serializedDatabase.async { db in value(db.accessResult()) }
    }

    /// The same as ``DatabaseSnapshot/read(_:)-4i802``: a snapshot is always isolated.
    public func unsafeRead<T>(_ value: (Database) throws -> T) rethrows -> T {
        try serializedDatabase.sync(value)
    }

    /// The same as ``DatabaseSnapshot/read(_:)-4i802``.
    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await serializedDatabase.execute(value)
    }

    /// The same as ``asyncRead(_:)``.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncRead(value)
    }

    /// Like ``DatabaseSnapshot/unsafeRead(_:)-9z6h4``, and may run inside another access to the snapshot.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try serializedDatabase.reentrantSync(value)
    }

    /// Ends the read transaction and closes the connection.
    public func close() throws {
        serializedDatabase.reentrantSync { db in try? db.rollback() }
        try serializedDatabase.close()
    }

    /// Interrupts the running statement.
    public func interrupt() {
        serializedDatabase.interrupt()
    }

    /// Frees as much memory as possible.
    public func releaseMemory() {
        serializedDatabase.reentrantSync { db in db.releaseMemory() }
    }
}

/// A pool of snapshots of a WAL database, each at a chosen committed state.
///
/// It needs SQLite compiled with `SQLITE_ENABLE_SNAPSHOT`
/// (<https://www.sqlite.org/c3ref/snapshot.html>). The system SQLite of Debian
/// is not, so creating one throws an error that says so: use
/// ``DatabasePool/makeSnapshot()`` (a ``DatabaseSnapshot``) instead.
public final class DatabaseSnapshotPool: Sendable {
    /// A snapshot pool of the current state of a pool's database.
    ///
    /// - throws: ``DatabaseError`` explaining that SQLite lacks
    ///   `SQLITE_ENABLE_SNAPSHOT`.
    public init(_ dbPool: DatabasePool) throws {
        throw Self.unavailableError()
    }

    /// A snapshot pool of the current state of the database of a connection.
    ///
    /// - throws: ``DatabaseError`` explaining that SQLite lacks
    ///   `SQLITE_ENABLE_SNAPSHOT`.
    public init(_ db: Database, configuration: Configuration? = nil) throws {
        throw Self.unavailableError()
    }

    /// A snapshot pool of the current state of a WAL database file.
    ///
    /// - throws: ``DatabaseError`` explaining that SQLite lacks
    ///   `SQLITE_ENABLE_SNAPSHOT`.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        throw Self.unavailableError()
    }

    /// True when the SQLite library was compiled with `SQLITE_ENABLE_SNAPSHOT`.
    public static var isSupportedBySQLite: Bool {
        sqlite3_compileoption_used("ENABLE_SNAPSHOT") != 0
    }

    private static func unavailableError() -> DatabaseError {
        if isSupportedBySQLite {
            // The C declarations of sqlite3_snapshot_* only exist when the
            // headers DatabaseKit builds against define SQLITE_ENABLE_SNAPSHOT.
            return DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message:
                    "DatabaseSnapshotPool is not available in this build of DatabaseKit: its SQLite headers do not declare sqlite3_snapshot_*. Use DatabasePool.makeSnapshot() instead."
            )
        }
        return DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message:
                "DatabaseSnapshotPool needs SQLite compiled with SQLITE_ENABLE_SNAPSHOT, and SQLite \(Database.sqliteLibVersion) is not. Use DatabasePool.makeSnapshot() (a DatabaseSnapshot) instead."
        )
    }
}
