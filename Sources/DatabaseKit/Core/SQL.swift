/// SQL built with string interpolation: interpolated values become bound
/// arguments, never text spliced into the SQL.
///
/// ```swift
/// let name = "O'Brien"
/// let query: SQL = "SELECT * FROM player WHERE name = \(name)"
/// // SELECT * FROM player WHERE name = ?  with arguments ["O'Brien"]
///
/// let table = "player"
/// let count: SQL = "SELECT COUNT(*) FROM \(sql: table)"  // raw SQL
/// let both: SQL = query + " LIMIT \(10)"                  // SQL values compose
/// ```
public struct SQL: Sendable {
    /// The pieces, in order.
    private var elements: [Element]

    fileprivate enum Element: Sendable {
        case sql(String, StatementArguments)
        case value(DatabaseValue)
    }

    /// Creates SQL from raw SQL and its arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements = [.sql(sql, arguments)]
    }

    /// Creates SQL that holds a single bound value (`?`).
    public init(_ value: some DatabaseValueConvertible) {
        elements = [.value(value.databaseValue)]
    }

    private init(elements: [Element]) {
        self.elements = elements
    }

    /// True when there is no SQL text and no argument.
    public var isEmpty: Bool {
        elements.allSatisfy {
            if case let .sql(sql, arguments) = $0 { return sql.isEmpty && arguments.isEmpty }
            return false
        }
    }

    /// The SQL text, with `?` for each interpolated value, and the arguments.
    public func build() -> (sql: String, arguments: StatementArguments) {
        var sql = ""
        var arguments = StatementArguments()
        for element in elements {
            switch element {
            case let .sql(text, elementArguments):
                sql += text
                arguments += elementArguments
            case let .value(value):
                sql += "?"
                arguments += StatementArguments(values: [value], namedValues: [:])
            }
        }
        return (sql, arguments)
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

extension SQL: ExpressibleByStringInterpolation {
    /// Raw SQL with no argument.
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    /// SQL built by interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self.init(elements: stringInterpolation.elements)
    }

    /// The interpolations `SQL` accepts.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var elements: [Element] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            elements.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Literal SQL text.
        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { elements.append(.sql(literal, StatementArguments())) }
        }

        /// `\(value)`: a bound argument.
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            elements.append(.value(value.databaseValue))
        }

        /// `\(optionalValue)`: a bound argument, NULL when nil.
        public mutating func appendInterpolation(_ value: (any DatabaseValueConvertible)?) {
            elements.append(.value(value?.databaseValue ?? .null))
        }

        /// `\(sql: "raw SQL")`: SQL text, inserted as is, with its arguments.
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
    }
}

extension Sequence where Element == SQL {
    /// Joins SQL values with a separator: `[a, b].joined(separator: ", ")`.
    public func joined(separator: String = "") -> SQL {
        var result = SQL(sql: "")
        for (index, element) in enumerated() {
            if index > 0 { result.append(sql: separator) }
            result += element
        }
        return result
    }
}

/// A request built from SQL, that fetches rows, values, or records.
///
/// ```swift
/// let request: SQLRequest<Player> = "SELECT * FROM player WHERE id = \(id)"
/// let player = try request.fetchOne(db)
/// let names = try String.fetchAll(db, SQLRequest<String>(literal: "SELECT name FROM player"))
/// ```
public struct SQLRequest<RowDecoder>: Sendable {
    /// The SQL and its arguments.
    public let sqlLiteral: SQL

    /// The adapter applied to the fetched rows, if any.
    public let adapter: (any RowAdapter)?

    /// A request from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) {
        sqlLiteral = SQL(sql: sql, arguments: arguments)
        self.adapter = adapter
    }

    /// A request from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
    }

    /// The request with an adapter.
    public func adapted(_ adapter: some RowAdapter) -> SQLRequest {
        SQLRequest(literal: sqlLiteral, adapter: adapter)
    }

    /// The compiled statement, its arguments, and the adapter.
    func makeStatement(_ db: Database) throws -> (Statement, StatementArguments, (any RowAdapter)?) {
        let (sql, arguments) = sqlLiteral.build()
        return (try db.reusableStatement(sql: sql), arguments, adapter)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: SQL.StringInterpolation) {
        self.init(literal: SQL(stringInterpolation: stringInterpolation))
    }
}
