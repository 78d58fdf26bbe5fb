import DatabaseKit
import Foundation

/// `dbtool check`: is the database sound? `PRAGMA quick_check` (or
/// `integrity_check` with ``full``), `PRAGMA foreign_key_check`, and what
/// the header and the WAL say, all read in one read transaction: on a WAL
/// database the application's writers never wait for it.
public struct CheckOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// `integrity_check` (every index against its table, every constraint)
    /// instead of `quick_check`.
    public var full = false

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// A row that references a missing row.
    public struct ForeignKeyViolation: Codable, Sendable, Equatable {
        public var table: String
        /// The row's rowid (nil for a WITHOUT ROWID table).
        public var rowid: Int64?
        /// The table its foreign key references.
        public var parent: String
    }

    /// What the check found.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        /// `quick_check` or `integrity_check`.
        public var check: String
        /// True when nothing below is wrong.
        public var healthy: Bool
        /// What the integrity check said, when not "ok": the tables, pages
        /// and rows at fault, in SQLite's words.
        public var problems: [String]
        /// How many rows reference missing rows, and the first of them.
        public var foreignKeyViolationCount: Int
        public var foreignKeyViolations: [ForeignKeyViolation]
        public var pageSize: Int
        public var pageCount: Int
        public var freelistCount: Int
        public var fileSize: Int64
        public var walSize: Int64
        /// `PRAGMA journal_size_limit` (-1: none).
        public var journalSizeLimit: Int64
        public var journalMode: String
        /// What is not damage but deserves a look (a WAL over its limit).
        public var warnings: [String]
    }

    /// The first violations a report lists.
    static let listedViolations = 100

    /// - throws: ``CheckFailure`` (65) with the report when the database is
    ///   damaged; ``DBToolError`` 75 when a lock was held past the timeout.
    public func run() throws -> Report {
        let path = database.location.filePath
        let dbQueue = try database.openForReading()
        let report = try database.reportingErrors {
            try dbQueue.read { db in try inspect(db, path: path) }
        }
        guard report.healthy else {
            var found: [String] = []
            if !report.problems.isEmpty {
                found.append(
                    "\(report.check): \(report.problems.prefix(3).joined(separator: "; "))\(report.problems.count > 3 ? "; …" : "")")
            }
            if report.foreignKeyViolationCount > 0 {
                let first = report.foreignKeyViolations.prefix(3).map {
                    "\($0.table) rowid \($0.rowid.map(String.init) ?? "?") -> \($0.parent)"
                }
                found.append("\(report.foreignKeyViolationCount) foreign key violation(s): \(first.joined(separator: ", "))")
            }
            throw CheckFailure(
                report: report,
                error: DBToolError(
                    .dataError, "the database \(path) is damaged: \(found.joined(separator: "; "))",
                    hint: report.problems.isEmpty
                        ? "Fix or delete the rows that reference missing rows (`PRAGMA foreign_key_check` lists them)."
                        : "Restore it from a backup (`dbtool backup list`), or copy what is readable with `sqlite3 .recover`."))
        }
        return report
    }

    private func inspect(_ db: Database, path: String) throws -> Report {
        let check = full ? "integrity_check" : "quick_check"
        var problems: [String]
        do {
            problems = try String.fetchAll(db, sql: "PRAGMA \(check)")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            problems = [error.message ?? "database disk image is malformed"]
        }
        // One row may hold several lines; the "*** in database main ***" lines only head them.
        problems = problems.flatMap { $0.split(separator: "\n").map(String.init) }.filter { $0 != "ok" && !$0.hasPrefix("*** in database") }
        var violations: [ForeignKeyViolation] = []
        var violationCount = 0
        do {
            let rows = try Row.fetchCursor(db, sql: "PRAGMA foreign_key_check")
            while let row = try rows.next() {
                violationCount += 1
                if violations.count < Self.listedViolations {
                    violations.append(ForeignKeyViolation(table: row[0] ?? "", rowid: row[1], parent: row[2] ?? ""))
                }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            problems.append(error.message ?? "database disk image is malformed")
        }
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let freelistCount = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown"
        let journalSizeLimit = try Int64.fetchOne(db, sql: "PRAGMA journal_size_limit") ?? -1
        let fileSize = FileSystem.size(path)
        let walSize = FileSystem.size(path + "-wal")
        var warnings: [String] = []
        if walSize == 0 && fileSize < Int64(pageCount) * Int64(pageSize) {
            problems.append(
                "the file holds \(fileSize) bytes where its header counts \(pageCount) pages of \(pageSize) bytes: it was truncated")
        }
        if journalSizeLimit >= 0 && walSize > journalSizeLimit {
            warnings.append(
                "the WAL holds \(walSize) bytes, more than journal_size_limit (\(journalSizeLimit)): `dbtool checkpoint --mode truncate` empties it"
            )
        }
        if freelistCount > 0 && pageCount > 0 && freelistCount * 4 >= pageCount {
            warnings.append("\(freelistCount) of \(pageCount) pages are free: `dbtool vacuum` would give them back to the file system")
        }
        return Report(
            database: path, check: check, healthy: problems.isEmpty && violationCount == 0, problems: problems,
            foreignKeyViolationCount: violationCount,
            foreignKeyViolations: violations, pageSize: pageSize, pageCount: pageCount, freelistCount: freelistCount, fileSize: fileSize,
            walSize: walSize, journalSizeLimit: journalSizeLimit, journalMode: journalMode, warnings: warnings)
    }
}

/// A check that found damage: the report is printed, then the error (65).
public struct CheckFailure: PartialFailure, Sendable {
    public let report: CheckOperation.Report
    public let error: DBToolError

    public var partialReport: any Encodable { report }
}
