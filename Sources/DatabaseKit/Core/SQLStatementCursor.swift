import FoundationEssentials

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
/// statement. When the cursor ends, left-over positional arguments throw.
/// Without arguments, each statement gets none: set them before executing.
public final class SQLStatementCursor: Cursor {
    private let database: Database
    private let sql: ContiguousArray<CChar>
    private var offset = 0
    private var consumer: ArgumentsConsumer?
    private var isDone = false

    init(database: Database, sql: String, arguments: StatementArguments?) {
        self.database = database
        self.sql = sql.utf8CString
        self.consumer = arguments.map(ArgumentsConsumer.init)
    }

    /// The next statement, compiled and bound, or nil after the last one.
    ///
    /// - throws: ``DatabaseError`` on a syntax error (naming the SQL from the
    ///   failing statement on), or, at the end, when positional arguments
    ///   are left over.
    public func next() throws -> Statement? {
        if isDone { return nil }
        try database.checkOpen()
        let statement: Statement? = try sql.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress!  // never nil: the buffer holds the NUL terminator
            let end = start + buffer.count - 1
            var cursor = start + offset
            let statement = try database.prepareNextStatement(from: &cursor, end: end)
            offset = cursor - start
            return statement
        }
        guard let statement else {
            isDone = true
            try consumer?.checkNoPositionalValueLeft(sql: nil)
            return nil
        }
        if var consumer {
            let values = try consumer.values(for: statement)
            self.consumer = consumer
            // Only this statement's share: the statement reports it.
            try statement.bind(values, arguments: StatementArguments(positional: values))
        }
        return statement
    }

    /// Calls `body` with each statement.
    public func forEach(_ body: (Statement) throws -> Void) throws {
        while let statement = try next() {
            try body(statement)
        }
    }
}

@available(*, unavailable, message: "Cursors are confined to their database access block")
extension SQLStatementCursor: Sendable {}
