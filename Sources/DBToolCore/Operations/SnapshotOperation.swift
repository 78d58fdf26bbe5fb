import DatabaseKit
import Foundation

/// `dbtool snapshot`: a consistent, standalone single-file copy of the
/// database, taken while other processes keep writing.
///
/// The copy is written to a temp file beside its destination (online backup
/// API, or VACUUM INTO), switched to journal mode DELETE so that it stands
/// alone, checked with `PRAGMA quick_check`, fsynced, and only then renamed:
/// a crash never leaves a partial file under the final name.
public struct SnapshotOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// The destination file, or nil with ``outputDirectory``.
    public var output: String?
    /// A directory where the snapshot is named with a UTC timestamp.
    public var outputDirectory: String?
    /// With ``outputDirectory``: keep only the newest N snapshots there.
    public var keep: Int?
    /// Replace an existing destination.
    public var force = false
    /// Compact the copy (VACUUM INTO) instead of copying pages.
    public var vacuum = false
    /// The stem of timestamped names (default: the database file's name
    /// without its extension).
    var nameStem: String?
    /// Called with (copied pages, total pages) as the copy goes on; the
    /// backup then copies in steps (still inside one read transaction, so
    /// the copy holds one committed state).
    public var progress: (@Sendable (Int, Int) -> Void)?

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// What the snapshot did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var snapshot: String
        public var bytes: Int64
        public var pageCount: Int
        public var vacuumed: Bool
        /// Older snapshots deleted by `--keep`.
        public var deleted: [String]
        /// `path: reason` of each older snapshot `--keep` could not delete.
        public var deleteFailures: [String]
    }

    /// The prefix of temp files; stale ones (left by a killed run) are removed.
    static let tempPrefix = ".dbtool-snapshot-"

    public func run(now: Date = Date()) throws -> Report {
        let destination = try FileDestination(
            FileDestination.Request(output: output, outputDirectory: outputDirectory, keep: keep),
            stem: nameStem ?? snapshotStem, fileExtension: "sqlite", now: now, force: force, tempPrefix: Self.tempPrefix)
        try destination.prepare()
        let source = try database.openQueue()
        let temp = destination.tempPath()
        // Created here, empty (a valid empty database, and what VACUUM INTO
        // accepts): private, whatever the umask (SQLite would create it
        // 0644), and never through a link. Its journal takes its mode.
        try createNewFile(temp, what: "the snapshot").close()
        defer { removeDatabaseFiles(temp) }

        let pageCount = try database.reportingErrors {
            try reportingWriteErrors(to: destination.path) { () -> Int in
                if vacuum {
                    try source.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [temp]) }
                } else {
                    let copy = try DatabaseQueue(path: temp)
                    if let progress {
                        // 4 MiB of 4 KiB pages per step.
                        try source.backup(to: copy, pagesPerStep: 1024) { step in
                            progress(step.completedPageCount, step.totalPageCount)
                        }
                    } else {
                        try source.backup(to: copy)
                    }
                    try copy.close()
                }
                return try finalizeCopy(temp)
            }
        }
        try destination.publish(temp, what: "the snapshot")
        let pruning = destination.prune()
        return Report(
            database: database.location.filePath, snapshot: destination.path, bytes: FileSystem.size(destination.path),
            pageCount: pageCount, vacuumed: vacuum, deleted: pruning.deleted, deleteFailures: pruning.failures)
    }

    /// The copy's write errors are about the destination (a full disk, most
    /// often): name it, and the cause, rather than the source. Read errors
    /// go on to name the source.
    private func reportingWriteErrors<T>(to destination: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.isWriteFailure {
            throw DBToolError(
                .ioError, "can not write the snapshot \(destination): \(error.writeFailureCause)",
                hint: "Check the free space and the disk where it goes, and retry.")
        }
    }

    /// The stem of timestamped snapshot names: the database file's name without extension.
    private var snapshotStem: String {
        URL(fileURLWithPath: database.location.filePath).deletingPathExtension().lastPathComponent
    }

    /// Makes the copy standalone (journal mode DELETE) and checks it.
    private func finalizeCopy(_ path: String) throws -> Int {
        let copy = try DatabaseQueue(path: path)
        defer { try? copy.close() }
        return try copy.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard check == ["ok"] else {
                throw DBToolError(
                    .dataError, "the snapshot of \(database.location.filePath) failed its quick_check: \(check.prefix(3).joined(separator: "; "))",
                    hint: "Run `dbtool exec \"PRAGMA integrity_check\"` on the database.")
            }
            return try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        }
    }
}
