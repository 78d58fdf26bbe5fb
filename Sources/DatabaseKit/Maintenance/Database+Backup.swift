internal import DatabaseKitSQLite
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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

extension Database {
    /// Copies the whole database of this connection into `destination`,
    /// replacing its content. See ``DatabaseReader/backup(to:pagesPerStep:progress:)``.
    ///
    /// `progress` is called after each step, and at least once, on
    /// completion. Throwing from it before completion abandons the backup
    /// (the destination is left as it was) and the error is rethrown; on
    /// completion its error is ignored.
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
                    // The copy is complete: an error of the last report can
                    // not abandon it, and is ignored, as in GRDB.
                    try? progress?(DatabaseBackupProgress(backup, isCompleted: true))
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
        // The destination has a new schema.
        destination.clearSchemaCache()
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
