import Foundation

/// A function that receives the SQL of each executed statement.
public typealias TraceFunction = @Sendable (String) -> Void

/// The configuration of a ``DatabaseQueue``.
///
/// ```swift
/// var config = Configuration()
/// config.readonly = true
/// config.foreignKeysEnabled = true // Default is already true
/// config.trace = { print($0) }     // Prints all SQL statements
///
/// let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// If true, foreign key constraints are checked. Default: true.
    public var foreignKeysEnabled = true

    /// If true, database modifications are disallowed, and a missing database
    /// file is never created. Default: false.
    public var readonly = false

    /// The database label, available as `db.configuration.label`. It also names
    /// the dispatch queues: `LABEL` for a queue, `LABEL.writer`, `LABEL.reader.N`
    /// for a pool. When nil, `DatabaseKit.DatabaseQueue`,
    /// `DatabaseKit.DatabasePool.writer`, ... are used. Default: nil.
    public var label: String?

    /// A function that is called with the SQL of every executed statement.
    /// Default: nil. See also ``Database/trace(options:_:)``.
    public var trace: TraceFunction?

    /// The passphrase of an encrypted database. The system SQLite has no
    /// encryption: opening a connection with a passphrase throws an error that
    /// says so. Default: nil.
    public var passphrase: String?

    /// The kind of transaction opened by ``Database/inTransaction(_:_:)``,
    /// ``Database/beginTransaction(_:)`` and `write` when none is given.
    /// Default: deferred.
    public var defaultTransactionKind: Database.TransactionKind = .deferred

    /// If false, leaving a transaction open at the end of a database access
    /// block is a programmer error that stops the program. Default: false.
    public var allowsUnsafeTransactions = false

    /// How a connection behaves when the database is locked by another
    /// connection. Default: ``Database/BusyMode/immediateError``.
    public var busyMode: Database.BusyMode = .immediateError

    /// The journal mode a ``DatabaseQueue`` sets up. A pool always uses WAL.
    /// Default: ``JournalModeConfiguration/default``.
    public var journalMode: JournalModeConfiguration = .default

    /// The maximum number of concurrent readers of a pool. Default: 5.
    public var maximumReaderCount = 5

    /// If true, statement arguments appear in error descriptions and traces.
    /// Keep it false in production: arguments may hold sensitive data.
    /// Default: false.
    public var publicStatementArguments = false

    /// How long a connection of a pool waits for a lock held by another
    /// connection when ``busyMode`` is `.immediateError`: the pool's own
    /// connections may hold locks briefly (WAL index recovery, connection
    /// closing), and a pool must never fail because of itself. Zero outside
    /// of pools.
    var transientLockTimeout: TimeInterval = 0

    /// The functions registered with ``prepareDatabase(_:)``, in order.
    var setups: [@Sendable (Database) throws -> Void] = []

    /// The journal modes a configuration can request.
    public enum JournalModeConfiguration: Sendable {
        /// Keep the journal mode of the database file.
        case `default`
        /// Set the WAL mode. See <https://www.sqlite.org/wal.html>.
        case wal
    }

    /// Creates the default configuration.
    public init() {}

    /// Registers a function that runs on every new connection, after
    /// DatabaseKit has set the connection up, for example to register functions
    /// or set pragmas:
    ///
    /// ```swift
    /// config.prepareDatabase { db in
    ///     try db.execute(sql: "PRAGMA cache_size = -8000")
    /// }
    /// ```
    ///
    /// An error thrown here makes the connection fail to open.
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Database) throws -> Void) {
        setups.append(setup)
    }
}
