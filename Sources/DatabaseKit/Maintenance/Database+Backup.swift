internal import DatabaseKitSQLite
import Foundation

/// The progress of an online backup.
public struct DatabaseBackupProgress: Sendable, Equatable {
    /// The number of pages still to copy.
    public let remainingPageCount: Int

    /// The number of pages of the source database.
    public let totalPageCount: Int

    /// The number of pages copied so far.
    public var completedPageCount: Int { totalPageCount - remainingPageCount }

    /// True once every page is copied.
    public let isCompleted: Bool
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
    /// written while no read runs on it (a barrier), and is left as it was
    /// when the backup fails or is cancelled.
    ///
    /// - parameters:
    ///   - writer: The destination.
    ///   - pagesPerStep: The pages copied at each step; -1 (the default)
    ///     copies everything in one step.
    ///   - progress: Called after each step. Throwing from it cancels the
    ///     backup, and the error is rethrown.
    /// - throws: ``DatabaseError``, or the error thrown by `progress`.
    public func backup(
        to writer: some DatabaseWriter,
        pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        precondition(self !== writer, "a database can not be backed up into itself")
        try read { sourceDb in
            try writer.barrierWriteWithoutTransaction { destinationDb in
                try sourceDb.backup(to: destinationDb, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }
}

extension Database {
    /// Copies the whole database of this connection into `destination`,
    /// replacing its content. See ``DatabaseReader/backup(to:pagesPerStep:progress:)``.
    ///
    /// Steps that meet a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`) are retried
    /// for the destination's busy timeout (one second when its busy mode
    /// is not a timeout); `sqlite3_backup_finish` runs on every path, and its
    /// error is reported.
    public func backup(
        to destination: Database,
        pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        try checkOpen()
        try destination.checkOpen()
        guard let backup = sqlite3_backup_init(destination.sqliteConnection, "main", sqliteConnection, "main") else {
            throw destination.error(code: sqlite3_errcode(destination.sqliteConnection))
        }
        var lockedSince: Date?
        do {
            while true {
                let code = sqlite3_backup_step(backup, pagesPerStep)
                switch code {
                case SQLITE_DONE:
                    try progress?(DatabaseBackupProgress(backup, isCompleted: true))
                case SQLITE_OK:
                    lockedSince = nil
                    try progress?(DatabaseBackupProgress(backup, isCompleted: false))
                    continue
                case SQLITE_BUSY, SQLITE_LOCKED:
                    let start = lockedSince ?? Date()
                    lockedSince = start
                    if Date().timeIntervalSince(start) < destination.lockRetryTimeout {
                        usleep(10_000)
                        continue
                    }
                    throw destination.error(code: code)
                default:
                    throw destination.error(code: code)
                }
                break
            }
        } catch {
            // Finishing an unfinished backup rolls the destination back.
            sqlite3_backup_finish(backup)
            throw error
        }
        let code = sqlite3_backup_finish(backup)
        guard code == SQLITE_OK else {
            throw destination.error(code: code)
        }
    }

    /// How long to retry an operation that meets a lock, in seconds: the busy
    /// timeout, or one second.
    var lockRetryTimeout: TimeInterval {
        if case .timeout(let seconds) = configuration.busyMode { return max(seconds, 0) }
        return 1
    }
}

extension DatabaseBackupProgress {
    fileprivate init(_ backup: OpaquePointer, isCompleted: Bool) {
        self.init(
            remainingPageCount: Int(sqlite3_backup_remaining(backup)),
            totalPageCount: Int(sqlite3_backup_pagecount(backup)),
            isCompleted: isCompleted)
    }
}
