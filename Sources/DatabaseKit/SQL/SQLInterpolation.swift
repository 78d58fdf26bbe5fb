import FoundationEssentials

/// The interpolations of ``SQL`` and ``SQLRequest`` literals.
///
/// Extend it to interpolate your own types:
///
/// ```swift
/// extension SQLInterpolation {
///     mutating func appendInterpolation(lowercased column: Column) {
///         appendLiteral("lower(")
///         appendInterpolation(column)
///         appendLiteral(")")
///     }
/// }
/// ```
public struct SQLInterpolation: StringInterpolationProtocol {
    var elements: [SQL.Element] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
        elements.reserveCapacity(interpolationCount * 2 + 1)
    }

    /// Literal SQL text.
    public mutating func appendLiteral(_ sql: String) {
        if !sql.isEmpty { elements.append(.sql(sql, StatementArguments())) }
    }

    /// `\(sql: "raw SQL", arguments: [...])`: SQL text, inserted as is, with its arguments.
    public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// `\(otherSQL)`: another SQL value, with its arguments.
    public mutating func appendInterpolation(_ sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// `\(literal: otherSQL)`: another SQL value, with its arguments.
    public mutating func appendInterpolation(literal sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// `\(string)`: a string, bound as an argument.
    public mutating func appendInterpolation<S: StringProtocol>(_ string: S) {
        elements.append(.expression(.value(DatabaseValue(storage: .string(String(string))))))
    }

    /// `\(identifier: name)`: a quoted identifier: `"name"`.
    public mutating func appendInterpolation(identifier: String) {
        appendLiteral(identifier.quotedDatabaseIdentifier)
    }

    // MARK: Expressions, selections, orderings

    /// `\(value)`, `\(Column("a"))`: an expression; values are bound as arguments.
    public mutating func appendInterpolation(_ expressible: some SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// `\(value)`: a value bound as an argument, or `NULL` for nil.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ expressible: (any SQLExpressible)?) {
        if let expressible {
            elements.append(.expression(expressible.sqlExpression))
        } else {
            appendLiteral("NULL")
        }
    }

    /// `\(Column("a").forKey("b"))`, `\(AllColumns())`: a selection.
    public mutating func appendInterpolation(_ selection: some SQLSelectable) {
        elements.append(.selection(selection.sqlSelection))
    }

    /// A selection, or `NULL` for nil.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ selection: (any SQLSelectable)?) {
        if let selection {
            elements.append(.selection(selection.sqlSelection))
        } else {
            appendLiteral("NULL")
        }
    }

    /// `\(Column("a").desc)`: an ordering.
    public mutating func appendInterpolation(_ orderingTerm: some SQLOrderingTerm) {
        elements.append(.ordering(orderingTerm.sqlOrdering))
    }

    /// An ordering.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ orderingTerm: any SQLOrderingTerm) {
        elements.append(.ordering(orderingTerm.sqlOrdering))
    }

    // MARK: Coding keys

    /// `\(CodingKeys.name)`: the column of a coding key.
    public mutating func appendInterpolation(_ key: some CodingKey) {
        appendInterpolation(Column(key.stringValue))
    }

    /// The column of a coding key.
    public mutating func appendInterpolation(_ key: some CodingKey & SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        appendInterpolation(Column(key.stringValue))
    }

    /// The column of a coding key.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ key: any CodingKey) {
        appendInterpolation(Column(key.stringValue))
    }

    // MARK: Lists

    /// `\([1, 2, 3])`: `(?,?,?)`, for `IN` clauses; an empty list gives
    /// `(SELECT NULL WHERE NULL)`, which matches nothing.
    public mutating func appendInterpolation(_ sequence: some Sequence<some SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// A list of expressions of various types.
    public mutating func appendInterpolation(_ sequence: some Sequence<any SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// A value that is also a sequence (`Data`) is a value.
    public mutating func appendInterpolation<S>(_ expressible: S) where S: SQLExpressible, S: Sequence, S.Element: SQLExpressible {
        elements.append(.expression(expressible.sqlExpression))
    }

    private mutating func appendList(_ expressions: [SQLExpression]) {
        guard !expressions.isEmpty else {
            appendLiteral("(SELECT NULL WHERE NULL)")
            return
        }
        appendLiteral("(")
        for (index, expression) in expressions.enumerated() {
            if index > 0 { appendLiteral(",") }
            elements.append(.expression(expression))
        }
        appendLiteral(")")
    }

    // MARK: Records

    /// `\(Player.self)`: the record's quoted table name.
    public mutating func appendInterpolation(_ table: (some TableRecord).Type) {
        appendLiteral(table.databaseTableName.quotedDatabaseIdentifier)
    }

    /// The record's quoted table name.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ table: any TableRecord.Type) {
        appendLiteral(table.databaseTableName.quotedDatabaseIdentifier)
    }

    /// `\(tableOf: player)`: the quoted table name of a record.
    public mutating func appendInterpolation(tableOf record: some TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// The quoted table name of a record.
    @_disfavoredOverload
    public mutating func appendInterpolation(tableOf record: any TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// `\(columnsOf: Player.self)`: the record's ``TableRecord/databaseSelection``,
    /// qualified with its table (or `tableAlias`): `"player".*`.
    public mutating func appendInterpolation(columnsOf recordType: (some TableRecord).Type, tableAlias: String? = nil) {
        let table = tableAlias ?? recordType.databaseTableName
        for (index, selectable) in recordType.databaseSelection.enumerated() {
            if index > 0 { appendLiteral(", ") }
            elements.append(.selection(selectable.sqlSelection.qualified(with: .table(table))))
        }
    }

    // MARK: Requests and collations

    /// `\(request)`: the SQL of a request, such as `SELECT ...` (write the
    /// parentheses of a subquery around it).
    public mutating func appendInterpolation(_ subquery: some SQLSubqueryable & SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.subquery(subquery.sqlSubquery))
    }

    /// `\(collation)`: the name of a custom collation.
    public mutating func appendInterpolation(_ collation: DatabaseCollation) {
        appendLiteral(collation.name)
    }

    /// `\(Database.CollationName.nocase)`: the name of a built-in collation.
    public mutating func appendInterpolation(_ collation: Database.CollationName) {
        appendLiteral(collation.rawValue)
    }
}
