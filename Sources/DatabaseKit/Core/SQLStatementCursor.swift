internal import DatabaseKitSQLite
import Foundation

/// A cursor over the statements of an SQL string, each compiled when the
/// previous one has been used (so a statement may depend on the schema
/// changes of the ones before), with its share of the arguments bound.
///
/// ```swift
/// let statements = try db.allStatements(sql: "INSERT ...; SELECT ...", arguments: [1])
/// while let statement = try statements.next() {
///     if statement.columnCount > 0 {
///         let rows = try Row.fetchAll(statement)
///     } else {
///         try statement.execute()
///     }
/// }
/// ```
///
/// Positional arguments are consumed in order; named arguments serve every
/// statement. When the cursor ends, left-over or unused arguments throw.
public final class SQLStatementCursor: Cursor {
    private let database: Database
    private let sql: ContiguousArray<CChar>
    private var offset = 0
    private var consumer: ArgumentsConsumer
    private let arguments: StatementArguments
    private var isDone = false

    init(database: Database, sql: String, arguments: StatementArguments) {
        self.database = database
        self.sql = sql.utf8CString
        self.arguments = arguments
        self.consumer = ArgumentsConsumer(arguments)
    }

    /// The next statement, compiled and bound, or nil after the last one.
    ///
    /// - throws: ``DatabaseError`` on a syntax error (naming the statement),
    ///   or when arguments are missing or left over.
    public func next() throws -> Statement? {
        if isDone { return nil }
        try database.checkOpen()
        let end = sql.count - 1  // the NUL terminator
        while offset < end {
            let prepared: (OpaquePointer?, Int) = try sql.withUnsafeBufferPointer { buffer in
                let start = buffer.baseAddress! + offset
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                // The length includes the NUL terminator: otherwise SQLite copies the
                // rest of the SQL on every prepare, quadratic over a long script.
                let code = sqlite3_prepare_v2(database.sqliteConnection, start, CInt(end - offset + 1), &handle, &tail)
                let length = tail.map { $0 - start } ?? (end - offset)
                guard code == SQLITE_OK else {
                    throw database.error(code: code, sql: database.sqlText(from: start, to: start + length))
                }
                return (handle, length)
            }
            let (handle, length) = prepared
            offset += max(length, 1)
            guard let handle else { continue }  // white space or a comment
            let statement = Statement(database: database, sqliteStatement: handle)
            try statement.bind(consumer.values(for: statement), arguments: arguments)
            return statement
        }
        isDone = true
        try consumer.checkFullyConsumed(sql: nil)
        return nil
    }
}

extension Database {
    /// The statements of `sql`, one at a time. See ``SQLStatementCursor``.
    public func allStatements(sql: String, arguments: StatementArguments = StatementArguments()) throws -> SQLStatementCursor {
        try checkOpen()
        return SQLStatementCursor(database: self, sql: sql, arguments: arguments)
    }
}
