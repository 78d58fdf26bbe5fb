@preconcurrency import Dispatch
import FoundationEssentials

/// A function that receives the SQL of each executed statement.
public typealias TraceFunction = @Sendable (String) -> Void

/// The configuration of a ``DatabaseQueue`` or ``DatabasePool``.
///
/// ```swift
/// var config = Configuration()
/// config.readonly = true
/// config.foreignKeysEnabled = true // Default is already true
/// config.prepareDatabase { db in
///     db.trace { print($0) }       // Prints all SQL statements
/// }
///
/// let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    // MARK: Connections

    /// If true, foreign key constraints are checked. Default: true.
    public var foreignKeysEnabled = true

    /// If true, database modifications are disallowed, and a missing database
    /// file is never created. Default: false.
    public var readonly = false

    /// If false, a read-write connection fails with SQLITE_CANTOPEN when the
    /// database file does not exist, instead of creating it (dbtool opens a
    /// restored copy so: a file the extraction did not produce is an error,
    /// never an empty database). Default: true.
    package var createsMissingFile = true

    /// If false, the connection refuses a database path whose file is a
    /// symbolic link (`SQLITE_OPEN_NOFOLLOW`). Default: true.
    package var followsSymbolicLinks = true

    /// The database label, available as `db.configuration.label`. It also names
    /// the dispatch queues: `LABEL` for a queue, `LABEL.writer`, `LABEL.reader.N`
    /// for a pool. When nil, `GRDB.DatabaseQueue`, `GRDB.DatabasePool.writer`,
    /// ... are used, as GRDB names them. Default: nil.
    public var label: String?

    /// If true, SQLite accepts a double-quoted string as a string literal
    /// where it names no column, a legacy behavior that hides typos
    /// (<https://www.sqlite.org/quirks.html#dblquote>). Default: false.
    public var acceptsDoubleQuotedStringLiterals = false

    /// If true, the connections stop writing when
    /// ``Database/suspendNotification`` is posted, and resume on
    /// ``Database/resumeNotification``. GRDB uses it so that suspended iOS
    /// apps release their locks; Linux suspends nothing by itself, so this
    /// only matters to programs that post the notifications (and needs the
    /// FoundationBridging trait, on by default, which brings
    /// `NotificationCenter`). Default: false.
    public var observesSuspensionNotifications = false

    /// A function that is called with the SQL of every executed statement.
    /// Default: nil. See also ``Database/trace(options:_:)``.
    public var trace: TraceFunction?

    /// If true, statement arguments appear in error descriptions and traces.
    /// Keep it false in production: arguments may hold sensitive data.
    /// Default: false.
    public var publicStatementArguments = false

    /// The passphrase of an encrypted database. The system SQLite has no
    /// encryption: opening a connection with a passphrase throws an error that
    /// says so. Default: nil.
    public var passphrase: String?

    /// The clock that dates transactions (``Database/transactionDate``).
    /// Default: the current date.
    public var transactionClock: any TransactionClock = .default

    /// The functions registered with ``prepareDatabase(_:)``, in order.
    private var setups: [@Sendable (Database) throws -> Void] = []

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

    /// Runs the ``prepareDatabase(_:)`` functions.
    func setUp(_ db: Database) throws {
        for setup in setups { try setup(db) }
    }

    /// Called with the raw connection just before it closes (for checks,
    /// such as the statements still alive). Default: nil.
    public mutating func onConnectionWillClose(_ callback: @escaping @Sendable (SQLiteConnection) -> Void) {
        connectionWillClose = callback
    }

    private(set) var connectionWillClose: (@Sendable (SQLiteConnection) -> Void)?

    // MARK: Transactions

    /// The kind of the transactions that name none: ``Database/inTransaction(_:_:)``,
    /// ``Database/beginTransaction(_:)``, ``DatabaseWriter/write(_:)-81rhj``.
    ///
    /// Unset, the default, it follows GRDB 7: IMMEDIATE for writes, so that
    /// a transaction never fails with SQLITE_BUSY half-way when another
    /// connection writes, and DEFERRED for read-only accesses. Once set, the
    /// kind applies to every such transaction (a read-only access then needs
    /// `.deferred`).
    public var defaultTransactionKind: Database.TransactionKind {
        get { explicitDefaultTransactionKind ?? .immediate }
        set { explicitDefaultTransactionKind = newValue }
    }

    /// The kind set by the user, if any.
    private(set) var explicitDefaultTransactionKind: Database.TransactionKind?

    /// If false, leaving a transaction open at the end of a database access
    /// block is a programmer error that stops the program. Default: false.
    public var allowsUnsafeTransactions = false

    // MARK: Journal mode

    /// The journal modes a configuration can request.
    public enum JournalModeConfiguration: Sendable {
        /// Keep the journal mode of the database file.
        case `default`
        /// Set the WAL mode. See <https://www.sqlite.org/wal.html>.
        case wal
    }

    /// The journal mode a ``DatabaseQueue`` sets up. A pool always uses WAL.
    /// Default: ``JournalModeConfiguration/default``.
    public var journalMode: JournalModeConfiguration = .default

    // MARK: Concurrency

    /// How a connection behaves when the database is locked by another
    /// connection. Default: ``Database/BusyMode/immediateError``.
    public var busyMode: Database.BusyMode = .immediateError

    /// The busy mode of read-only connections, when it differs.
    var readonlyBusyMode: Database.BusyMode?

    /// The maximum number of concurrent readers of a pool. Default: 5.
    public var maximumReaderCount = 5

    /// The quality of service of the connections' dispatch queues.
    /// Default: `.userInitiated`.
    public var qos: DispatchQoS = .userInitiated

    /// The quality of service of reads: the target queue's, or ``qos``.
    public var readQoS: DispatchQoS { targetQueue?.qos ?? qos }

    /// The quality of service of writes: the write target queue's, the
    /// target queue's, or ``qos``.
    public var writeQoS: DispatchQoS { writeTargetQueue?.qos ?? targetQueue?.qos ?? qos }

    /// The queue the connections' dispatch queues target; it must be serial
    /// for a queue, may be concurrent for a pool's readers. Default: nil.
    public var targetQueue: DispatchQueue?

    /// The queue the writer's dispatch queue targets, when it differs from
    /// ``targetQueue``. Default: nil.
    public var writeTargetQueue: DispatchQueue?

    /// If true, a pool keeps its reader connections open when it releases
    /// memory, instead of closing the idle ones. Default: false.
    public var persistentReadOnlyConnections = false

    /// If true, the connections release memory when the system asks; iOS
    /// does, Linux has no such notification, so this has no effect here.
    /// Default: true.
    public var automaticMemoryManagement = true

    /// Where the introspection methods get what SQLite does not say: see
    /// ``DatabaseSchemaSource``. Default: nil.
    public var schemaSource: (any DatabaseSchemaSource)?

    /// How long a connection of a pool waits for a lock held by another
    /// connection when ``busyMode`` is `.immediateError`: the pool's own
    /// connections may hold locks briefly (WAL index recovery, connection
    /// closing), and a pool must never fail because of itself. Zero outside
    /// of pools.
    var transientLockTimeout: TimeInterval = 0

    /// Creates the default configuration.
    public init() {}

    // MARK: Dispatch queues

    /// The label of a connection's queue: the label (or `defaultLabel`),
    /// followed by the role.
    func identifier(defaultLabel: String, purpose: String? = nil) -> String {
        (label ?? defaultLabel) + (purpose.map { "." + $0 } ?? "")
    }

    func makeWriterDispatchQueue(label: String) -> DispatchQueue {
        if let target = writeTargetQueue ?? targetQueue {
            return DispatchQueue(label: label, target: target)
        }
        return DispatchQueue(label: label, qos: qos)
    }

    func makeReaderDispatchQueue(label: String) -> DispatchQueue {
        if let targetQueue {
            return DispatchQueue(label: label, target: targetQueue)
        }
        return DispatchQueue(label: label, qos: qos)
    }
}

/// Gives the date of transactions: see ``Database/transactionDate``.
public protocol TransactionClock: Sendable {
    /// The date of a transaction that starts now.
    func now(_ db: Database) throws -> Date
}

extension TransactionClock where Self == DefaultTransactionClock {
    /// The current date.
    public static var `default`: Self { DefaultTransactionClock() }
}

extension TransactionClock where Self == CustomTransactionClock {
    /// Dates given by a function.
    public static func custom(_ now: @escaping @Sendable (Database) throws -> Date) -> Self {
        CustomTransactionClock(now)
    }
}

/// The clock of the current date.
public struct DefaultTransactionClock: TransactionClock {
    /// The current date.
    public func now(_ db: Database) throws -> Date { Date() }
}

/// A clock that asks a function.
public struct CustomTransactionClock: TransactionClock {
    private let now: @Sendable (Database) throws -> Date

    /// A clock that asks `now`.
    public init(_ now: @escaping @Sendable (Database) throws -> Date) {
        self.now = now
    }

    public func now(_ db: Database) throws -> Date { try now(db) }
}
