import DatabaseKit
import Foundation

/// `dbtool checkpoint`: checkpoints the WAL and reports what it did.
public struct CheckpointOperation: Sendable {
    public var location: DatabaseLocation
    public var mode: Database.CheckpointMode = .passive
    public var timeout: TimeInterval = 5

    public init(location: DatabaseLocation) {
        self.location = location
    }

    /// What the checkpoint did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var mode: String
        /// Frames in the WAL after the checkpoint (0 after `truncate`).
        public var walFrames: Int
        /// Frames copied into the database.
        public var checkpointedFrames: Int
        /// Size of the `-wal` file, in bytes, before and after.
        public var walSizeBefore: Int64
        public var walSizeAfter: Int64
    }

    /// - throws: ``DBToolError``: 65 when the database is not in WAL mode, 75
    ///   when a blocking mode could not complete within the timeout.
    public func run() throws -> Report {
        let dbQueue = try location.openQueue(timeout: timeout)
        let walPath = location.filePath + "-wal"
        return try location.reportingErrors(timeout: timeout) {
            try dbQueue.writeWithoutTransaction { db in
                let journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown"
                guard journalMode.lowercased() == "wal" else {
                    throw DBToolError(
                        .dataError,
                        "the database \(location.filePath) is not in WAL mode (journal_mode is \(journalMode)): there is nothing to checkpoint",
                        hint: "Switch it with `dbtool exec \"PRAGMA journal_mode = WAL\"` if WAL is wanted.")
                }
                let sizeBefore = fileSize(walPath)
                do {
                    let (walFrames, checkpointed) = try db.checkpoint(mode)
                    return Report(
                        database: location.filePath, mode: "\(mode)", walFrames: walFrames,
                        checkpointedFrames: checkpointed, walSizeBefore: sizeBefore, walSizeAfter: fileSize(walPath))
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    throw DBToolError(
                        .tempFail,
                        "the \(mode) checkpoint of \(location.filePath) could not complete within \(formatSeconds(timeout)): other connections were reading or writing (\(error.message ?? ""))",
                        hint: "Retry later, or wait longer with --timeout SECONDS.")
                }
            }
        }
    }
}
