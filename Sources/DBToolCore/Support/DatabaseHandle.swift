import DatabaseKit
import Dispatch
import FoundationEssentials

/// One database as dbtool's operations reach it: where it is, how long to
/// wait for its locks, and the policy they all follow. The database must
/// exist (a connection would create it); connections wait up to ``timeout``
/// for SQLite's locks; dbtool's own lock (`ExclusiveLock`) is taken before
/// a migration or a backup; and database errors become ``DBToolError``s that
/// name the file and the wait. The CLI builds it once from `--database`,
/// `--file-name` and `--timeout`.
public struct DatabaseHandle: Sendable, Equatable {
    /// The default wait for a locked database, in seconds (`--timeout`).
    public static let defaultTimeout: TimeInterval = 5

    /// Where the database is.
    public var location: DatabaseLocation
    /// How long to wait for locks held by other connections and dbtool runs.
    public var timeout: TimeInterval
    /// What the run may not write onto: this database's files and
    /// directory, and, when the run works on several, every one's.
    public var gate: WriteGate
    /// The waits of this command on this database, counted against ``timeout``.
    let waits: WaitBudget

    /// A handle on the database at `location`.
    public init(location: DatabaseLocation, timeout: TimeInterval = DatabaseHandle.defaultTimeout) {
        self.location = location
        self.timeout = timeout
        gate = WriteGate(protecting: [location])
        waits = WaitBudget(timeout: timeout)
    }

    public static func == (lhs: DatabaseHandle, rhs: DatabaseHandle) -> Bool {
        lhs.location == rhs.location && lhs.timeout == rhs.timeout && lhs.gate == rhs.gate
    }

    /// Opens a connection to the existing database, waiting up to ``timeout``
    /// for locks held by other connections. The wait ends early, with 130,
    /// on SIGINT or SIGTERM (``Interruption``), which also interrupt a
    /// statement that runs.
    public func openQueue(readonly: Bool = false) throws -> DatabaseQueue {
        try location.checkExists()
        var config = Configuration()
        config.busyMode = .callback(waits.busyHandler)
        config.readonly = readonly
        config.label = "dbtool"
        let queue = try reportingErrors { try DatabaseQueue(path: location.filePath, configuration: config) }
        InterruptibleQueues.track(queue)
        return queue
    }

    /// True when a rollback journal beside the database starts with SQLite's
    /// journal header: a transaction that may have been left unfinished by a
    /// crash (a "hot journal"), or one a live writer is running.
    private var hasJournalOfCrashedTransaction: Bool {
        FileSystem.prefix(location.filePath + "-journal", count: 8) == [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
    }

    /// Rolls back the transaction a crash left unfinished (a hot journal
    /// beside the database), as SQLite does at the first read of any
    /// connection that may write; nothing when there is no journal.
    func rollBackUnfinishedTransaction() throws {
        if hasJournalOfCrashedTransaction { try rollBackCrashedTransaction() }
    }

    /// Lets SQLite roll back the transaction a crash left unfinished, as it
    /// does at the first read of any connection that may write; a read-only
    /// connection can not (it would fail with "attempt to write a readonly
    /// database", which is no permission problem). Says so on stderr.
    private func rollBackCrashedTransaction() throws {
        guard !isReadOnlyPlace else {
            throw DBToolError(
                .dataError,
                "the database \(location.filePath) has the journal of a transaction a crash left unfinished: SQLite must roll it back, which needs a connection that may write, and dbtool may not write in \(location.directoryPath)",
                hint:
                    "Run any dbtool command that writes (or sqlite3) on it as a user who may write \(location.directoryPath), then run this one again."
            )
        }
        let queue = try openQueue(readonly: false)
        // Its first read rolls the journal back (or reads, when a live
        // writer owns the journal).
        _ = try reportingErrors { try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") } }
        try? queue.close()
        if !hasJournalOfCrashedTransaction {
            StandardStreams.writeError(
                "dbtool: notice: rolled back a transaction a crash left unfinished in \(location.filePath), as SQLite does when it opens a database\n"
            )
        }
    }

    /// True when dbtool may not write in the database's directory: read-only
    /// media, or a directory of another user. SQLite then can not create the
    /// WAL index (`-shm`) a read of a WAL database needs.
    public var isReadOnlyPlace: Bool {
        !FileSystem.isWritable(location.directoryPath) || FileSystem.isOnReadOnlyMedia(location.directoryPath)
    }

    /// Opens a connection that only reads. Where dbtool may not write (see
    /// ``isReadOnlyPlace``), a database whose WAL is empty or absent is
    /// opened `immutable` (SQLite reads the file as it is, takes no lock,
    /// creates nothing); one whose WAL holds commits can not be read there
    /// (77, saying so). Elsewhere: ``openQueue(readonly:)``.
    public func openForReading(readonly: Bool = true) throws -> DatabaseQueue {
        if readonly && hasJournalOfCrashedTransaction { try rollBackCrashedTransaction() }
        guard isReadOnlyPlace else { return try openQueue(readonly: readonly) }
        try location.checkExists()
        let wal = FileSystem.size(location.filePath + "-wal")
        guard wal == 0 else {
            let media =
                FileSystem.isOnReadOnlyMedia(location.directoryPath) ? "is on read-only media" : "is in a directory dbtool may not write"
            throw DBToolError(
                .noPermission,
                "the database \(location.filePath) \(media), and its WAL holds \(wal) bytes of commits: SQLite needs to write its WAL index to read them",
                hint: "Copy the database directory somewhere writable (or mount it read-write), then read the copy.")
        }
        var config = Configuration()
        config.readonly = true
        config.label = "dbtool"
        let queue = try reportingErrors { try DatabaseQueue(path: Self.immutableURI(location.filePath), configuration: config) }
        InterruptibleQueues.track(queue)
        return queue
    }

    /// `file:PATH?immutable=1`, the path percent-encoded as URIs need.
    static func immutableURI(_ path: String) -> String {
        var encoded = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%", "?", "#": encoded += "%" + Decimals.hex(scalar.value, width: 2, uppercase: true)
            default: encoded.unicodeScalars.append(scalar)
            }
        }
        return "file:" + encoded + "?immutable=1"
    }

    /// Runs `body`, turning database errors into dbtool errors about this
    /// database (a lock names the wait).
    public func reportingErrors<T>(_ body: () throws -> T) throws -> T {
        try location.reportingErrors(timeout: timeout, body)
    }

    /// Runs `body` with a connection, holding dbtool's lock of `purpose` on
    /// the database's directory, waiting up to ``timeout`` for another run
    /// to finish (then 75).
    func withExclusiveLock<T>(_ purpose: ExclusiveLock.Purpose, _ body: (DatabaseQueue) throws -> T) throws -> T {
        try location.checkExists()
        let waiting = DispatchTime.now()
        let lock = try ExclusiveLock(directory: location.directoryPath, purpose: purpose, timeout: waits.remaining)
        waits.spend(since: waiting)
        return try withExtendedLifetime(lock) {
            let dbQueue = try openQueue()
            return try reportingErrors { try body(dbQueue) }
        }
    }
}

/// The connections dbtool opened: SIGINT and SIGTERM interrupt the
/// statements they run (`sqlite3_interrupt`), so that a long query or check
/// stops within moments, and the run ends with 130.
enum InterruptibleQueues {
    private final class Weak: @unchecked Sendable {  // `queue` is set once, read under `queues`' lock
        weak var queue: DatabaseQueue?
        init(_ queue: DatabaseQueue) { self.queue = queue }
    }

    private static let queues = Locked<[Weak]>([])
    private static let registration: Int = Interruption.register {
        for queue in queues.withLock({ $0.compactMap(\.queue) }) { queue.interrupt() }
    }

    /// Interrupts `queue`'s statements on a signal, for as long as it lives.
    static func track(_ queue: DatabaseQueue) {
        _ = registration
        queues.withLock { queues in
            queues.removeAll { $0.queue == nil }
            queues.append(Weak(queue))
        }
    }
}
