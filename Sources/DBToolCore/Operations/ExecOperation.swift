import DatabaseKit
import FoundationEssentials

/// `dbtool exec`: runs SQL, with bound arguments, and prints the rows of the
/// statements that return some.
public struct ExecOperation {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    public var sql: String
    public var arguments = StatementArguments()
    /// All statements in one IMMEDIATE transaction, all or nothing (default).
    public var usesTransaction = true
    /// Opens the database read-only.
    public var readonly = false
    public var format: RowFormat = .table

    public init(database: DatabaseHandle, sql: String) {
        self.database = database
        self.sql = sql
    }

    /// Runs the SQL, writing rows through `write` (what it throws, such as
    /// a failed write of stdout, stops the run: nothing is committed).
    ///
    /// A script that begins its own transactions (`BEGIN`, `SAVEPOINT`, as
    /// the output of `sqlite3 .dump` does) runs as written, not inside
    /// dbtool's transaction; a transaction it leaves open is rolled back.
    ///
    /// - throws: ``DBToolError``: 65 with the failing statement and SQLite's
    ///   message (nothing is committed when in a transaction), 75 when the
    ///   database stays locked past the timeout, 77 for a write on a
    ///   database opened with `readonly`.
    public func run(write: @escaping (String) throws -> Void) throws {
        // Where dbtool may not write, reads still work; a write is refused by SQLite (77).
        let dbQueue = try readonly ? database.openForReading() : database.openForReading(readonly: false)
        let writer = RowWriter(format: format, write: write)
        let scriptManagesTransactions = SQLScript.managesTransactions(sql)
        try reportingErrors {
            if usesTransaction && !readonly && !scriptManagesTransactions {
                try dbQueue.inTransaction(.immediate) { db in
                    try runStatements(db, writer)
                    return .commit
                }
            } else {
                try dbQueue.writeWithoutTransaction { db in
                    do {
                        try runStatements(db, writer)
                    } catch {
                        if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                        throw error
                    }
                    if db.isInsideTransaction {
                        try db.execute(sql: "ROLLBACK")
                        throw DBToolError(
                            .dataError, "the script left a transaction open (a BEGIN without its COMMIT): it was rolled back",
                            hint: "End the script's transaction with COMMIT.")
                    }
                }
            }
        }
        try writer.finish()
    }

    /// Turns database errors into dbtool errors, with words for the cases
    /// that SQLite's own would mislead.
    private func reportingErrors(_ body: () throws -> Void) throws {
        try database.reportingErrors {
            do {
                try body()
            } catch let error as DatabaseError where readonly && error.resultCode == .SQLITE_READONLY {
                throw DBToolError(
                    .noPermission,
                    "the database \(database.location.filePath) was opened read-only (--readonly), and a statement writes\(error.sql.map { ": `\($0)`" } ?? "")",
                    hint: "Drop --readonly to write.")
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_MISUSE
                && (error.message?.hasPrefix("missing statement argument") == true
                    || error.message?.hasPrefix("wrong number of statement arguments") == true)
            {
                throw DBToolError(
                    .dataError, "\(error.message ?? "")\(error.sql.map { " (in `\($0)`)" } ?? "")",
                    hint: "Give one --arg VALUE per `?`, in order, and --arg NAME=VALUE for each :NAME (see dbtool exec --help).")
            } catch let error as DatabaseError where error.message?.contains("within a transaction") == true {
                throw DBToolError(
                    .dataError, "\(error.message ?? "")\(error.sql.map { " (in `\($0)`)" } ?? "")",
                    hint: "The script manages its own transactions: run it with --no-transaction.")
            }
        }
    }

    private func runStatements(_ db: Database, _ writer: RowWriter) throws {
        let statements = try db.allStatements(sql: sql, arguments: arguments)
        while let statement = try statements.next() {
            if statement.columnCount == 0 {
                try statement.execute()
                continue
            }
            try writer.begin(columns: statement.columnNames)
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                try writer.add(row.databaseValues)
            }
        }
    }
}

/// Parses `--arg` values: `VALUE` is positional, `NAME=VALUE` is named when
/// NAME is an identifier (optionally prefixed by `:`, `$` or `@`). Values
/// are always bound, never spliced into the SQL.
///
/// A value is inferred only when no character is lost: an integer when it
/// reads back as the same text (`42`, `-7`; not `0171`, `+5`, `1_000`), a
/// real likewise (`1.5`; not `1.50`, `1e3`), `NULL` (uppercase) is NULL,
/// anything else is text. A type prefix says it exactly: `text:0171`,
/// `text:NULL`, `int:5`, `real:1e3`, `blob:CAFE` (hex), `null:`.
public enum ExecArgumentParser {
    /// - throws: ``DBToolError`` (64) naming the argument, for a typed value
    ///   that is not of its type.
    public static func parse(_ rawArguments: [String]) throws -> StatementArguments {
        var values: [DatabaseValue] = []
        var named: [String: DatabaseValue] = [:]
        for raw in rawArguments {
            if let (name, value) = namedArgument(raw) {
                named[name] = try databaseValue(value, argument: raw)
            } else {
                values.append(try databaseValue(raw, argument: raw))
            }
        }
        return StatementArguments(values: values, namedValues: named)
    }

    private static func namedArgument(_ raw: String) -> (String, String)? {
        guard let equal = raw.firstIndex(of: "=") else { return nil }
        var name = raw[..<equal]
        if let first = name.first, ":$@".contains(first) { name = name.dropFirst() }
        guard let first = name.first, first == "_" || first.isLetter,
            name.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber })
        else { return nil }
        return (String(name), String(raw[raw.index(after: equal)...]))
    }

    private static func databaseValue(_ text: String, argument: String) throws -> DatabaseValue {
        if let colon = text.firstIndex(of: ":") {
            let value = String(text[text.index(after: colon)...])
            func invalid(_ type: String) -> DBToolError {
                DBToolError(.usage, "--arg \(argument): \(String(reflecting: value)) is not \(type)")
            }
            switch text[..<colon] {
            case "text": return value.databaseValue
            case "int", "integer":
                guard let int64 = Int64(value) else { throw invalid("an integer") }
                return int64.databaseValue
            case "real":
                // SQLite has no NaN, and Double reads 1e400 as infinity: neither is what was typed.
                guard let double = Double(value), double.isFinite else { throw invalid("a finite real number") }
                return double.databaseValue
            case "blob":
                guard let data = hexData(value) else { throw invalid("hexadecimal bytes") }
                return data.databaseValue
            case "null":
                guard value.isEmpty else { throw invalid("empty (write null: alone)") }
                return .null
            default: break
            }
        }
        if text == "NULL" { return .null }
        if let int64 = Int64(text), String(int64) == text { return int64.databaseValue }
        if let double = Double(text), double.isFinite, String(double) == text { return double.databaseValue }
        return text.databaseValue
    }

    private static func hexData(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return Data(bytes)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
