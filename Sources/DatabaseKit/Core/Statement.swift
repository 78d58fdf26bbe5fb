// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the column lookup's,
// the argument slots', the lock's, the encoder's and the transaction statements' (removed together),
// fetch-struct runs 27% more instructions, record-fetch-manual 4%.

internal import DatabaseKitSQLite
import FoundationEssentials

/// A prepared statement: SQL compiled once, executed many times with different
/// arguments.
///
/// ```swift
/// let statement = try db.makeStatement(sql: "INSERT INTO player (name, score) VALUES (?, ?)")
/// try statement.execute(arguments: ["Arthur", 750])
/// try statement.execute(arguments: ["Barbara", 1000])
/// ```
///
/// A statement belongs to its database connection: use it only inside the
/// access block that gave it. It is finalized when released. A statement
/// whose execution failed should not be reused: make a new one, or get one
/// from ``Database/cachedStatement(sql:)``, which drops failed statements.
public final class Statement {
    /// The raw SQLite statement handle.
    ///
    /// Stepping it directly is allowed: the next execution still runs the
    /// statement from its start. When that execution binds new arguments,
    /// SQLite writes one "bind on a busy prepared statement" line to its
    /// error log (``Database/logError``): DatabaseKit learns from the
    /// refused bind that the statement needs a reset.
    public let sqliteStatement: SQLiteStatement

    /// The connection that prepared the statement.
    unowned let database: Database

    /// The SQL of the statement, without leading and trailing white space
    /// and semicolons, and without the other statements of a multi-statement
    /// string.
    public var sql: String { trimmedSQL }

    /// Built on first use from the text SQLite keeps: most statements never
    /// need it.
    private lazy var trimmedSQL: String = String(cString: sqlite3_sql(sqliteStatement)).trimmedSQLStatement

    /// What the authorizer learned while the statement compiled.
    let compilation: StatementCompilation

    /// Set while a cursor iterates the statement, so that the transparent
    /// statement cache never hands it to another fetch.
    var isBorrowed = false

    /// The number of rows the last ``RowBatch`` of this statement held: the
    /// next batch reserves room for as many (a prefetch runs the same
    /// statement again and again), so that it does not move its values as it
    /// grows.
    var lastBatchRowCount = 0

    /// The decoder of the `Decodable` records read from the rows of this
    /// statement, kept from one row to the next and from one execution to
    /// the next (see ``RowDecoder``): fetching records one key at a time
    /// runs the same statement again and again. While an iteration runs, it
    /// refers to the iterated row, which refers to the statement: the
    /// iteration detaches it when it ends (``detachRecordDecoder()``).
    private(set) var reusableRecordDecoder: RowDecoder?

    /// Keeps a decoder for the next rows.
    func keepRecordDecoder(_ decoder: RowDecoder) {
        reusableRecordDecoder?.forgetKeyedContainer()
        reusableRecordDecoder = decoder
    }

    /// Lets the kept decoder forget the row of the iteration that ends.
    func detachRecordDecoder() {
        reusableRecordDecoder?.detachRow()
    }

    /// The column names, in order.
    public private(set) lazy var columnNames: [String] = readColumnNames()

    private func readColumnNames() -> [String] {
        knownRecompilations = sqlite3_stmt_status(sqliteStatement, CInt(SQLITE_STMTSTATUS_REPREPARE), 0)
        return (0..<Int(sqlite3_column_count(sqliteStatement))).map {
            String(cString: sqlite3_column_name(sqliteStatement, CInt($0)))
        }
    }

    /// How many times SQLite had recompiled the statement when its columns
    /// were last read; nil until they are. A statement whose columns nobody
    /// read (a point query reads its value by position) has none to keep
    /// up to date, and its executions skip the check.
    private var knownRecompilations: CInt?

    /// Counts the changes of the statement's columns: SQLite recompiles a
    /// statement whose schema changed (another connection's `ALTER TABLE`,
    /// say) when it runs again, and its columns may then differ.
    @exclusivity(unchecked) private(set) var columnsGeneration = 0

    /// Reads the columns again, once they were read, when SQLite recompiled
    /// the statement during the first step of an execution, and drops the
    /// record decoder, which looked the old ones up.
    @inline(__always)
    func refreshColumnsIfRecompiled() {
        if let knownRecompilations { refreshColumns(knownRecompilations: knownRecompilations) }
    }

    /// Not inlined: each execution that reads columns calls it, from code
    /// inlined into every fetch.
    @inline(never)
    private func refreshColumns(knownRecompilations: CInt) {
        if sqlite3_stmt_status(sqliteStatement, CInt(SQLITE_STMTSTATUS_REPREPARE), 0) != knownRecompilations {
            columnsDidChange()
        }
    }

    private func columnsDidChange() {
        columnNames = readColumnNames()
        columnNameIndex = ColumnNameIndex(names: columnNames)
        reusableRecordDecoder?.forgetKeyedContainer()
        reusableRecordDecoder = nil
        columnsGeneration += 1
    }

    /// The number of columns.
    public var columnCount: Int { Int(sqlite3_column_count(sqliteStatement)) }

    /// True when the statement does not write to the database.
    /// See <https://www.sqlite.org/c3ref/stmt_readonly.html>.
    public var isReadonly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

    /// The region of the database the statement reads: its tables and
    /// columns. Computed on first use (it costs a compilation).
    public var databaseRegion: DatabaseRegion {
        get {
            if let region = _databaseRegion { return region }
            let region = observationInfo.selectedRegion
            _databaseRegion = region
            return region
        }
        set { _databaseRegion = newValue }
    }
    private var _databaseRegion: DatabaseRegion?

    /// The changes the statement may perform, for transaction observers:
    /// read on first use by compiling the SQL again with a recording
    /// authorizer, so that statements pay nothing when nobody observes.
    private(set) lazy var observationInfo: StatementObservationInfo = database.observationInfo(of: self)

    /// The kinds of changes the statement may perform.
    var authorizerEventKinds: [DatabaseEventKind] { observationInfo.eventKinds }

    /// True when the statement may delete rows.
    var canDeleteRows: Bool { authorizerEventKinds.contains(where: \.isDelete) }

    /// The transaction statement this is (BEGIN, COMMIT, SAVEPOINT...), if any.
    var transactionEffect: TransactionEffect? { compilation.transactionEffect }

    /// True when running the statement may change the schema.
    var invalidatesDatabaseSchemaCache: Bool { compilation.invalidatesSchemaCache }

    /// The parameter names without prefix (nil for `?`), computed once.
    private(set) lazy var parameterNames: [String?] = (0..<parameterCount).map {
        guard let cName = Self.parameterName(sqliteStatement, at: $0) else { return nil }
        return String(cString: cName + 1)
    }

    /// The name of a named parameter (`:name`, `$name`, `@name`), with its
    /// prefix, as SQLite keeps it; nil for a positional one (`?`, `?NNN`).
    private static func parameterName(_ sqliteStatement: SQLiteStatement, at index: Int) -> UnsafePointer<CChar>? {
        guard let cName = sqlite3_bind_parameter_name(sqliteStatement, CInt(index + 1)),
            cName.pointee != CChar(UInt8(ascii: "?"))
        else { return nil }
        return cName
    }

    /// The number of parameters.
    let parameterCount: Int

    /// True when every parameter is positional: plain positional arguments
    /// then bind without any name lookup.
    private let hasOnlyPositionalParameters: Bool

    /// True when every parameter is named: named arguments then bind
    /// through a ``NamedBindingPlan``. (SQLite gives each distinct name one
    /// parameter, so the names are distinct.)
    private let hasOnlyNamedParameters: Bool

    /// Where the values of the last named arguments went, reused while the
    /// next arguments come with the same names in the same order (a loop
    /// over one literal): their values then bind with no name lookup.
    private var namedBindingPlan: NamedBindingPlan?

    init(database: Database, sqliteStatement: SQLiteStatement, compilation: StatementCompilation) {
        self.database = database
        self.sqliteStatement = sqliteStatement
        self.compilation = compilation
        // Stored: every execution with arguments compares their count to it.
        let parameterCount = Int(sqlite3_bind_parameter_count(sqliteStatement))
        self.parameterCount = parameterCount
        // Stored constants, computed without building the names: every
        // execution with arguments reads them, and a lazy property is a call
        // around which the caller retains the arguments.
        let positionalCount = (0..<parameterCount).count { Self.parameterName(sqliteStatement, at: $0) == nil }
        self.hasOnlyPositionalParameters = positionalCount == parameterCount
        self.hasOnlyNamedParameters = positionalCount == 0
    }

    deinit {
        // The kept decoder and its container refer to each other.
        reusableRecordDecoder?.forgetKeyedContainer()
        sqlite3_finalize(sqliteStatement)
    }

    /// The index of the leftmost column with this name, compared
    /// case-insensitively, or nil.
    public func index(ofColumn name: String) -> Int? {
        columnNameIndex.index(of: name)
    }

    /// The column lookup shared by the rows of this statement.
    private(set) lazy var columnNameIndex = ColumnNameIndex(names: columnNames)

    // MARK: Arguments

    /// The arguments of the next executions.
    ///
    /// Setting arguments that do not fit the statement does not trap: the
    /// next execution throws the error that ``setArguments(_:)`` would have
    /// thrown.
    public var arguments: StatementArguments {
        get { _arguments }
        set {
            do {
                try setArguments(newValue)
            } catch {
                _arguments = newValue
                argumentsAreValidAndBound = false
            }
        }
    }
    private var _arguments = StatementArguments()

    /// Moves the values of the kept arguments out when they are an array
    /// (a record's columns, a key), so that their buffer can serve the next
    /// record; nil otherwise. The statement must be given arguments before
    /// it runs again.
    func takeArgumentArray() -> [DatabaseValue]? {
        guard let array = _arguments.takeValueArray() else { return nil }
        argumentsAreValidAndBound = false
        return array
    }

    /// True when ``arguments`` are checked and bound: a plain `execute()`
    /// only resets the statement.
    private var argumentsAreValidAndBound = false

    /// True while the statement is the pin of a read that defers its
    /// transaction (see `Database+DeferredRead.swift`): stepped once, and
    /// not reset, so that SQLite keeps the snapshot it read.
    var isReadPin = false

    /// True when the pin's reset was asked for while it pinned: the read
    /// resets it when the pin is no longer needed.
    var readPinIsReleased = false

    /// False while the statement is known to be reset: freshly prepared, or
    /// reset by DatabaseKit after its last step (an execution ends with a
    /// reset, a cursor's iteration too). Binding then skips the reset SQLite
    /// requires before it (see ``resetIfNeededAndBind(_:)``).
    private var needsReset = false

    /// Checks that the arguments fit the statement's parameters, and throws
    /// an error naming the problem otherwise.
    ///
    /// Unused named arguments are allowed; a missing argument, or a
    /// positional argument left over, is an error.
    public func validateArguments(_ arguments: StatementArguments) throws {
        var consumer = ArgumentsConsumer(arguments)
        _ = try consumer.values(for: self)
        try consumer.checkNoPositionalValueLeft(sql: sql)
    }

    /// Validates and sets the arguments of the next executions.
    public func setArguments(_ arguments: StatementArguments) throws {
        var consumer = ArgumentsConsumer(arguments)
        let values = try consumer.values(for: self)
        try consumer.checkNoPositionalValueLeft(sql: sql)
        try bind(values, arguments: arguments)
    }

    /// Sets arguments without validation: missing values are bound as NULL.
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        // The usual case (records, keys): one positional value per
        // parameter, bound as they are, without building another array.
        if !arguments.hasNamedValues && arguments.positional.count == parameterCount {
            try? bind(arguments.positional, arguments: arguments)
            return
        }
        var consumer = ArgumentsConsumer(arguments)
        let values = consumer.uncheckedValues(for: self)
        // Binding a value to an existing parameter does not fail.
        try? bind(values, arguments: arguments)
    }

    /// Binds values that were extracted for this statement, one per
    /// parameter, in order.
    func bind(_ values: ArgumentValues, arguments: StatementArguments) throws {
        if isReadPin { try database.beginDeferredReadTransaction() }
        try keepArguments(arguments, boundWith: resetIfNeededAndBind { values.bindAll(to: $0) })
    }

    /// Keeps the arguments whose binding returned `code`, or throws when
    /// the binding failed.
    ///
    /// Consuming: arguments built for one execution (a literal) are moved
    /// into ``arguments``, where storing a borrowed value would retain each
    /// of its buffers, for the caller to release them right after.
    @inline(__always)
    private func keepArguments(_ arguments: consuming StatementArguments, boundWith code: CInt) throws {
        guard code == SQLITE_OK else {
            argumentsAreValidAndBound = false
            throw database.error(code: code, sql: sql, arguments: arguments)
        }
        // The previous arguments are dropped: their buffer of slots serves
        // the next argument literal. A swap, not a mutation of the stored
        // property: no dynamic exclusivity check.
        var previous = arguments
        swap(&_arguments, &previous)
        previous.leaveSpareSlots()
        argumentsAreValidAndBound = true
    }

    /// Resets the statement unless it is known to be reset, runs `bind`,
    /// and returns its result code.
    ///
    /// The flag can not see steps of the public ``sqliteStatement`` made
    /// outside DatabaseKit. SQLite refuses to bind a statement that is not
    /// reset, with `SQLITE_MISUSE` (and writes "bind on a busy prepared
    /// statement" to its error log): the statement is then reset and bound
    /// again, so that such steps change nothing but that log line.
    @inline(__always)
    private func resetIfNeededAndBind(_ bind: (SQLiteStatement) -> CInt) -> CInt {
        if needsReset {
            sqlite3_reset(sqliteStatement)
            needsReset = false
        }
        let code = bind(sqliteStatement)
        if code != SQLITE_MISUSE { return code }
        sqlite3_reset(sqliteStatement)
        return bind(sqliteStatement)
    }

    /// Sets the arguments for one execution, on the fast path when they are
    /// exactly the positional values the statement expects.
    @inline(__always)
    func prepareExecution(arguments newArguments: consuming StatementArguments?) throws {
        try prepareExecution(arguments: newArguments, in: database)
    }

    /// ``prepareExecution(arguments:)`` with the connection already at hand:
    /// each read of the unowned `database` costs a strong retain.
    @inline(__always)
    func prepareExecution(arguments newArguments: consuming StatementArguments?, in database: Database) throws {
        try database.checkAccess(for: self)
        if isReadPin { try database.beginDeferredReadTransaction() }
        if compilation.invalidatesSchemaCache { database.clearSchemaCache() }
        guard let arguments = consume newArguments else {
            if argumentsAreValidAndBound {
                resetIfStepped()
            } else {
                try setArguments(_arguments)
            }
            return
        }
        let code: CInt
        if !arguments.hasNamedValues && arguments.positional.count == parameterCount && hasOnlyPositionalParameters {
            code = resetIfNeededAndBind { arguments.positional.bindAll(to: $0) }
        } else if arguments.positional.isEmpty && hasOnlyNamedParameters, let namedCode = bindNamed(arguments) {
            code = namedCode
        } else {
            try setArguments(arguments)
            return
        }
        try keepArguments(arguments, boundWith: code)
    }

    /// Binds named arguments to a statement whose parameters are all named,
    /// through the plan of the previous execution when the names match it,
    /// or a new plan, and returns SQLite's result code. Returns nil, having
    /// bound nothing, when a parameter has no value: the general path then
    /// reports the error.
    private func bindNamed(_ arguments: borrowing StatementArguments) -> CInt? {
        // Read through `!`: `guard let` would copy them.
        if arguments.namedArguments == nil { return nil }
        if let plan = namedBindingPlan, plan.matches(arguments.namedArguments!) {
            return resetIfNeededAndBind { plan.bind(arguments.namedArguments!, to: $0) }
        }
        guard let plan = NamedBindingPlan(parameterNames: parameterNames, arguments: arguments.namedArguments!) else {
            return nil
        }
        namedBindingPlan = plan
        return resetIfNeededAndBind { plan.bind(arguments.namedArguments!, to: $0) }
    }

    // MARK: Execution

    /// Executes the statement, stepping through all its rows.
    ///
    /// - parameter arguments: Arguments replacing the current ones, if any.
    /// - throws: ``DatabaseError`` when the arguments do not fit or SQLite
    ///   fails; `CancellationError` when the task of an async access was
    ///   cancelled.
    public func execute(arguments: consuming StatementArguments? = nil) throws {
        let database = self.database
        try prepareExecution(arguments: arguments, in: database)
        try runToCompletion(in: database)
    }

    /// Executes a statement of DatabaseKit's own (BEGIN, COMMIT, the
    /// `query_only` switches, which every access block runs): it takes no
    /// arguments, is never handed out, and every execution ends with its
    /// reset (a failed one too, in ``Database/statementDidFail(_:code:)``),
    /// so it needs no reset before one.
    func executeOwnStatement() throws {
        let database = self.database
        try database.checkAccess(for: self)
        if compilation.invalidatesSchemaCache { database.clearSchemaCache() }
        try runToCompletion(in: database)
    }

    /// Steps the prepared statement until it is done, and resets it.
    @inline(__always)
    private func runToCompletion(in database: Database) throws {
        // A read that defers its transaction begins it for any statement
        // run to completion (they are rare in reads; SQLite would end the
        // snapshot of the first one with it).
        if database.isDeferringReadTransaction { try database.beginDeferredReadTransaction() }
        try database.statementWillExecute(self)
        while true {
            let code = sqlite3_step(sqliteStatement)
            if code == SQLITE_DONE { break }
            if code != SQLITE_ROW { try database.statementDidFail(self, code: code) }
        }
        sqlite3_reset(sqliteStatement)
        try database.statementDidExecute(self)
    }

    /// Steps once: true when a row is available, false when done. The first
    /// step runs the execution checks, the last one the end-of-execution
    /// bookkeeping.
    @inline(__always)
    func step() throws -> Bool {
        try step(in: database, isFirst: sqlite3_stmt_busy(sqliteStatement) == 0)
    }

    /// ``step()`` with the connection already at hand (each read of the
    /// unowned `database` costs a strong retain and its release), for a
    /// caller that knows whether this is the first step since the statement
    /// was reset.
    @inline(__always)
    func step(in database: Database, isFirst: Bool) throws -> Bool {
        if database.isDeferringReadTransaction { return try database.stepDeferringRead(self, isFirst: isFirst) }
        return try stepIgnoringDeferredRead(in: database, isFirst: isFirst)
    }

    /// ``step(in:isFirst:)`` itself, for the read that defers its
    /// transaction.
    @inline(__always)
    func stepIgnoringDeferredRead(in database: Database, isFirst: Bool) throws -> Bool {
        if isFirst {
            try database.statementWillExecute(self)
            needsReset = true
        }
        let code = sqlite3_step(sqliteStatement)
        if isFirst { refreshColumnsIfRecompiled() }
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE {
            try database.statementDidExecute(self)
            return false
        }
        try database.statementDidFail(self, code: code)
    }

    /// Resets the statement so that it releases its read lock; the pin of
    /// a read that defers its transaction is reset when the read no longer
    /// needs its snapshot.
    func reset() {
        if isReadPin {
            readPinIsReleased = true
            return
        }
        sqlite3_reset(sqliteStatement)
        needsReset = false
    }

    /// Resets the statement for another execution with the arguments it
    /// has, unless it is known to be reset: nothing stepped it since its
    /// last reset. `needsReset` can not see steps of the public
    /// ``sqliteStatement`` made outside DatabaseKit; SQLite's busy flag
    /// does (a statement those steps ran to its end restarts by itself at
    /// its next step).
    @inline(__always)
    private func resetIfStepped() {
        if needsReset || isReadPin || sqlite3_stmt_busy(sqliteStatement) != 0 { reset() }
    }

    /// A cursor that steps the statement without producing values: each
    /// `next()` steps once.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "SELECT ...")
    /// try statement.makeCursor().next()
    /// ```
    public func makeCursor(arguments: StatementArguments? = nil) throws -> StatementCursor {
        try StatementCursor(statement: self, arguments: arguments)
    }
}

@available(*, unavailable, message: "Statements are confined to their database access block")
extension Statement: Sendable {}

extension Statement: CustomStringConvertible {
    /// The SQL of the statement.
    public var description: String { sql }
}

extension String {
    /// The string without leading and trailing white space and semicolons.
    var trimmedSQLStatement: String {
        let isSeparator = { (character: Character) in character.isWhitespace || character == ";" }
        guard let first = firstIndex(where: { !isSeparator($0) }), let last = lastIndex(where: { !isSeparator($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// Takes the values for successive statements out of one set of arguments, so
/// that statements separated by semicolons consume positional values in order.
/// Named values serve every statement, and may go unused.
struct ArgumentsConsumer {
    private let arguments: StatementArguments
    private let named: NamedArgumentLookup
    private var position = 0

    init(_ arguments: StatementArguments) {
        self.arguments = arguments
        self.named = NamedArgumentLookup(arguments.namedArguments)
    }

    /// True when positional values remain.
    var hasPositionalValuesLeft: Bool { position < arguments.positional.count }

    /// The values for the statement's parameters, in order.
    mutating func values(for statement: Statement) throws -> ArgumentValues {
        try collectValues(for: statement, nullWhenMissing: false)
    }

    /// Values for each parameter, NULL where none is given.
    mutating func uncheckedValues(for statement: Statement) -> ArgumentValues {
        // Never throws: a missing value becomes NULL.
        (try? collectValues(for: statement, nullWhenMissing: true)) ?? ArgumentValues(minimumCapacity: 0)
    }

    /// A value for each parameter: the named value of its name, else the
    /// next positional value, else NULL or an error.
    private mutating func collectValues(for statement: Statement, nullWhenMissing: Bool) throws -> ArgumentValues {
        let names = statement.parameterNames
        let firstPosition = position
        var result = ArgumentValues(minimumCapacity: names.count)
        for name in names {
            if let name, let value = named.value(named: name) {
                result.append(value)
            } else if position < arguments.positional.count {
                result.append(arguments.positional[position])
                position += 1
            } else if nullWhenMissing {
                result.append(.null)
            } else if let name {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "missing statement argument: \(name)", sql: statement.sql)
            } else {
                // GRDB counts the values left for this statement: in a
                // script, those the previous statements did not take.
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "wrong number of statement arguments: \(arguments.positional.count - firstPosition)",
                    sql: statement.sql)
            }
        }
        return result
    }

    /// Throws when a positional value was not used.
    func checkNoPositionalValueLeft(sql: String?) throws {
        if hasPositionalValuesLeft { throw wrongArgumentCount(sql: sql) }
    }

    /// The error of a missing or left-over positional value.
    func wrongArgumentCount(sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.positional.count)", sql: sql)
    }
}

/// Where each parameter of a statement whose parameters are all named finds
/// its value among named arguments: built once by name lookup, then reused
/// for arguments that come with the same names in the same order, checked
/// by comparing names one to one (cheap: short names compare as two words).
/// A class: the statement reads its plan on every execution, and a class
/// reference costs one retain where a struct of two arrays costs two.
final class NamedBindingPlan {
    /// The argument names the plan was built for, in order.
    private let names: [String]
    /// For each parameter, the index of its value among the arguments.
    let slots: [Int]

    /// Nil when a parameter has no value among the arguments.
    init?(parameterNames: [String?], arguments: NamedArguments) {
        var slots: [Int] = []
        slots.reserveCapacity(parameterNames.count)
        let lookup = NamedArgumentLookup(arguments)
        for name in parameterNames {
            guard let name, let slot = lookup.index(named: name) else { return nil }
            slots.append(slot)
        }
        self.names = arguments.names
        self.slots = slots
    }

    /// Binds `arguments`, which carry the names of the plan in its order,
    /// to a statement that is reset, and returns SQLite's result code.
    func bind(_ arguments: NamedArguments, to sqliteStatement: OpaquePointer) -> CInt {
        arguments.bind(slots, to: sqliteStatement)
    }

    /// True when `arguments` carry the names of the plan, in its order.
    func matches(_ arguments: NamedArguments) -> Bool {
        arguments.hasNames(names)
    }
}
