import DatabaseKit
import Dispatch
import FoundationEssentials

/// `dbtool optimize`: keeps the query planner's statistics current, cheaply
/// enough for a nightly cron job.
///
/// `PRAGMA optimize` only analyses the tables that the queries of its own
/// connection used, before SQLite 3.46 (whose mask 0x10000 checks them
/// all): from a fresh connection it would do nothing. So dbtool chooses
/// the tables as SQLite 3.46 does: a table with an index whose statistics
/// are missing, or whose row count moved tenfold since they were taken (the
/// count estimated by its largest rowid: no table is read whole).
/// Each `ANALYZE` reads every row of the indexes (a full ANALYZE) unless
/// ``analysisLimit`` bounds it; ``analyzeAll`` analyses every table.
///
/// A limit of N caps each index's "rows per key" at about N: a key repeated
/// more often (a status, a type: 5 values over 1.5 million rows) looks
/// N times more selective than it is, and the planner picks that index
/// over a better one. So the default is a full ANALYZE, which reads
/// 150 MB of indexed table in 0.5 s, up to ``fullAnalysisSize``; above it,
/// ``largeDatabaseLimit`` rows per index bound the write lock each table's
/// ANALYZE holds.
public struct OptimizeOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// `PRAGMA analysis_limit` (0: no limit, every row); nil: a full ANALYZE
    /// up to ``fullAnalysisSize``, ``largeDatabaseLimit`` above.
    public var analysisLimit: Int?

    /// The largest database the default analyses in full: 1 GiB, some 3 s of ANALYZE.
    public static let fullAnalysisSize: Int64 = 1 << 30
    /// The default limit for databases over ``fullAnalysisSize``.
    public static let largeDatabaseLimit = 100_000
    /// `ANALYZE` every table, not only those whose statistics are stale.
    public var analyzeAll = false

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// One table analysed, and why.
    public struct Analysis: Codable, Sendable, Equatable {
        public var table: String
        /// "no statistics", "rows 120 -> 5000", "asked".
        public var reason: String
    }

    /// What was analysed.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        /// The `analysis_limit` used (0: a full ANALYZE).
        public var analysisLimit: Int
        public var analyzed: [Analysis]
        /// Tables with indexes whose statistics were current.
        public var current: [String]
        public var durationMs: Int64
    }

    /// - throws: ``DBToolError`` 75 when a lock was held past the timeout.
    public func run() throws -> Report {
        let path = database.location.filePath
        let dbQueue = try database.openQueue()
        return try database.reportingErrors {
            try dbQueue.writeWithoutTransaction { db in
                let start = DispatchTime.now()
                let limit =
                    analysisLimit.map { max(0, $0) }
                    ?? (FileSystem.size(path) > Self.fullAnalysisSize ? Self.largeDatabaseLimit : 0)
                try db.execute(sql: "PRAGMA analysis_limit = \(limit)")
                let tables = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT t.name FROM sqlite_master AS t JOIN sqlite_master AS i ON i.tbl_name = t.name AND i.type = 'index'
                        WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%' ORDER BY t.name
                        """)
                let estimates = try statisticsRowCounts(db)
                var analyzed: [Analysis] = []
                var current: [String] = []
                for table in tables {
                    let reason: String?
                    if analyzeAll {
                        reason = "asked"
                    } else if let estimate = estimates[table] {
                        let rows = try approximateRowCount(of: table, db)
                        let moved = rows >= estimate * 10 || estimate >= max(rows, 1) * 10
                        reason = moved ? "rows \(estimate) -> \(rows)" : nil
                    } else {
                        reason = "no statistics"
                    }
                    guard let reason else {
                        current.append(table)
                        continue
                    }
                    try db.execute(sql: "ANALYZE \(table.quotedDatabaseIdentifier)")
                    analyzed.append(Analysis(table: table, reason: reason))
                }
                return Report(
                    database: path, analysisLimit: limit, analyzed: analyzed, current: current,
                    durationMs: Int64((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000))
            }
        }
    }

    /// About how many rows `table` holds: its largest rowid, read from the
    /// end of its b-tree (a count would read the whole table every night);
    /// a WITHOUT ROWID table is counted.
    private func approximateRowCount(of table: String, _ db: Database) throws -> Int {
        let name = table.quotedDatabaseIdentifier
        do {
            return try Int.fetchOne(db, sql: "SELECT max(rowid) FROM \(name)") ?? 0
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(name)") ?? 0
        }
    }

    /// The row count `sqlite_stat1` holds for each table (the first number
    /// of its indexes' rows); empty when the database was never analysed.
    private func statisticsRowCounts(_ db: Database) throws -> [String: Int] {
        guard try db.tableExists("sqlite_stat1") else { return [:] }
        var counts: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT tbl, stat FROM sqlite_stat1 WHERE idx IS NOT NULL") {
            let table: String = row[0] ?? ""
            let stat: String = row[1] ?? ""
            if let first = stat.split(separator: " ").first.flatMap({ Int($0) }) { counts[table] = max(counts[table] ?? 0, first) }
        }
        return counts
    }
}
