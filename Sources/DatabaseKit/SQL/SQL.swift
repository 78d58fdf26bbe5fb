import FoundationEssentials

/// SQL built with string interpolation: interpolated values become bound
/// arguments, never text spliced into the SQL.
///
/// ```swift
/// let name = "O'Brien"
/// let query: SQL = "SELECT * FROM player WHERE name = \(name)"
/// // SELECT * FROM player WHERE name = ?  with arguments ["O'Brien"]
///
/// let table = "player"
/// let count: SQL = "SELECT COUNT(*) FROM \(identifier: table)"  // "player", quoted
/// let ordered: SQL = query + " ORDER BY \(Column("score").desc)"
/// ```
///
/// Interpolations: values (`\(value)`, NULL for nil), raw SQL (`\(sql: "...")`),
/// other SQL (`\(literal: sql)`), identifiers (`\(identifier: name)`),
/// columns and orderings (`\(Column("a"))`, `\(Column("a").desc)`),
/// aliases (`\(Column("a").forKey("b"))`), lists of values
/// (`\([1, 2, 3])` gives `(?,?,?)`), records' tables and columns
/// (`\(Player.self)`, `\(tableOf: player)`, `\(columnsOf: Player.self)`),
/// and requests (`\(request)`), as in GRDB.
public struct SQL: Sendable {
    /// The pieces, in order.
    enum Element: Sendable {
        case sql(String, StatementArguments)
        case expression(SQLExpression)
        case selection(SQLSelection)
        case ordering(SQLOrdering)
        case subquery(SQLSubquery)

        var isEmpty: Bool {
            if case let .sql(sql, arguments) = self { return sql.isEmpty && arguments.isEmpty }
            return false
        }

        func sql(_ context: SQLGenerationContext) throws -> String {
            switch self {
            case let .sql(sql, arguments):
                try context.append(arguments: arguments)
                return sql
            case .expression(let expression): return try expression.sql(context)
            case .selection(let selection): return try selection.sql(context)
            case .ordering(let ordering): return try ordering.sql(context)
            case .subquery(let subquery): return try subquery.sql(context)
            }
        }

        func qualified(with table: SQLQualifier) -> Element {
            switch self {
            case .expression(let expression): return .expression(expression.qualified(with: table))
            case .selection(let selection): return .selection(selection.qualified(with: table))
            default: return self
            }
        }
    }

    private(set) var elements: [Element]

    init(elements: [Element]) {
        self.elements = elements
    }

    /// Creates SQL from raw SQL and its arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements = [.sql(sql, arguments)]
    }

    /// Creates SQL that holds an expression, such as a column.
    public init(_ expression: some SQLSpecificExpressible) {
        elements = [.expression(expression.sqlExpression)]
    }

    /// True when there is no SQL text and no argument.
    public var isEmpty: Bool {
        elements.allSatisfy(\.isEmpty)
    }

    /// The SQL text, with `?` for each interpolated value, and the arguments.
    ///
    /// ```swift
    /// let (sql, arguments) = try query.build(db)
    /// ```
    public func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        let context = SQLGenerationContext(db)
        let sql = try self.sql(context)
        return (sql, context.arguments)
    }

    /// The SQL text and arguments, for the places that have no connection
    /// at hand and interpolate no record columns.
    func build() throws -> (sql: String, arguments: StatementArguments) {
        let context = SQLGenerationContext(nil)
        let sql = try self.sql(context)
        return (sql, context.arguments)
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        // The common case, a single piece of SQL, allocates nothing more.
        if elements.count == 1 { return try elements[0].sql(context) }
        var result = ""
        for element in elements { result += try element.sql(context) }
        return result
    }

    /// The SQL with its columns qualified with a table.
    func qualified(with table: SQLQualifier) -> SQL {
        SQL(elements: elements.map { $0.qualified(with: table) })
    }

    /// Appends SQL.
    public mutating func append(literal sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// Appends raw SQL and its arguments.
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// Concatenates two SQL values.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    /// Appends `rhs` to `lhs`.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.elements += rhs.elements
    }
}

extension SQL: SQLSpecificExpressible {
    /// The SQL, as an expression.
    public var sqlExpression: SQLExpression { .literal(self) }

    /// The SQL, as a selection.
    public var sqlSelection: SQLSelection { SQLSelection(.literal(self)) }

    /// The SQL, as an ordering.
    public var sqlOrdering: SQLOrdering { SQLOrdering(.literal(self)) }
}

extension SQL: ExpressibleByStringInterpolation {
    /// Raw SQL with no argument.
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    /// Raw SQL with no argument.
    public init(unicodeScalarLiteral value: String) {
        self.init(sql: value)
    }

    /// Raw SQL with no argument.
    public init(extendedGraphemeClusterLiteral value: String) {
        self.init(sql: value)
    }

    /// SQL built by interpolation.
    public init(stringInterpolation: SQLInterpolation) {
        self.init(elements: stringInterpolation.elements)
    }
}

extension Sequence where Element == SQL {
    /// Joins SQL values with a separator: `[a, b].joined(separator: ", ")`.
    public func joined(separator: String = "") -> SQL {
        var elements: [SQL.Element] = []
        for (index, sql) in enumerated() {
            if index > 0 && !separator.isEmpty { elements.append(.sql(separator, StatementArguments())) }
            elements += sql.elements
        }
        return SQL(elements: elements)
    }
}

extension Collection where Element == SQL {
    /// Joins SQL values with a separator: `[a, b].joined(separator: ", ")`.
    public func joined(separator: String = "") -> SQL {
        var elements: [SQL.Element] = []
        for (index, sql) in enumerated() {
            if index > 0 && !separator.isEmpty { elements.append(.sql(separator, StatementArguments())) }
            elements += sql.elements
        }
        return SQL(elements: elements)
    }
}

/// `count` question marks separated by commas, for SQL with as many
/// arguments: `"?,?,?"` for 3, `""` for 0.
///
/// ```swift
/// let ids = [1, 2, 3]
/// let players = try Player.fetchAll(db,
///     sql: "SELECT * FROM player WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
///     arguments: StatementArguments(ids))
/// ```
public func databaseQuestionMarks(count: Int) -> String {
    repeatElement("?", count: max(count, 0)).joined(separator: ",")
}
