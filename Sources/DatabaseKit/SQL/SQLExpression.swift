import Foundation

// The SQL building blocks that SQL interpolation accepts, as GRDB names them:
// expressions (values, columns, SQL literals, function calls), selections
// (an expression with an optional alias, `*`), and orderings (`ASC`, `DESC`).
// DatabaseKit has no query interface: these exist so that `\(Column("name"))`,
// `\(Column("score").desc)` and friends build the same SQL as with GRDB.

/// An SQL expression: a value, a column, an SQL literal, or a function call.
public struct SQLExpression: Sendable {
    indirect enum Impl: Sendable {
        /// A bound value; NULL is written `NULL`.
        case value(DatabaseValue)
        /// A column, qualified with a table name or not.
        case column(String, table: String?)
        /// Raw SQL with its arguments.
        case literal(SQL)
        /// A function call, such as `lower(name)`.
        case function(String, [SQLExpression])
        /// An expression with a collation: `name COLLATE NOCASE`.
        case collated(SQLExpression, String)
        /// An arithmetic operation: `score + 1`.
        case binary(String, SQLExpression, SQLExpression)
        /// `CAST(expression AS type)`.
        case cast(SQLExpression, String)
    }

    let impl: Impl

    init(_ impl: Impl) { self.impl = impl }

    /// A bound value (`?`), or `NULL`.
    static func value(_ dbValue: DatabaseValue) -> SQLExpression { SQLExpression(.value(dbValue)) }

    /// A column.
    static func column(_ name: String) -> SQLExpression { SQLExpression(.column(name, table: nil)) }

    /// Raw SQL.
    static func literal(_ sql: SQL) -> SQLExpression { SQLExpression(.literal(sql)) }

    /// NULL.
    static let null = SQLExpression(.value(.null))

    /// The expression qualified with a table: `"player"."name"`.
    func qualified(with table: String) -> SQLExpression {
        switch impl {
        case .column(let name, nil): return SQLExpression(.column(name, table: table))
        case .function(let name, let arguments): return SQLExpression(.function(name, arguments.map { $0.qualified(with: table) }))
        case .collated(let expression, let collation): return SQLExpression(.collated(expression.qualified(with: table), collation))
        case let .binary(op, lhs, rhs): return SQLExpression(.binary(op, lhs.qualified(with: table), rhs.qualified(with: table)))
        case let .cast(expression, type): return SQLExpression(.cast(expression.qualified(with: table), type))
        default: return self
        }
    }

    /// The SQL of the expression, with its arguments added to the context.
    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .value(let dbValue):
            if dbValue.isNull { return "NULL" }
            return context.append(value: dbValue)
        case let .column(name, table):
            if let table { return table.quotedDatabaseIdentifier + "." + name.quotedDatabaseIdentifier }
            return name.quotedDatabaseIdentifier
        case .literal(let sql):
            return try sql.sql(context)
        case let .function(name, arguments):
            return try name + "(" + arguments.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case let .collated(expression, collation):
            return try expression.sql(context) + " COLLATE " + collation
        case let .binary(op, lhs, rhs):
            return try lhs.operandSQL(context) + " " + op + " " + rhs.operandSQL(context)
        case let .cast(expression, type):
            return try "CAST(" + expression.sql(context) + " AS " + type + ")"
        }
    }

    /// The SQL of an operand: an operation is parenthesized.
    private func operandSQL(_ context: SQLGenerationContext) throws -> String {
        if case .binary = impl { return try "(" + sql(context) + ")" }
        return try sql(context)
    }
}

/// A type that is an SQL expression: values, columns, SQL literals.
public protocol SQLExpressible {
    /// The expression.
    var sqlExpression: SQLExpression { get }
}

/// A type that can be selected: `\(Column("name"))`, `\(Column("name").forKey("n"))`,
/// `\(AllColumns())`.
public protocol SQLSelectable {
    /// The selection.
    var sqlSelection: SQLSelection { get }
}

/// A type that can sort: `\(Column("score").desc)`.
public protocol SQLOrderingTerm {
    /// The ordering.
    var sqlOrdering: SQLOrdering { get }
}

/// An expression that is not a plain value: a column, an SQL literal, a
/// function call. It can be selected and used for sorting.
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLSpecificExpressible {
    /// The expression, selected.
    public var sqlSelection: SQLSelection { SQLSelection(.expression(sqlExpression)) }

    /// The expression, sorting in ascending order.
    public var sqlOrdering: SQLOrdering { SQLOrdering(.expression(sqlExpression)) }

    /// Ascending order: `score ASC`.
    public var asc: SQLOrdering { SQLOrdering(.asc(sqlExpression)) }

    /// Descending order: `score DESC`.
    public var desc: SQLOrdering { SQLOrdering(.desc(sqlExpression)) }

    /// Ascending order, NULL last: `score ASC NULLS LAST`.
    public var ascNullsLast: SQLOrdering { SQLOrdering(.ascNullsLast(sqlExpression)) }

    /// Descending order, NULL first: `score DESC NULLS FIRST`.
    public var descNullsFirst: SQLOrdering { SQLOrdering(.descNullsFirst(sqlExpression)) }

    /// The expression selected under a name: `score AS total`.
    public func forKey(_ key: String) -> SQLSelection {
        SQLSelection(.aliased(sqlExpression, key))
    }

    /// The expression selected under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> SQLSelection {
        forKey(key.stringValue)
    }

    /// The expression with a collation: `name COLLATE NOCASE`.
    public func collating(_ collation: Database.CollationName) -> SQLExpression {
        SQLExpression(.collated(sqlExpression, collation.rawValue))
    }

    /// The expression with a custom collation.
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        SQLExpression(.collated(sqlExpression, collation.name.quotedDatabaseIdentifier))
    }
}

extension SQLExpression: SQLSpecificExpressible {
    /// Returns self.
    public var sqlExpression: SQLExpression { self }
}

/// What a statement selects: an expression, possibly aliased, or all columns.
public struct SQLSelection: Sendable {
    enum Impl: Sendable {
        case expression(SQLExpression)
        case aliased(SQLExpression, String)
        case allColumns(table: String?)
        case literal(SQL)
    }

    let impl: Impl

    init(_ impl: Impl) { self.impl = impl }

    /// True for `*`.
    var isAllColumns: Bool {
        if case .allColumns(nil) = impl { return true }
        return false
    }

    /// The selection qualified with a table.
    func qualified(with table: String) -> SQLSelection {
        switch impl {
        case .expression(let expression): return SQLSelection(.expression(expression.qualified(with: table)))
        case let .aliased(expression, name): return SQLSelection(.aliased(expression.qualified(with: table), name))
        case .allColumns(nil): return SQLSelection(.allColumns(table: table))
        default: return self
        }
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .expression(let expression):
            return try expression.sql(context)
        case let .aliased(expression, name):
            return try expression.sql(context) + " AS " + name.quotedDatabaseIdentifier
        case .allColumns(let table):
            return table.map { $0.quotedDatabaseIdentifier + ".*" } ?? "*"
        case .literal(let sql):
            return try sql.sql(context)
        }
    }
}

extension SQLSelection: SQLSelectable {
    /// Returns self.
    public var sqlSelection: SQLSelection { self }
}

/// How a statement sorts.
public struct SQLOrdering: Sendable {
    enum Impl: Sendable {
        case expression(SQLExpression)
        case asc(SQLExpression)
        case desc(SQLExpression)
        case ascNullsLast(SQLExpression)
        case descNullsFirst(SQLExpression)
        case literal(SQL)
    }

    let impl: Impl

    init(_ impl: Impl) { self.impl = impl }

    /// Reverses the order: ASC becomes DESC, and the other way around.
    public var reversed: SQLOrdering {
        switch impl {
        case .expression(let e), .asc(let e): return SQLOrdering(.desc(e))
        case .desc(let e): return SQLOrdering(.asc(e))
        case .ascNullsLast(let e): return SQLOrdering(.descNullsFirst(e))
        case .descNullsFirst(let e): return SQLOrdering(.ascNullsLast(e))
        case .literal: return self
        }
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .expression(let e): return try e.sql(context)
        case .asc(let e): return try e.sql(context) + " ASC"
        case .desc(let e): return try e.sql(context) + " DESC"
        case .ascNullsLast(let e): return try e.sql(context) + " ASC NULLS LAST"
        case .descNullsFirst(let e): return try e.sql(context) + " DESC NULLS FIRST"
        case .literal(let sql): return try sql.sql(context)
        }
    }
}

extension SQLOrdering: SQLOrderingTerm {
    /// Returns self.
    public var sqlOrdering: SQLOrdering { self }
}

/// All columns: `*`, or `"player".*` in `\(columnsOf: Player.self)`.
public struct AllColumns: Sendable, SQLSelectable {
    /// All columns.
    public init() {}

    public var sqlSelection: SQLSelection { SQLSelection(.allColumns(table: nil)) }
}

extension SQLSelectable where Self == AllColumns {
    /// All columns: `*`.
    public static var allColumns: AllColumns { AllColumns() }
}

/// A column, named.
public protocol ColumnExpression: SQLSpecificExpressible {
    /// The column name.
    var name: String { get }
}

extension ColumnExpression {
    /// The column, quoted: `"name"`.
    public var sqlExpression: SQLExpression { .column(name) }

    /// The column, never qualified with a table.
    public var detached: SQLExpression { .literal(SQL(sql: name.quotedDatabaseIdentifier)) }
}

extension ColumnExpression where Self == Column {
    /// The `rowid` pseudo-column.
    public static var rowID: Self { Column.rowID }
}

extension ColumnExpression where Self: RawRepresentable, RawValue == String {
    /// The raw value: `enum Columns: String, ColumnExpression { case id, name }`.
    public var name: String { rawValue }
}

extension SQLSelectable where Self == Column {
    /// The `rowid` pseudo-column.
    public static var rowID: Self { Column.rowID }
}

// MARK: - Optional

extension Optional: SQLExpressible where Wrapped: SQLExpressible {
    /// The wrapped expression, or NULL.
    public var sqlExpression: SQLExpression { self?.sqlExpression ?? .null }
}

extension Optional: SQLSelectable where Wrapped: SQLSelectable {
    /// The wrapped selection, or NULL.
    public var sqlSelection: SQLSelection { self?.sqlSelection ?? SQLSelection(.expression(.null)) }
}

extension Optional: SQLOrderingTerm where Wrapped: SQLOrderingTerm {
    /// The wrapped ordering, or NULL.
    public var sqlOrdering: SQLOrdering { self?.sqlOrdering ?? SQLOrdering(.expression(.null)) }
}

extension Optional: SQLSpecificExpressible where Wrapped: SQLSpecificExpressible {}

extension DatabaseValue: SQLSpecificExpressible {
    /// The value, bound.
    public var sqlExpression: SQLExpression { .value(self) }
}

// MARK: - Generation

/// Where SQL is rendered: the connection, and the arguments gathered so far.
/// Values become `?` and arguments, or, in raw SQL (a view definition, which
/// can not have parameters), SQL literals.
final class SQLGenerationContext {
    let db: Database?
    private(set) var arguments = StatementArguments()
    let isRawSQL: Bool

    init(_ db: Database?, rawSQL: Bool = false) {
        self.db = db
        self.isRawSQL = rawSQL
    }

    /// `?` for the value, added to the arguments; its literal in raw SQL.
    func append(value: DatabaseValue) -> String {
        if isRawSQL { return value.sqlLiteral }
        arguments.append(value: value)
        return "?"
    }

    /// Adds raw SQL's arguments.
    func append(arguments other: StatementArguments) throws {
        if other.isEmpty { return }
        if isRawSQL {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "statement arguments can not be used here (SQLite does not allow parameters in this statement): interpolate values instead")
        }
        arguments.append(contentsOf: other)
    }
}

/// `CAST(expression AS storageClass)`.
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    SQLExpression(.cast(expression.sqlExpression, storageClass.rawValue))
}
