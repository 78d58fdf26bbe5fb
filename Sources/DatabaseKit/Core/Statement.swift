internal import DatabaseKitSQLite
import Foundation

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
/// access block that gave it. It is finalized when released.
public final class Statement {
    /// The raw SQLite statement handle.
    public let sqliteStatement: SQLiteStatement

    /// The connection that prepared the statement.
    unowned let database: Database

    /// The SQL of the statement, without the trailing text of a multi-statement
    /// string. Built on first use from the text SQLite keeps: most statements
    /// never need it.
    public private(set) lazy var sql: String = String(cString: sqlite3_sql(sqliteStatement))
        .trimmingCharacters(in: .whitespacesAndNewlines)

    /// The arguments that the next execution binds.
    public private(set) var arguments = StatementArguments()

    /// Set while a cursor iterates the statement, so that the transparent
    /// statement cache never hands it to another fetch.
    var isBorrowed = false

    /// True when the statement may change the schema (see ``SchemaCache``).
    var mayChangeSchema = false

    /// The parameter names without prefix (nil for `?`), computed once.
    private(set) lazy var parameterNames: [String?] = (0..<Int(sqlite3_bind_parameter_count(sqliteStatement))).map {
        guard let cName = sqlite3_bind_parameter_name(sqliteStatement, CInt($0 + 1)) else { return nil }
        let name = String(cString: cName)
        // "?NNN" parameters are positional; ":name", "$name", "@name" are named.
        return name.hasPrefix("?") ? nil : String(name.dropFirst())
    }

    /// The number of parameters.
    var parameterCount: Int { parameterNames.count }

    /// True when every parameter is positional: plain positional arguments
    /// then bind without any name lookup.
    private lazy var hasOnlyPositionalParameters = parameterNames.allSatisfy { $0 == nil }

    /// The number of distinct parameter names when every parameter is named,
    /// nil otherwise: named arguments then bind by direct lookup.
    private lazy var distinctNamedParameterCount: Int? =
        parameterNames.contains(where: { $0 == nil }) ? nil : Set(parameterNames.compactMap { $0 }).count

    /// The column names, computed once.
    public private(set) lazy var columnNames: [String] = (0..<Int(sqlite3_column_count(sqliteStatement))).map {
        String(cString: sqlite3_column_name(sqliteStatement, CInt($0)))
    }

    /// The number of columns.
    public var columnCount: Int { Int(sqlite3_column_count(sqliteStatement)) }

    /// True when the statement does not write to the database.
    /// See <https://www.sqlite.org/c3ref/stmt_readonly.html>.
    public var isReadonly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

    init(database: Database, sqliteStatement: SQLiteStatement) {
        self.database = database
        self.sqliteStatement = sqliteStatement
    }

    deinit {
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

    /// Checks that the arguments fit the statement's parameters, and throws an
    /// error naming the problem otherwise.
    public func validateArguments(_ arguments: StatementArguments) throws {
        var consumer = ArgumentsConsumer(arguments)
        _ = try consumer.values(for: self)
        try consumer.checkFullyConsumed(sql: sql)
    }

    /// Validates and sets the arguments of the next executions.
    public func setArguments(_ arguments: StatementArguments) throws {
        var consumer = ArgumentsConsumer(arguments)
        let values = try consumer.values(for: self)
        try consumer.checkFullyConsumed(sql: sql)
        try bind(values, arguments: arguments)
    }

    /// Sets arguments without validation (missing values are bound as NULL).
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        var consumer = ArgumentsConsumer(arguments)
        let values = consumer.uncheckedValues(for: self)
        try? bind(values, arguments: arguments)
    }

    /// Binds values that were extracted for this statement.
    func bind(_ values: [DatabaseValue], arguments: StatementArguments) throws {
        sqlite3_reset(sqliteStatement)
        try values.withUnsafeBufferPointer { buffer in
            for index in 0..<buffer.count {
                let code = buffer[index].bind(to: sqliteStatement, at: CInt(index + 1))
                guard code == SQLITE_OK else {
                    throw database.error(code: code, sql: sql, arguments: arguments)
                }
            }
        }
        self.arguments = arguments
    }

    /// Sets the arguments for one execution, on the fast path when they are
    /// exactly the positional values the statement expects.
    @inline(__always)
    func prepareExecution(arguments newArguments: StatementArguments?) throws {
        try database.checkAccess(for: self)
        if mayChangeSchema { database.schemaCache.removeAll() }
        guard let newArguments else {
            sqlite3_reset(sqliteStatement)
            return
        }
        if newArguments.namedValues.isEmpty && newArguments.values.count == parameterCount
            && hasOnlyPositionalParameters
        {
            try bind(newArguments.values, arguments: newArguments)
        } else if newArguments.values.isEmpty, let distinctCount = distinctNamedParameterCount,
            distinctCount == newArguments.namedValues.count, try bindNamed(newArguments)
        {
            return
        } else {
            try setArguments(newArguments)
        }
    }

    /// Binds named arguments by looking each parameter up, when they are
    /// exactly the statement's names (same count, all found). Returns false,
    /// having bound nothing for sure, when a name is missing: the general path
    /// then reports the error.
    private func bindNamed(_ arguments: StatementArguments) throws -> Bool {
        sqlite3_reset(sqliteStatement)
        let namedValues = arguments.namedValues
        for (offset, name) in parameterNames.enumerated() {
            guard let name, let value = namedValues[name] else { return false }
            let code = value.bind(to: sqliteStatement, at: CInt(offset + 1))
            guard code == SQLITE_OK else {
                throw database.error(code: code, sql: sql, arguments: arguments)
            }
        }
        self.arguments = arguments
        return true
    }

    // MARK: Execution

    /// Executes the statement, stepping through all its rows.
    ///
    /// - parameter arguments: Arguments replacing the current ones, if any.
    /// - throws: ``DatabaseError`` when the arguments do not fit or SQLite fails.
    public func execute(arguments: StatementArguments? = nil) throws {
        try prepareExecution(arguments: arguments)
        while true {
            let code = sqlite3_step(sqliteStatement)
            if code == SQLITE_DONE { break }
            if code != SQLITE_ROW { throw stepError(code) }
        }
        sqlite3_reset(sqliteStatement)
    }

    /// Steps once: true when a row is available, false when done.
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(sqliteStatement)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw stepError(code)
    }

    /// The error for a failed step, read before anything else can overwrite it.
    func stepError(_ code: CInt) -> DatabaseError {
        let error = database.error(code: code, sql: sql, arguments: arguments)
        sqlite3_reset(sqliteStatement)
        return error
    }

    /// Resets the statement so that it releases its read lock.
    func reset() {
        sqlite3_reset(sqliteStatement)
    }
}

@available(*, unavailable, message: "Statements are confined to their database access block")
extension Statement: Sendable {}

extension Statement: CustomStringConvertible {
    /// The SQL of the statement.
    public var description: String { sql }
}

/// Takes the values for successive statements out of one set of arguments, so
/// that statements separated by semicolons consume positional values in order.
struct ArgumentsConsumer {
    private let arguments: StatementArguments
    private var position = 0
    private var usedNames: Set<String> = []

    init(_ arguments: StatementArguments) {
        self.arguments = arguments
    }

    /// The values for the statement's parameters, in order.
    mutating func values(for statement: Statement) throws -> [DatabaseValue] {
        let names = statement.parameterNames
        var result: [DatabaseValue] = []
        result.reserveCapacity(names.count)
        for name in names {
            if let name, let value = arguments.namedValues[name] {
                usedNames.insert(name)
                result.append(value)
            } else if position < arguments.values.count {
                result.append(arguments.values[position])
                position += 1
            } else if let name {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "missing statement argument: \(name)",
                    sql: statement.sql)
            } else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "wrong number of statement arguments: \(arguments.values.count) given, more expected",
                    sql: statement.sql)
            }
        }
        return result
    }

    /// Values for each parameter, NULL where none is given.
    mutating func uncheckedValues(for statement: Statement) -> [DatabaseValue] {
        statement.parameterNames.map { name in
            if let name, let value = arguments.namedValues[name] { return value }
            if position < arguments.values.count {
                defer { position += 1 }
                return arguments.values[position]
            }
            return .null
        }
    }

    /// Throws when a positional value was not used, or a named value matched
    /// no parameter.
    func checkFullyConsumed(sql: String?) throws {
        if position < arguments.values.count {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(arguments.values.count) given, \(position) expected",
                sql: sql)
        }
        let unused = Set(arguments.namedValues.keys).subtracting(usedNames)
        if !unused.isEmpty {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "unknown statement argument\(unused.count > 1 ? "s" : ""): \(unused.sorted().joined(separator: ", "))",
                sql: sql)
        }
    }
}
