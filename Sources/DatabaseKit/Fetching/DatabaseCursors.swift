// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): the cursors' stored
// properties: without them and the connection's and the decoder's, fetch-index runs 19% more instructions,
// fetch-name 45%.

internal import DatabaseKitSQLite

/// A cursor that steps a statement: ``RowCursor``, ``DatabaseValueCursor``,
/// ``FastDatabaseValueCursor``, ``RecordCursor``.
///
/// It must be used inside the database access block that created it.
public protocol DatabaseCursor<Element>: Cursor {
    /// True once the statement is done. Implementations start with false.
    var _isDone: Bool { get set }

    /// The statement the cursor steps.
    var _statement: Statement { get }

    /// The element of the current row, after a successful step.
    func _element(sqliteStatement: SQLiteStatement) throws -> Element
}

extension DatabaseCursor {
    /// The SQL of the statement.
    public var sql: String { _statement.sql }

    /// The arguments of the statement.
    public var arguments: StatementArguments { _statement.arguments }

    /// The column names.
    public var columnNames: [String] { _statement.columnNames }

    /// The number of columns.
    public var columnCount: Int { _statement.columnCount }

    /// The region of the database the cursor reads.
    public var databaseRegion: DatabaseRegion { _statement.databaseRegion }

    /// Steps the statement, and returns the element of the new row.
    public func next() throws -> Element? {
        if _isDone { return nil }
        try _statement.database.checkAccess(for: _statement)
        if try _statement.step() { return try _element(sqliteStatement: _statement.sqliteStatement) }
        _isDone = true
        return nil
    }
}

/// The lifecycle shared by the cursors over a statement: it binds the
/// arguments, steps, resets the statement when done, and keeps the statement
/// out of the statement cache while iterating.
///
/// Cursors store it `@exclusivity(unchecked)`: `step()` mutates it across a
/// call into SQLite, so a checked access costs runtime calls per row (a
/// cursor over one million rows: 1,929 M instructions checked, 1,806 M
/// unchecked). A cursor
/// is confined to the access thread of its database (it is not Sendable),
/// and the struct holds only a constant statement reference and a flag, so
/// even an overlapping access (a SQL function calling `next()` on the cursor
/// that runs it) could at worst misread the flag, never touch freed memory.
struct StatementIteration {
    let statement: Statement
    /// The statement's connection, held strongly: the statement's own
    /// reference is unowned, and reading it costs a retain and a release
    /// per row.
    let database: Database
    private(set) var isDone = false
    /// The error of the step that failed: later steps throw it again rather
    /// than report the end of the results, as the statement is not done.
    private var failure: (any Error)?
    /// False until the first step: the statement was reset when its
    /// arguments were bound, so the first step starts its execution.
    private var isStarted = false

    init(statement: Statement, arguments: StatementArguments?) throws {
        self.statement = statement
        let database = statement.database
        self.database = database
        try statement.prepareExecution(arguments: arguments, in: database)
        statement.isBorrowed = true
    }

    /// Steps to the next row; false when there is none.
    @inline(__always)
    mutating func step() throws -> Bool {
        if isDone {
            if let failure { throw failure }
            return false
        }
        try database.checkAccess(for: statement)
        do {
            let isFirst = !isStarted
            isStarted = true
            if try statement.step(in: database, isFirst: isFirst) { return true }
        } catch {
            finish()
            failure = error
            throw error
        }
        finish()
        return false
    }

    /// Replaces `row`, a row of the statement made when its columns were at
    /// `generation`, with a new one seen through `adapter` when they changed
    /// since: the first step recompiled the statement after a schema change.
    @inline(__always)
    func refresh(_ row: inout Row, madeAt generation: inout Int, adapter: (any RowAdapter)?) throws {
        if _slowPath(statement.columnsGeneration != generation) {
            generation = statement.columnsGeneration
            row = try Row.forFetching(statement, adapter: adapter)
        }
    }

    /// Resets the statement so it releases its locks, and gives it back to the cache.
    mutating func finish() {
        guard !isDone else { return }
        isDone = true
        statement.reset()
        statement.isBorrowed = false
        statement.detachRecordDecoder()
    }
}

/// A cursor of rows. Each call to `next()` returns the same ``Row`` instance,
/// updated to the current row: call `copy()` to keep one.
public final class RowCursor: DatabaseCursor {
    @exclusivity(unchecked) private var iteration: StatementIteration
    @exclusivity(unchecked) private var row: Row
    /// The statement's columns generation when `row` was made.
    @exclusivity(unchecked) private var rowGeneration: Int
    private let adapter: (any RowAdapter)?

    /// The statement being iterated.
    public var statement: Statement { iteration.statement }
    public var _statement: Statement { iteration.statement }
    public var _isDone: Bool {
        get { iteration.isDone }
        set { if newValue { iteration.finish() } }
    }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        rowGeneration = statement.columnsGeneration
        self.adapter = adapter
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func _element(sqliteStatement: SQLiteStatement) throws -> Row { row }

    public func next() throws -> Row? {
        guard try iteration.step() else { return nil }
        try iteration.refresh(&row, madeAt: &rowGeneration, adapter: adapter)
        return row
    }

    public func forEach(_ body: (Row) throws -> Void) throws {
        while try iteration.step() {
            try iteration.refresh(&row, madeAt: &rowGeneration, adapter: adapter)
            try body(row)
        }
    }
}

/// A cursor of values converted through ``DatabaseValueConvertible``.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    @exclusivity(unchecked) private var iteration: StatementIteration
    private let row: Row

    public var _statement: Statement { iteration.statement }
    public var _isDone: Bool {
        get { iteration.isDone }
        set { if newValue { iteration.finish() } }
    }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func _element(sqliteStatement: SQLiteStatement) throws -> Value {
        try row.decode(Value.self, atIndex: 0)
    }

    public func next() throws -> Value? {
        guard try iteration.step() else { return nil }
        return try row.decode(Value.self, atIndex: 0)
    }

    public func forEach(_ body: (Value) throws -> Void) throws {
        while try iteration.step() { try body(row.decode(Value.self, atIndex: 0)) }
    }
}

/// A cursor of values read straight from the statement through
/// ``StatementColumnConvertible``, without intermediate ``DatabaseValue``.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>: DatabaseCursor {
    @exclusivity(unchecked) private var iteration: StatementIteration
    private let row: Row

    public var _statement: Statement { iteration.statement }
    public var _isDone: Bool {
        get { iteration.isDone }
        set { if newValue { iteration.finish() } }
    }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func _element(sqliteStatement: SQLiteStatement) throws -> Value {
        try row.decode(Value.self, atIndex: 0)
    }

    public func next() throws -> Value? {
        guard try iteration.step() else { return nil }
        return try row.decode(Value.self, atIndex: 0)
    }

    public func forEach(_ body: (Value) throws -> Void) throws {
        while try iteration.step() { try body(row.decode(Value.self, atIndex: 0)) }
    }
}

/// A cursor of records decoded from rows with ``FetchableRecord/init(row:)``.
public final class RecordCursor<Record: FetchableRecord>: DatabaseCursor {
    @exclusivity(unchecked) private var iteration: StatementIteration
    @exclusivity(unchecked) private var row: Row
    /// The statement's columns generation when `row` was made.
    @exclusivity(unchecked) private var rowGeneration: Int
    private let adapter: (any RowAdapter)?

    public var _statement: Statement { iteration.statement }
    public var _isDone: Bool {
        get { iteration.isDone }
        set { if newValue { iteration.finish() } }
    }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        row = try Row.forFetching(statement, adapter: adapter)
        rowGeneration = statement.columnsGeneration
        self.adapter = adapter
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func _element(sqliteStatement: SQLiteStatement) throws -> Record {
        try Record(row: row)
    }

    public func next() throws -> Record? {
        guard try iteration.step() else { return nil }
        try iteration.refresh(&row, madeAt: &rowGeneration, adapter: adapter)
        return try Record(row: row)
    }

    public func forEach(_ body: (Record) throws -> Void) throws {
        while try iteration.step() {
            try iteration.refresh(&row, madeAt: &rowGeneration, adapter: adapter)
            try body(Record(row: row))
        }
    }
}

/// A cursor that steps a statement without producing values; see
/// ``Statement/makeCursor(arguments:)``.
public final class StatementCursor: DatabaseCursor {
    @exclusivity(unchecked) private var iteration: StatementIteration

    public var _statement: Statement { iteration.statement }
    public var _isDone: Bool {
        get { iteration.isDone }
        set { if newValue { iteration.finish() } }
    }

    init(statement: Statement, arguments: StatementArguments?) throws {
        iteration = try StatementIteration(statement: statement, arguments: arguments)
    }

    deinit { iteration.finish() }

    public func _element(sqliteStatement: SQLiteStatement) throws {}

    public func next() throws -> Void? {
        try iteration.step() ? () : nil
    }
}

@available(*, unavailable, message: "Cursors are confined to their database access block")
extension RowCursor: Sendable {}
@available(*, unavailable, message: "Cursors are confined to their database access block")
extension DatabaseValueCursor: Sendable {}
@available(*, unavailable, message: "Cursors are confined to their database access block")
extension FastDatabaseValueCursor: Sendable {}
@available(*, unavailable, message: "Cursors are confined to their database access block")
extension RecordCursor: Sendable {}
@available(*, unavailable, message: "Cursors are confined to their database access block")
extension StatementCursor: Sendable {}
