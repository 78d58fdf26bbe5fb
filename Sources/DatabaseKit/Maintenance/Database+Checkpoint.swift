internal import DatabaseKitSQLite

extension Database {
    /// The WAL checkpoint modes. See <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    public enum CheckpointMode: CInt, Sendable, CaseIterable {
        /// Checkpoint as many frames as possible without waiting for readers
        /// or writers.
        case passive = 0
        /// Wait for writers, then checkpoint every frame (waits for readers
        /// of older frames too).
        case full = 1
        /// Like `full`, then wait for readers so that the next writer
        /// restarts the WAL from its beginning.
        case restart = 2
        /// Like `restart`, then truncate the WAL file to zero bytes.
        case truncate = 3
    }

    /// Checkpoints the WAL of a database.
    ///
    /// ```swift
    /// let (walFrameCount, checkpointedFrameCount) = try db.checkpoint(.truncate)
    /// ```
    ///
    /// The blocking modes (`full`, `restart`, `truncate`) wait for other
    /// connections according to the configuration's ``Configuration/busyMode``.
    ///
    /// - parameters:
    ///   - mode: The checkpoint mode (default: passive).
    ///   - dbName: The schema to checkpoint ("main" by default; nil for all
    ///     attached databases).
    /// - returns: The number of frames in the WAL, and the number of frames
    ///   checkpointed (both -1 when the database is not in WAL mode).
    /// - throws: ``DatabaseError``; `SQLITE_BUSY` when a blocking mode could
    ///   not complete because of other connections: an incomplete checkpoint
    ///   is never reported as a success.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive, on dbName: String? = "main") throws
        -> (walFrameCount: Int, checkpointedFrameCount: Int)
    {
        try checkOpen()
        var walFrameCount: CInt = -1
        var checkpointedFrameCount: CInt = -1
        let code = sqlite3_wal_checkpoint_v2(sqliteConnection, dbName, mode.rawValue, &walFrameCount, &checkpointedFrameCount)
        switch code {
        case SQLITE_OK:
            return (Int(walFrameCount), Int(checkpointedFrameCount))
        case SQLITE_BUSY:
            throw DatabaseError(
                resultCode: .SQLITE_BUSY,
                message:
                    "the \(mode) checkpoint could not complete: other connections were reading or writing (\(checkpointedFrameCount) of \(walFrameCount) WAL frames checkpointed)"
            )
        default:
            throw error(code: code)
        }
    }
}
