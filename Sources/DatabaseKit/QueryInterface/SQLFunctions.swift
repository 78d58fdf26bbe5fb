// SQL functions of the query interface, spelled as in GRDB:
// `Player.select(max(Column("score")))`, `Column("name") ?? "Anonymous"`.

/// `ABS(value)`.
public func abs(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .function("ABS", [value.sqlExpression])
}

/// `AVG(value) [FILTER (WHERE filter)]`.
public func average(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("AVG", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `COALESCE(a, b, ...)`: NULL for no value, the value itself for one.
public func coalesce(_ values: some Collection<any SQLSpecificExpressible>) -> SQLExpression {
    guard let first = values.first else { return .null }
    return values.count == 1 ? first.sqlExpression : .function("COALESCE", values.map(\.sqlExpression))
}

/// `COUNT(value)`.
public func count(_ counted: some SQLSpecificExpressible) -> SQLExpression {
    .function("COUNT", [counted.sqlExpression])
}

/// `COUNT(DISTINCT value)`.
public func count(distinct value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("COUNT", [value.sqlExpression], distinct: true)
}

extension SQLSpecificExpressible {
    /// `IFNULL(lhs, rhs)`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression])
    }
}

/// `LENGTH(value)`.
public func length(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .function("LENGTH", [value.sqlExpression])
}

/// `MAX(a, b, ...)`, the largest of several values (not an aggregate).
public func max(
    _ value1: some SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...
) -> SQLExpression {
    .function("MAX", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression))
}

/// `MAX(value) [FILTER (WHERE filter)]`, the aggregate.
public func max(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("MAX", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `MIN(a, b, ...)`, the smallest of several values (not an aggregate).
public func min(
    _ value1: some SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...
) -> SQLExpression {
    .function("MIN", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression))
}

/// `MIN(value) [FILTER (WHERE filter)]`, the aggregate.
public func min(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("MIN", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `SUM(value [ORDER BY ordering]) [FILTER (WHERE filter)]`: NULL for no
/// row (see ``total(_:orderBy:filter:)``).
public func sum(
    _ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil
) -> SQLExpression {
    .aggregate("SUM", [value.sqlExpression], ordering: ordering?.sqlOrdering, filter: filter?.sqlExpression)
}

/// `TOTAL(value [ORDER BY ordering]) [FILTER (WHERE filter)]`: 0.0 for no row.
public func total(
    _ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil
) -> SQLExpression {
    .aggregate("TOTAL", [value.sqlExpression], ordering: ordering?.sqlOrdering, filter: filter?.sqlExpression)
}

// MARK: - Strings

extension SQLSpecificExpressible {
    /// The value through Swift's `String.capitalized` (a function every
    /// connection has).
    public var capitalized: SQLExpression { DatabaseFunction.capitalize(sqlExpression) }

    /// The value through Swift's `String.lowercased()`.
    public var lowercased: SQLExpression { DatabaseFunction.lowercase(sqlExpression) }

    /// The value through Swift's `String.uppercased()`.
    public var uppercased: SQLExpression { DatabaseFunction.uppercase(sqlExpression) }
}

// MARK: - Dates

/// A modifier of SQLite's date functions: `dateTime(Column("date"), .startOfDay)`.
public enum SQLDateModifier: SQLSpecificExpressible, Sendable {
    /// `'N seconds'`.
    case second(Double)
    /// `'N minutes'`.
    case minute(Int)
    /// `'N hours'`.
    case hour(Int)
    /// `'N days'`.
    case day(Int)
    /// `'N months'`.
    case month(Int)
    /// `'N years'`.
    case year(Int)
    /// `'start of day'`.
    case startOfDay
    /// `'start of month'`.
    case startOfMonth
    /// `'start of year'`.
    case startOfYear
    /// `'weekday N'`.
    case weekday(Int)
    /// `'unixepoch'`.
    case unixEpoch
    /// `'localtime'`.
    case localTime
    /// `'utc'`.
    case utc

    /// The modifier, as a bound string.
    public var sqlExpression: SQLExpression { text.sqlExpression }

    private var text: String {
        switch self {
        case .second(let value): "\(value) seconds"
        case .minute(let value): "\(value) minutes"
        case .hour(let value): "\(value) hours"
        case .day(let value): "\(value) days"
        case .month(let value): "\(value) months"
        case .year(let value): "\(value) years"
        case .startOfDay: "start of day"
        case .startOfMonth: "start of month"
        case .startOfYear: "start of year"
        case .weekday(let value): "weekday \(value)"
        case .unixEpoch: "unixepoch"
        case .localTime: "localtime"
        case .utc: "utc"
        }
    }
}

/// `JULIANDAY(value, modifiers...)`.
public func julianDay(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("JULIANDAY", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}

/// `DATETIME(value, modifiers...)`.
public func dateTime(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("DATETIME", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}
