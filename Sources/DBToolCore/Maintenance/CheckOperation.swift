import DatabaseKit
import FoundationEssentials

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
    /// The WAL size over which the report warns; nil: the database's size,
    /// or 64 MiB when the database is smaller.
    public var maxWALSize: Int64?

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
        /// The WAL size over which the report warns: `--max-wal`, or the
        /// database's size (64 MiB at least).
        public var walLimit: Int64
        /// `PRAGMA journal_size_limit` of dbtool's connection (-1: none).
        public var journalSizeLimit: Int64
        public var journalMode: String
        /// What is not damage but deserves a look (a WAL over its limit,
        /// many free pages).
        public var warnings: [String]
    }

    /// The first violations a report lists.
    static let listedViolations = 100

    /// - throws: ``CheckFailure`` (65) with the report when the database is
    ///   damaged; ``DBToolError`` 75 when a lock was held past the timeout.
    public func run() throws -> Report {
        let path = database.location.filePath
        let report: Report
        do {
            let dbQueue = try database.openForReading()  // rolls back a crashed transaction first
            report = try database.reportingErrors {
                try dbQueue.inDatabase { db in
                    // The header against the file first: on a file cut short
                    // SQLite fails without saying why.
                    let headerProblem = Self.headerProblem(path)
                    var report: Report?
                    // Rolled back, not committed: after SQLite met damage, a
                    // COMMIT fails with it and would drop the report.
                    try db.inTransaction(.deferred) {
                        report = try inspect(db, path: path, headerProblem: headerProblem)
                        return .rollback
                    }
                    guard let report else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "check: no report") }
                    return report
                }
            }
        } catch let error as DBToolError where error.databaseError?.resultCode == .SQLITE_CORRUPT {
            // SQLite could not read even the schema: what the file says, and SQLite's words.
            report = unreadable(path, sqliteMessage: error.databaseError?.message ?? error.message)
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

    /// What is wrong between the file and its header, read from the file;
    /// nil when nothing is, or when a WAL (which may hold pages past the
    /// file's end) or a journal (of a transaction not rolled back) is there.
    private static func headerProblem(_ path: String) -> String? {
        guard FileSystem.size(path + "-wal") == 0, FileSystem.size(path + "-journal") == 0,
            let header = DatabaseFileHeader.read(path)
        else { return nil }
        return header.problem(fileSize: FileSystem.size(path))
    }

    /// The report on a database SQLite can not open or read the schema of.
    private func unreadable(_ path: String, sqliteMessage: String) -> Report {
        let header = DatabaseFileHeader.read(path)
        let problems = [Self.headerProblem(path), "SQLite can not read it: \(sqliteMessage)"].compactMap { $0 }
        let fileSize = FileSystem.size(path)
        return Report(
            database: path, check: full ? "integrity_check" : "quick_check", healthy: false, problems: problems,
            foreignKeyViolationCount: 0, foreignKeyViolations: [], pageSize: header?.pageSize ?? 0,
            pageCount: header?.pageCount ?? 0, freelistCount: 0, fileSize: fileSize, walSize: FileSystem.size(path + "-wal"),
            walLimit: maxWALSize ?? max(fileSize, Self.walFloor), journalSizeLimit: -1, journalMode: "unknown", warnings: [])
    }

    private func inspect(_ db: Database, path: String, headerProblem: String?) throws -> Report {
        let fileSize = FileSystem.size(path)
        let walSize = FileSystem.size(path + "-wal")
        var problems = headerProblem.map { [$0] } ?? []
        let check = full ? "integrity_check" : "quick_check"
        var findings = try Self.findings(db, pragma: check)
        if full && findings.stopped {
            // integrity_check stopped part-way (at an index it could not
            // read): quick_check may reach pages it did not.
            let quick = try Self.findings(db, pragma: "quick_check")
            findings.lines += quick.lines.filter { !findings.lines.contains($0) }
        }
        problems += findings.lines
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
        } catch let error as DatabaseError where Self.isDamage(error) {
            problems.append("foreign_key_check stopped: \(error.message ?? "database disk image is malformed")")
        }
        func pragma<Value: DatabaseValueConvertible>(_ name: String, _ fallback: Value) throws -> Value {
            do {
                return try Value.fetchOne(db, sql: "PRAGMA \(name)") ?? fallback
            } catch let error as DatabaseError where Self.isDamage(error) {
                return fallback
            }
        }
        let pageSize = try pragma("page_size", 0)
        let pageCount = try pragma("page_count", 0)
        let freelistCount = try pragma("freelist_count", 0)
        let journalMode = try pragma("journal_mode", "unknown")
        let journalSizeLimit = try pragma("journal_size_limit", Int64(-1))
        var warnings: [String] = []
        let walLimit = maxWALSize ?? max(fileSize, Self.walFloor)
        if walSize > walLimit {
            let limit = maxWALSize == nil ? "the database itself (\(ByteCount.text(fileSize)))" : "--max-wal (\(ByteCount.text(walLimit)))"
            warnings.append(
                "the WAL holds \(ByteCount.text(walSize)), more than \(limit): a long read keeps checkpoints from finishing, or a large transaction grew it; `dbtool checkpoint --mode truncate` empties it"
            )
        }
        if freelistCount > 0 && pageCount > 0 && freelistCount * 4 >= pageCount {
            warnings.append("\(freelistCount) of \(pageCount) pages are free: `dbtool vacuum` would give them back to the file system")
        }
        return Report(
            database: path, check: check, healthy: problems.isEmpty && violationCount == 0, problems: problems,
            foreignKeyViolationCount: violationCount,
            foreignKeyViolations: violations, pageSize: pageSize, pageCount: pageCount, freelistCount: freelistCount, fileSize: fileSize,
            walSize: walSize, walLimit: walLimit, journalSizeLimit: journalSizeLimit, journalMode: journalMode, warnings: warnings)
    }

    /// Below this size a WAL is never judged too large (SQLite's automatic
    /// checkpoints keep a busy database's WAL around 4 MiB).
    static let walFloor: Int64 = 64 << 20

    /// The lines of `PRAGMA quick_check` or `integrity_check` other than
    /// "ok", every one SQLite produced before it stopped on damage it could
    /// not read past (whose message is then the last line), and whether it
    /// stopped so.
    private static func findings(_ db: Database, pragma: String) throws -> (lines: [String], stopped: Bool) {
        var lines: [String] = []
        func add(_ text: String) {
            // One row may hold several lines; "*** in database main ***" only heads them.
            for line in text.split(separator: "\n") where line != "ok" && !line.hasPrefix("*** in database") {
                let line = String(line)
                if !lines.contains(line) { lines.append(line) }
            }
        }
        do {
            let rows = try String.fetchCursor(db, sql: "PRAGMA \(pragma)")
            while let row = try rows.next() { add(row) }
            return (lines, false)
        } catch let error as DatabaseError where isDamage(error) {
            add(error.message ?? "database disk image is malformed")
            return (lines, true)
        }
    }

    /// Whether SQLite stopped on damage (rather than on a lock or a misuse).
    private static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }
}

extension CheckOperation.Report: DatabaseGauges {
    public var gauges: [String: Int64] {
        ["dbtool_check_problems": Int64(problems.count + foreignKeyViolationCount), "dbtool_database_free_pages": Int64(freelistCount)]
    }
}

/// A check that found damage: the report is printed, then the error (65).
public struct CheckFailure: PartialFailure, Sendable {
    public let report: CheckOperation.Report
    public let error: DBToolError

    public var partialReport: any Encodable { report }
}
