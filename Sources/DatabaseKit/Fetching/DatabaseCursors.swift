/// A cursor of rows. Each call to `next()` returns the same ``Row`` instance,
/// updated to the current row: call `copy()` to keep one.
public final class RowCursor: Cursor {
    private var iteration: StatementIteration
    private let row: Row

    /// The statement being iterated.
    public var statement: Statement { iteration.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func next() throws -> Row? {
        try iteration.step() ? row : nil
    }
}

/// A cursor of values converted through ``DatabaseValueConvertible``.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: Cursor {
    private var iteration: StatementIteration
    private let row: Row

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func next() throws -> Value? {
        guard try iteration.step() else { return nil }
        return try row.decode(Value.self, atIndex: 0)
    }
}

/// A cursor of values read straight from the statement through
/// ``StatementColumnConvertible``, without intermediate ``DatabaseValue``.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>: Cursor {
    private var iteration: StatementIteration
    private let row: Row

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func next() throws -> Value? {
        guard try iteration.step() else { return nil }
        return try row.decode(Value.self, atIndex: 0)
    }
}

/// A cursor of records decoded from rows with ``FetchableRecord/init(row:)``.
public final class RecordCursor<Record: FetchableRecord>: Cursor {
    private var iteration: StatementIteration
    private let row: Row

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func next() throws -> Record? {
        guard try iteration.step() else { return nil }
        return try Record(row: row)
    }
}
