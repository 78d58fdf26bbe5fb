import DatabaseKit
import Foundation

/// `dbtool exec`: runs SQL, with bound arguments, and prints the rows of the
/// statements that return some.
public struct ExecOperation {
    public var location: DatabaseLocation
    public var sql: String
    public var arguments = StatementArguments()
    /// All statements in one IMMEDIATE transaction, all or nothing (default).
    public var usesTransaction = true
    /// Opens the database read-only.
    public var readonly = false
    public var timeout: TimeInterval = 5
    public var format: RowFormat = .table

    public init(location: DatabaseLocation, sql: String) {
        self.location = location
        self.sql = sql
    }

    /// Runs the SQL, writing rows through `write`.
    ///
    /// - throws: ``DBToolError``: 65 with the failing statement and SQLite's
    ///   message (nothing is committed when in a transaction), 75 when the
    ///   database stays locked past the timeout.
    public func run(write: @escaping (String) -> Void) throws {
        let dbQueue = try location.openQueue(timeout: timeout, readonly: readonly)
        let writer = RowWriter(format: format, write: write)
        try location.reportingErrors(timeout: timeout) {
            if usesTransaction && !readonly {
                try dbQueue.inTransaction(.immediate) { db in
                    try runStatements(db, writer)
                    return .commit
                }
            } else {
                try dbQueue.writeWithoutTransaction { db in try runStatements(db, writer) }
            }
        }
        writer.finish()
    }

    private func runStatements(_ db: Database, _ writer: RowWriter) throws {
        let statements = try db.allStatements(sql: sql, arguments: arguments)
        while let statement = try statements.next() {
            if statement.columnCount == 0 {
                try statement.execute()
                continue
            }
            writer.begin(columns: statement.columnNames)
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                writer.add(row.databaseValues)
            }
        }
    }
}

/// Parses `--arg` values: `VALUE` is positional, `NAME=VALUE` is named when
/// NAME is an identifier (optionally prefixed by `:`, `$` or `@`). A value is
/// an integer when it reads as one, a real when it reads as one, and text
/// otherwise; `NULL` (uppercase) is NULL. Values are always bound, never
/// spliced into the SQL.
public enum ExecArgumentParser {
    public static func parse(_ rawArguments: [String]) -> StatementArguments {
        var values: [DatabaseValue] = []
        var named: [String: DatabaseValue] = [:]
        for raw in rawArguments {
            if let (name, value) = namedArgument(raw) {
                named[name] = databaseValue(value)
            } else {
                values.append(databaseValue(raw))
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

    private static func databaseValue(_ text: String) -> DatabaseValue {
        if text == "NULL" { return .null }
        if let int64 = Int64(text) { return int64.databaseValue }
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let double = Double(text), double.isFinite {
            return double.databaseValue
        }
        return text.databaseValue
    }
}
