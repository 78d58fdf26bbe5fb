import DatabaseKit
import Dispatch
import FoundationEssentials

/// `dbtool checkpoint`: checkpoints the WAL and reports what it did, never
/// making the application's writers wait for it.
///
/// A blocking checkpoint (full, restart, truncate) takes SQLite's write lock
/// and, with a busy handler, keeps it while it waits for readers: every
/// writer of the application would stall for as long, and fail with
/// "database is locked" past its own busy timeout. So dbtool runs with no
/// busy handler: a passive pass copies what it can without any lock, then the
/// blocking mode is attempted, and gives the lock back at once when a reader
/// or a writer is in the way; attempts are retried with a growing pause
/// (2 ms to 100 ms) until `timeout`. A writer waits at most for one attempt.
public struct CheckpointOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    public var mode: Database.CheckpointMode = .passive

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// What the checkpoint did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var mode: String
        /// Frames in the WAL after the checkpoint (0 after `truncate`).
        public var walFrames: Int
        /// Frames of the WAL copied into the database: for `truncate`, the
        /// frames the WAL held just before it was emptied.
        public var checkpointedFrames: Int
        /// Size of the `-wal` file, in bytes, before and after.
        public var walSizeBefore: Int64
        public var walSizeAfter: Int64
        /// How many times the mode was attempted (1 when nothing was in the way).
        public var attempts: Int
        /// Time spent waiting for other connections, in milliseconds.
        public var waitedMs: Int64
    }

    /// - throws: ``DBToolError``: 65 when the database is not in WAL mode, 75
    ///   when a blocking mode could not complete within the timeout.
    public func run() throws -> Report {
        let dbQueue = try database.openQueue()
        let walPath = database.location.filePath + "-wal"
        return try database.reportingErrors {
            try dbQueue.writeWithoutTransaction { db in
                let journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown"
                guard journalMode.lowercased() == "wal" else {
                    throw DBToolError(
                        .dataError,
                        "the database \(database.location.filePath) is not in WAL mode (journal_mode is \(journalMode)): there is nothing to checkpoint",
                        hint: "Switch it with `dbtool exec \"PRAGMA journal_mode = WAL\"` if WAL is wanted.")
                }
                let sizeBefore = FileSystem.size(walPath)
                let (walFrames, checkpointed, attempts, waited) = try database.waits.withoutWaiting { try checkpointWithoutBlocking(db) }
                return Report(
                    database: database.location.filePath, mode: "\(mode)", walFrames: walFrames, checkpointedFrames: checkpointed,
                    walSizeBefore: sizeBefore, walSizeAfter: FileSystem.size(walPath), attempts: attempts,
                    waitedMs: Int64((waited * 1000).rounded()))
            }
        }
    }

    /// Attempts until success or the deadline; SQLite never waits inside.
    private func checkpointWithoutBlocking(_ db: Database) throws -> (
        walFrames: Int, checkpointed: Int, attempts: Int, waited: TimeInterval
    ) {
        let start = Date()
        let waiting = DispatchTime.now()
        defer { database.waits.spend(since: waiting) }
        let deadline = start.addingTimeInterval(database.waits.remaining)
        var pause: TimeInterval = 0.002
        var attempts = 0
        while true {
            attempts += 1
            let attemptStart = Date()
            // Passive never blocks: it copies the frames no reader needs, so
            // that the blocking attempt has little left to do under the lock.
            if let passive = try busyAsNil({ try db.checkpoint(.passive) }) {
                if mode == .passive {
                    return (passive.walFrameCount, passive.checkpointedFrameCount, attempts, attemptStart.timeIntervalSince(start))
                }
                if let result = try busyAsNil({ try db.checkpoint(mode) }) {
                    // A truncated WAL reports 0 frames: all it held was copied.
                    let checkpointed = mode == .truncate ? max(passive.walFrameCount, 0) : result.checkpointedFrameCount
                    return (result.walFrameCount, checkpointed, attempts, attemptStart.timeIntervalSince(start))
                }
            }
            guard Date() < deadline else {
                throw DBToolError(
                    .tempFail,
                    "the \(mode) checkpoint of \(database.location.filePath) did not complete within \(formatSeconds(database.timeout)) (\(attempts) attempts): other connections kept reading or writing the WAL",
                    hint: "No writer was kept waiting meanwhile. Retry later, or wait longer with --timeout SECONDS.")
            }
            try Interruption.sleep(seconds: min(pause, max(0, deadline.timeIntervalSinceNow)))
            pause = min(pause * 2, 0.1)
        }
    }

    /// The result, or nil when SQLite answered SQLITE_BUSY.
    private func busyAsNil<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return nil
        }
    }
}
