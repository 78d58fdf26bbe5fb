import DatabaseKit
import Dispatch
import FoundationEssentials

/// `dbtool vacuum`: gives free pages back to the file system.
///
/// A full `VACUUM` rewrites the whole database and holds SQLite's write
/// lock while it does: on a WAL database, which an application may be
/// writing, it is refused unless ``live`` (the refusal says for how long
/// the writers would wait). `--incremental N` frees up to N pages of an
/// `auto_vacuum = incremental` database, a short write. A compacted copy
/// (`--into FILE`) is ``SnapshotOperation`` with `vacuum`.
public struct VacuumOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// Run a full VACUUM on a WAL database all the same.
    public var live = false
    /// Free up to this many pages with `PRAGMA incremental_vacuum` instead
    /// (0: all free pages).
    public var incrementalPages: Int?

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// What the vacuum did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        /// `full` or `incremental`.
        public var mode: String
        public var pageSize: Int
        public var pagesBefore: Int
        public var pagesAfter: Int
        public var freePagesBefore: Int
        public var freePagesAfter: Int
        /// The file's size, before and after (WAL mode: after the checkpoint
        /// that follows, when no reader was in its way).
        public var fileSizeBefore: Int64
        public var fileSizeAfter: Int64
        public var durationMs: Int64
        /// Pages and bytes given back (the file shrinks by as much once a
        /// checkpoint copied the WAL back: at once, unless a reader was in its way).
        public var pagesFreed: Int
        public var bytesFreed: Int64
    }

    /// How fast a full VACUUM is assumed to rewrite a database, for the
    /// refusal's estimate of the write lock's hold (bytes per second).
    static let assumedRewriteSpeed: Double = 50 * 1024 * 1024

    /// - throws: ``DBToolError``: 64 for a full VACUUM of a WAL database
    ///   without ``live``, 65 for an incremental vacuum of a database whose
    ///   auto_vacuum is not incremental, 75 when a lock was held past the
    ///   timeout.
    public func run() throws -> Report {
        let path = database.location.filePath
        return try database.withExclusiveLock(.vacuum) { dbQueue in
            try dbQueue.writeWithoutTransaction { db in
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                let before = (pages: try pageCount(db), free: try freePages(db), size: FileSystem.size(path))
                let journalMode = (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "").lowercased()
                let start = DispatchTime.now()
                if let incrementalPages {
                    let autoVacuum = try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0
                    guard autoVacuum == 2 else {
                        throw DBToolError(
                            .dataError,
                            "\(path) has auto_vacuum = \(autoVacuum == 1 ? "full" : "none"): an incremental vacuum needs auto_vacuum = incremental",
                            hint:
                                "Run `dbtool vacuum` (a full VACUUM) instead, or set `PRAGMA auto_vacuum = incremental` then run a full VACUUM once."
                        )
                    }
                    try db.execute(sql: "PRAGMA incremental_vacuum(\(incrementalPages))")
                } else {
                    if journalMode == "wal" && !live {
                        let seconds = max(1, Int((Double(before.size) / Self.assumedRewriteSpeed).rounded(.up)))
                        throw DBToolError(
                            .usage,
                            "a full VACUUM rewrites \(path) (\(ByteCount.text(before.size))) holding the write lock: the application's writers would wait for it, roughly \(seconds) s or more",
                            hint:
                                "Run it when nothing writes, with --live to confirm; or write a compacted copy with --into FILE, which takes no write lock."
                        )
                    }
                    try db.execute(sql: "VACUUM")
                }
                if journalMode == "wal" {
                    // The rewritten or freed pages are in the WAL: copy them
                    // back and shrink the file, unless a reader is in the way.
                    _ = database.waits.withoutWaiting { try? db.checkpoint(.truncate) }
                }
                let after = (pages: try pageCount(db), free: try freePages(db), size: FileSystem.size(path))
                return Report(
                    database: path, mode: incrementalPages == nil ? "full" : "incremental", pageSize: pageSize, pagesBefore: before.pages,
                    pagesAfter: after.pages, freePagesBefore: before.free, freePagesAfter: after.free, fileSizeBefore: before.size,
                    fileSizeAfter: after.size,
                    durationMs: Int64((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000),
                    pagesFreed: before.pages - after.pages, bytesFreed: Int64(before.pages - after.pages) * Int64(pageSize))
            }
        }
    }

    private func pageCount(_ db: Database) throws -> Int { try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    private func freePages(_ db: Database) throws -> Int { try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 }
}
