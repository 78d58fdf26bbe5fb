import FoundationEssentials

// The SQL building blocks of SQL interpolation and of the query interface:
// expressions (values, columns, operators, function calls), selections and
// orderings. The SQL they render is GRDB's, character for character, since
// applications log and compare it: operands that are operations are
// parenthesized, values are `?` parameters, NULL is `NULL`.

/// An SQL expression: a value, a column, an operation, a function call, raw SQL.
///
/// ```swift
/// let expression = Column("score") > 1000 && Column("name") != nil
/// let players = try Player.filter(expression).fetchAll(db)
/// ```
public struct SQLExpression: Sendable {
    indirect enum Impl: Sendable {
        /// A bound value; NULL is written `NULL`.
        case value(DatabaseValue)
        /// A column, qualified with a table name or not.
        case column(String, qualifier: SQLQualifier?)
        /// `(a, b)`.
        case rowValue([SQLExpression])
        /// `(SELECT ...)`.
        case subquery(SQLSubquery)
        /// Raw SQL with its arguments.
        case literal(SQL)
        /// `CAST(expression AS type)`.
        case cast(SQLExpression, String)
        /// `expression [NOT] BETWEEN lower AND upper`.
        case between(SQLExpression, lower: SQLExpression, upper: SQLExpression, negated: Bool)
        /// `lhs op rhs`, for the operators that are not associative: `<`, `-`, `/`, `<<`…
        case binary(String, SQLExpression, SQLExpression)
        /// `lhs [NOT] LIKE rhs [ESCAPE escape]`.
        case like(SQLExpression, SQLExpression, escape: SQLExpression?, negated: Bool)
        /// `a op b op c`, for `AND`, `OR`, `+`, `*`, `||`, `&`, `|`.
        case associative(SQLExpression.AssociativeBinaryOperator, [SQLExpression])
        /// `[NOT] EXISTS (subquery)`.
        case exists(SQLSubquery, negated: Bool)
        /// `expression [NOT] IN collection`.
        case inCollection(SQLExpression, SQLCollection, negated: Bool)
        /// `-a`, `~a`.
        case unary(String, SQLExpression)
        /// `=`, `<>`, `IS`, `IS NOT`.
        case compare(EqualityOperator, SQLExpression, SQLExpression)
        /// `NOT expression`.
        case not(SQLExpression)
        /// `expression COLLATE name`.
        case collated(SQLExpression, String)
        /// `COUNT(*)`.
        case countAll
        /// A function call, such as `LENGTH(name)`.
        case function(String, [SQLExpression])
        /// An aggregate function call: `COUNT(DISTINCT name)`, `SUM(x) FILTER (WHERE ...)`.
        case aggregate(AggregateInvocation)
        /// `expression = 0`, `expression > 0`.
        case isEmpty(SQLExpression, negated: Bool)
        /// Whether a joined row exists: its primary key is not NULL.
        case aliasExists(TableAliasBase, negated: Bool)
        /// The rowid of a table, under the name its primary key gives it,
        /// or its single-column primary key: `"book"."id"`. Unqualified
        /// until an association aggregate gives it its table.
        case fastPrimaryKey(TableAliasBase?)
    }

    /// The comparison operators whose negation is another operator.
    enum EqualityOperator: String, Sendable {
        case equal = "="
        case notEqual = "<>"
        case `is` = "IS"
        case isNot = "IS NOT"

        var negated: EqualityOperator {
            switch self {
            case .equal: .notEqual
            case .notEqual: .equal
            case .is: .isNot
            case .isNot: .is
            }
        }
    }

    /// An aggregate function call.
    struct AggregateInvocation: Sendable {
        var name: String
        var arguments: [SQLExpression]
        var isDistinct = false
        var ordering: SQLOrdering?
        var filter: SQLExpression?
    }

    let impl: Impl

    init(_ impl: Impl) { self.impl = impl }

    // MARK: Building blocks

    /// A bound value (`?`), or `NULL`.
    static func value(_ dbValue: DatabaseValue) -> SQLExpression { SQLExpression(.value(dbValue)) }

    /// A column.
    static func column(_ name: String) -> SQLExpression { SQLExpression(.column(name, qualifier: nil)) }

    /// Raw SQL.
    static func literal(_ sql: SQL) -> SQLExpression { SQLExpression(.literal(sql)) }

    /// NULL.
    static let null = SQLExpression(.value(.null))

    /// `COUNT(*)`.
    static let countAll = SQLExpression(.countAll)

    /// A row value: the expression itself when there is one, nil for none.
    static func rowValue(_ expressions: [SQLExpression]) -> SQLExpression? {
        guard let first = expressions.first else { return nil }
        return expressions.count == 1 ? first : SQLExpression(.rowValue(expressions))
    }

    /// `lhs op rhs`; a collation on either side goes to the whole comparison
    /// (`a < b COLLATE NOCASE`), as GRDB writes it.
    static func binary(_ op: String, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case let .collated(inner, collation) = lhs.impl { return binary(op, inner, rhs).collated(collation) }
        if case let .collated(inner, collation) = rhs.impl { return binary(op, lhs, inner).collated(collation) }
        return SQLExpression(.binary(op, lhs, rhs))
    }

    /// `lhs = rhs`, `lhs IS rhs`…; a collation goes to the whole comparison.
    static func compare(_ op: EqualityOperator, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case let .collated(inner, collation) = lhs.impl { return compare(op, inner, rhs).collated(collation) }
        if case let .collated(inner, collation) = rhs.impl { return compare(op, lhs, inner).collated(collation) }
        return SQLExpression(.compare(op, lhs, rhs))
    }

    /// `lhs = rhs`, or `IS NULL` when either side is NULL.
    static func equal(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .value(let value) = rhs.impl, value.isNull { return compare(.is, lhs, .null) }
        if case .value(let value) = lhs.impl, value.isNull { return compare(.is, rhs, .null) }
        return compare(.equal, lhs, rhs)
    }

    /// `expression BETWEEN lower AND upper`; a collation goes to the whole test.
    static func between(_ expression: SQLExpression, _ lower: SQLExpression, _ upper: SQLExpression, negated: Bool = false) -> SQLExpression {
        if case let .collated(inner, collation) = expression.impl {
            return between(inner, lower, upper, negated: negated).collated(collation)
        }
        return SQLExpression(.between(expression, lower: lower, upper: upper, negated: negated))
    }

    /// `a op b op c`: nested operations of a strictly associative operator
    /// are flattened; no operand gives the operator's neutral value, one
    /// operand gives the operand.
    static func associative(_ op: AssociativeBinaryOperator, _ operands: [SQLExpression]) -> SQLExpression {
        var flattened: [SQLExpression] = []
        flattened.reserveCapacity(operands.count)
        for operand in operands {
            if op.isStrictlyAssociative, case let .associative(inner, nested) = operand.impl, inner == op {
                flattened += nested
            } else {
                flattened.append(operand)
            }
        }
        guard let first = flattened.first else { return .value(op.neutralValue) }
        return flattened.count == 1 ? first : SQLExpression(.associative(op, flattened))
    }

    /// A function call; the known aggregate functions are aggregates
    /// (`MIN` and `MAX` of several values are not).
    static func function(_ name: String, _ arguments: [SQLExpression]) -> SQLExpression {
        let upper = name.uppercased()
        if (upper == "MIN" || upper == "MAX") && arguments.count > 1 { return SQLExpression(.function(name, arguments)) }
        if aggregateFunctions.contains(upper) { return SQLExpression(.aggregate(AggregateInvocation(name: name, arguments: arguments))) }
        return SQLExpression(.function(name, arguments))
    }

    /// An aggregate function call.
    static func aggregate(
        _ name: String, _ arguments: [SQLExpression], distinct: Bool = false, ordering: SQLOrdering? = nil, filter: SQLExpression? = nil
    ) -> SQLExpression {
        SQLExpression(.aggregate(AggregateInvocation(name: name, arguments: arguments, isDistinct: distinct, ordering: ordering, filter: filter)))
    }

    private static let aggregateFunctions: Set<String> = [
        "AVG", "COUNT", "GROUP_CONCAT", "JSON_GROUP_ARRAY", "JSON_GROUP_OBJECT", "MAX", "MIN", "SUM", "TOTAL",
    ]

    /// The expression with a collation. A collation of `IN` goes to its
    /// left operand (SQLite reads it there), of `AND`/`OR` to each operand.
    func collated(_ collation: String) -> SQLExpression {
        switch impl {
        case let .inCollection(expression, collection, negated):
            return SQLExpression(.inCollection(expression.collated(collation), collection, negated: negated))
        case let .associative(op, operands):
            return .associative(op, operands.map { $0.collated(collation) })
        default:
            return SQLExpression(.collated(self, collation))
        }
    }

    // MARK: Truth tests

    /// How `==` and `!` test an expression for truth.
    enum BooleanTest {
        case isTrue, isFalse, falsey
    }

    /// `expression == true`, `expression == false`, `!expression`, with the
    /// negations SQL has a word for (`<>`, `IS NOT`, `NOT IN`, `NOT LIKE`…).
    func test(_ test: BooleanTest) -> SQLExpression {
        func compared() -> SQLExpression {
            switch test {
            case .isTrue: return .compare(.equal, self, true.sqlExpression)
            case .isFalse: return .compare(.equal, self, false.sqlExpression)
            case .falsey: return SQLExpression(.not(self))
            }
        }
        switch impl {
        case .value(let value):
            if value.isNull { return .null }
            if case .int64(let int) = value.storage, int == 0 || int == 1 {
                return test == .isTrue ? (int == 1).sqlExpression : (int == 0).sqlExpression
            }
            return compared()
        case let .between(expression, lower, upper, negated) where test == .falsey:
            return SQLExpression(.between(expression, lower: lower, upper: upper, negated: !negated))
        case let .like(lhs, rhs, escape, negated) where test == .falsey:
            return SQLExpression(.like(lhs, rhs, escape: escape, negated: !negated))
        case let .exists(subquery, negated) where test == .falsey:
            return SQLExpression(.exists(subquery, negated: !negated))
        case let .inCollection(expression, collection, negated) where test == .falsey:
            return SQLExpression(.inCollection(expression, collection, negated: !negated))
        case let .compare(op, lhs, rhs) where test == .falsey:
            return SQLExpression(.compare(op.negated, lhs, rhs))
        case let .collated(expression, collation):
            return expression.test(test).collated(collation)
        case let .isEmpty(expression, negated):
            return test == .isTrue ? self : SQLExpression(.isEmpty(expression, negated: !negated))
        case let .aliasExists(alias, negated) where test == .falsey:
            return SQLExpression(.aliasExists(alias, negated: !negated))
        default:
            return compared()
        }
    }

    // MARK: Qualification

    /// The expression with its columns qualified with a table: `"player"."name"`.
    func qualified(with table: SQLQualifier) -> SQLExpression {
        switch impl {
        case .value, .subquery, .countAll, .exists, .aliasExists:
            return self
        case .fastPrimaryKey(let alias):
            guard alias == nil, case .alias(let qualifier) = table else { return self }
            return SQLExpression(.fastPrimaryKey(qualifier))
        case .literal(let sql):
            return SQLExpression(.literal(sql.qualified(with: table)))
        case .column(let name, let current):
            return current == nil ? SQLExpression(.column(name, qualifier: table)) : self
        case .rowValue(let expressions):
            return SQLExpression(.rowValue(expressions.map { $0.qualified(with: table) }))
        case let .cast(expression, type):
            return SQLExpression(.cast(expression.qualified(with: table), type))
        case let .between(expression, lower, upper, negated):
            return SQLExpression(
                .between(expression.qualified(with: table), lower: lower.qualified(with: table), upper: upper.qualified(with: table), negated: negated))
        case let .binary(op, lhs, rhs):
            return SQLExpression(.binary(op, lhs.qualified(with: table), rhs.qualified(with: table)))
        case let .like(lhs, rhs, escape, negated):
            return SQLExpression(.like(lhs.qualified(with: table), rhs.qualified(with: table), escape: escape?.qualified(with: table), negated: negated))
        case let .associative(op, operands):
            return SQLExpression(.associative(op, operands.map { $0.qualified(with: table) }))
        case let .inCollection(expression, collection, negated):
            return SQLExpression(.inCollection(expression.qualified(with: table), collection.qualified(with: table), negated: negated))
        case let .unary(op, expression):
            return SQLExpression(.unary(op, expression.qualified(with: table)))
        case let .compare(op, lhs, rhs):
            return SQLExpression(.compare(op, lhs.qualified(with: table), rhs.qualified(with: table)))
        case .not(let expression):
            return SQLExpression(.not(expression.qualified(with: table)))
        case let .collated(expression, collation):
            return SQLExpression(.collated(expression.qualified(with: table), collation))
        case let .function(name, arguments):
            return SQLExpression(.function(name, arguments.map { $0.qualified(with: table) }))
        case .aggregate(var invocation):
            invocation.arguments = invocation.arguments.map { $0.qualified(with: table) }
            invocation.ordering = invocation.ordering?.qualified(with: table)
            invocation.filter = invocation.filter?.qualified(with: table)
            return SQLExpression(.aggregate(invocation))
        case let .isEmpty(expression, negated):
            return SQLExpression(.isEmpty(expression.qualified(with: table), negated: negated))
        }
    }

    // MARK: Properties the request generator reads

    /// True for an aggregate: a request that selects one (without GROUP BY)
    /// gives a single row.
    var isAggregate: Bool {
        switch impl {
        case .countAll, .aggregate: return true
        case let .collated(expression, _), let .unary(_, expression), let .not(expression), let .cast(expression, _):
            return expression.isAggregate
        case let .binary(_, lhs, rhs), let .compare(_, lhs, rhs):
            return lhs.isAggregate || rhs.isAggregate
        case let .associative(_, operands):
            return operands.contains { $0.isAggregate }
        default: return false
        }
    }

    /// True when the expression has one value in a request: a value, or an
    /// operation of values.
    private var isConstant: Bool {
        switch impl {
        case .value: return true
        case let .rowValue(operands), let .associative(_, operands): return operands.allSatisfy(\.isConstant)
        case let .cast(expression, _), let .unary(_, expression), let .not(expression), let .collated(expression, _):
            return expression.isConstant
        case let .binary(_, lhs, rhs), let .compare(_, lhs, rhs): return lhs.isConstant && rhs.isConstant
        case let .function(name, arguments): return Self.pureFunctions.contains(name.uppercased()) && arguments.allSatisfy(\.isConstant)
        default: return false
        }
    }

    private static let pureFunctions: Set<String> = [
        "ABS", "CHAR", "COALESCE", "GLOB", "HEX", "IFNULL", "IIF", "INSTR", "LENGTH", "LIKE", "LIKELIHOOD", "LIKELY", "LOWER", "LTRIM",
        "NULLIF", "PRINTF", "QUOTE", "REPLACE", "ROUND", "RTRIM", "SOUNDEX", "SUBSTR", "TRIM", "TYPEOF", "UNICODE", "UNLIKELY", "UPPER",
    ]

    /// The columns a filter pins to one value each (`a = 1 AND b = 2` pins
    /// `a` and `b`): a request filtered on a unique key needs no `LIMIT 1`
    /// to fetch one row. Lowercased names; empty when in doubt.
    /// With an alias, only the columns of its table count.
    func identifyingColumns(of alias: TableAliasBase? = nil) -> Set<String> {
        func column(_ expression: SQLExpression) -> String? {
            guard case .column(let name, let qualifier) = expression.impl else { return nil }
            if let alias, case .alias(let other)? = qualifier, other != alias { return nil }
            return name.lowercased()
        }
        switch impl {
        case let .compare(.equal, lhs, rhs), let .compare(.is, lhs, rhs):
            if let name = column(lhs), rhs.isConstant { return [name] }
            if let name = column(rhs), lhs.isConstant { return [name] }
            return []
        case let .collated(expression, _):
            return expression.identifyingColumns(of: alias)
        case let .associative(op, operands) where op == .and:
            return operands.reduce(into: []) { $0.formUnion($1.identifyingColumns(of: alias)) }
        default:
            return []
        }
    }

    // MARK: SQL

    /// The SQL of the expression, with its arguments added to the context;
    /// `parenthesized` wraps an operation in parentheses, as an operand.
    func sql(_ context: SQLGenerationContext, parenthesized: Bool = false) throws -> String {
        let sql: String
        switch impl {
        case .value(let dbValue):
            return dbValue.isNull ? "NULL" : context.append(value: dbValue)
        case let .column(name, qualifier):
            if let prefix = qualifier?.prefix(context) { return prefix + name.quotedDatabaseIdentifier }
            return name.quotedDatabaseIdentifier
        case .rowValue(let expressions):
            return try "(" + expressions.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .subquery(let subquery):
            return try "(" + subquery.sql(context) + ")"
        case .literal(let literal):
            sql = try literal.sql(context)
        case let .cast(expression, type):
            return try "CAST(" + expression.sql(context) + " AS " + type + ")"
        case let .between(expression, lower, upper, negated):
            sql = try expression.sql(context, parenthesized: true) + (negated ? " NOT BETWEEN " : " BETWEEN ")
                + lower.sql(context, parenthesized: true) + " AND " + upper.sql(context, parenthesized: true)
        case let .binary(op, lhs, rhs):
            sql = try lhs.sql(context, parenthesized: true) + " " + op + " " + rhs.sql(context, parenthesized: true)
        case let .like(lhs, rhs, escape, negated):
            var text = try lhs.sql(context, parenthesized: true) + (negated ? " NOT LIKE " : " LIKE ") + rhs.sql(context, parenthesized: true)
            if let escape { text += try " ESCAPE " + escape.sql(context, parenthesized: true) }
            sql = text
        case let .associative(op, operands):
            sql = try operands.map { try $0.sql(context, parenthesized: true) }.joined(separator: " " + op.sql + " ")
        case let .exists(subquery, negated):
            sql = try (negated ? "NOT EXISTS (" : "EXISTS (") + subquery.sql(context) + ")"
        case let .inCollection(expression, collection, negated):
            sql = try expression.sql(context, parenthesized: true) + (negated ? " NOT IN " : " IN ") + collection.sql(context)
        case let .unary(op, expression):
            sql = try op + expression.sql(context, parenthesized: true)
        case let .compare(op, lhs, rhs):
            sql = try lhs.sql(context, parenthesized: true) + " " + op.rawValue + " " + rhs.sql(context, parenthesized: true)
        case .not(let expression):
            sql = try "NOT " + expression.sql(context, parenthesized: true)
        case let .collated(expression, collation):
            sql = try expression.sql(context) + " COLLATE " + collation
        case .countAll:
            return "COUNT(*)"
        case let .function(name, arguments):
            return try name + "(" + arguments.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .aggregate(let invocation):
            var text = invocation.name + (invocation.isDistinct ? "(DISTINCT " : "(")
            text += try invocation.arguments.map { try $0.sql(context) }.joined(separator: ", ")
            if let ordering = invocation.ordering { text += try " ORDER BY " + ordering.sql(context) }
            text += ")"
            guard let filter = invocation.filter else { return text }
            sql = try text + " FILTER (WHERE " + filter.sql(context) + ")"
        case let .isEmpty(expression, negated):
            sql = try expression.sql(context, parenthesized: true) + (negated ? " > 0" : " = 0")
        case .fastPrimaryKey(let alias):
            let db = try context.database(for: "an association aggregate")
            guard let alias, let table = alias.tableNameIfDefined else {
                throw DatabaseError.misuse("an association aggregate needs its table: use it in annotated(with:) or having(_:)")
            }
            let primaryKey = try db.primaryKey(table)
            let column = primaryKey.rowIDColumn ?? (primaryKey.tableHasRowID ? "rowid" : primaryKey.columns.count == 1 ? primaryKey.columns[0] : nil)
            guard let column else {
                throw DatabaseError.misuse("association aggregates need a rowid or a single-column primary key in \(table)")
            }
            return try alias[column].sql(context, parenthesized: parenthesized)
        case let .aliasExists(alias, negated):
            // The rowid or primary key, as GRDB tests it.
            let db = try context.database(for: "TableAlias.exists")
            guard let table = alias.tableNameIfDefined else { throw DatabaseError.misuse("TableAlias.exists needs an alias given to a request") }
            let columns: [String]
            if try db.viewExists(table) {
                // A view has the primary key the configuration's schema
                // source gives it, else every column is tested.
                if let primaryKey = try? db.primaryKey(table) {
                    columns = primaryKey.columns
                } else {
                    columns = try db.columns(in: table).map(\.name)
                }
            } else {
                let primaryKey = try db.primaryKey(table)
                columns = primaryKey.rowIDColumn.map { [$0] } ?? (primaryKey.tableHasRowID ? ["rowid"] : primaryKey.columns)
            }
            let tests = columns.map { SQLExpression.compare(negated ? .is : .isNot, alias[$0], .null) }
            return try SQLExpression.associative(negated ? .and : .or, tests).sql(context, parenthesized: parenthesized)
        }
        return parenthesized ? "(" + sql + ")" : sql
    }
}

extension SQLExpression {
    /// An operator whose operations chain: `a AND b AND c`, `a + b + c`.
    ///
    /// ```swift
    /// // "score" + "bonus" + 1000
    /// [Column("score"), Column("bonus"), 1000.databaseValue].joined(operator: .add)
    /// ```
    public struct AssociativeBinaryOperator: Hashable, Sendable {
        let sql: String
        let neutralValue: DatabaseValue
        /// `(a • b) • c` is exactly `a • (b • c)`: not so for `+` and `*` on
        /// floating-point values, which are never regrouped.
        let isStrictlyAssociative: Bool

        /// `+`; no operand is 0.
        public static let add = AssociativeBinaryOperator(sql: "+", neutralValue: 0.databaseValue, isStrictlyAssociative: false)
        /// `*`; no operand is 1.
        public static let multiply = AssociativeBinaryOperator(sql: "*", neutralValue: 1.databaseValue, isStrictlyAssociative: false)
        /// `AND`; no operand is true.
        public static let and = AssociativeBinaryOperator(sql: "AND", neutralValue: true.databaseValue, isStrictlyAssociative: true)
        /// `OR`; no operand is false.
        public static let or = AssociativeBinaryOperator(sql: "OR", neutralValue: false.databaseValue, isStrictlyAssociative: true)
        /// `||`, string concatenation; no operand is `''`.
        public static let concat = AssociativeBinaryOperator(sql: "||", neutralValue: "".databaseValue, isStrictlyAssociative: true)
        /// `&`, bitwise AND; no operand is -1.
        public static let bitwiseAnd = AssociativeBinaryOperator(sql: "&", neutralValue: (-1).databaseValue, isStrictlyAssociative: true)
        /// `|`, bitwise OR; no operand is 0.
        public static let bitwiseOr = AssociativeBinaryOperator(sql: "|", neutralValue: 0.databaseValue, isStrictlyAssociative: true)
    }
}

extension Sequence where Element == any SQLExpressible {
    /// The expressions joined by an operator: `[a, b, c].joined(operator: .and)`
    /// is `a AND b AND c`; no expression gives the operator's neutral value.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`, map(\.sqlExpression))
    }
}

extension Sequence where Element: SQLExpressible {
    /// The expressions joined by an operator: `[a, b, c].joined(operator: .and)`
    /// is `a AND b AND c`; no expression gives the operator's neutral value.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`, map(\.sqlExpression))
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

/// An expression that is not a plain value: a column, an SQL literal, an
/// operation, a function call. It can be selected, sort, and take operators.
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
        sqlExpression.collated(collation.rawValue)
    }

    /// The expression with a custom collation.
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        sqlExpression.collated(collation.name.quotedDatabaseIdentifier)
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
        case allColumns(qualifier: SQLQualifier?)
        case allColumnsExcluding([String], qualifier: SQLQualifier?)
        case literal(SQL)
    }

    let impl: Impl

    init(_ impl: Impl) { self.impl = impl }

    /// True for `*`.
    var isAllColumns: Bool {
        if case .allColumns(nil) = impl { return true }
        return false
    }

    /// True for an aggregate: `COUNT(*)`, `MAX(score) AS best`.
    var isAggregate: Bool {
        switch impl {
        case .expression(let expression), .aliased(let expression, _): return expression.isAggregate
        default: return false
        }
    }

    /// The selection qualified with a table.
    func qualified(with table: SQLQualifier) -> SQLSelection {
        switch impl {
        case .expression(let expression): return SQLSelection(.expression(expression.qualified(with: table)))
        case let .aliased(expression, name): return SQLSelection(.aliased(expression.qualified(with: table), name))
        case .allColumns(nil): return SQLSelection(.allColumns(qualifier: table))
        case .allColumnsExcluding(let columns, nil): return SQLSelection(.allColumnsExcluding(columns, qualifier: table))
        default: return self
        }
    }

    func sql(_ context: SQLGenerationContext, table: String? = nil) throws -> String {
        switch impl {
        case .expression(let expression):
            return try expression.sql(context)
        case let .aliased(expression, name):
            return try expression.sql(context) + " AS " + name.quotedDatabaseIdentifier
        case .allColumns(let qualifier):
            return (qualifier?.prefix(context) ?? "") + "*"
        case let .allColumnsExcluding(excluded, qualifier):
            guard let db = context.db, let source = qualifier?.tableName ?? table else {
                throw DatabaseError.misuse("allColumns(excluding:) needs the table it selects from")
            }
            let excludedNames = Set(excluded.map { $0.lowercased() })
            let columns = try db.columns(in: source).map(\.name).filter { !excludedNames.contains($0.lowercased()) }
            let prefix = qualifier?.prefix(context) ?? ""
            return columns.map { prefix + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
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

    /// True for raw SQL, which can not be reversed.
    var isLiteral: Bool {
        if case .literal = impl { return true }
        return false
    }

    /// The ordering qualified with a table.
    func qualified(with table: SQLQualifier) -> SQLOrdering {
        switch impl {
        case .expression(let e): return SQLOrdering(.expression(e.qualified(with: table)))
        case .asc(let e): return SQLOrdering(.asc(e.qualified(with: table)))
        case .desc(let e): return SQLOrdering(.desc(e.qualified(with: table)))
        case .ascNullsLast(let e): return SQLOrdering(.ascNullsLast(e.qualified(with: table)))
        case .descNullsFirst(let e): return SQLOrdering(.descNullsFirst(e.qualified(with: table)))
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
    let excluded: [String]

    /// All columns.
    public init() { excluded = [] }

    /// All columns but some: `Player.select(AllColumns(excluding: ["largeBlob"]))`.
    public init(excluding excluded: some Collection<String>) { self.excluded = Array(excluded) }

    public var sqlSelection: SQLSelection {
        excluded.isEmpty ? SQLSelection(.allColumns(qualifier: nil)) : SQLSelection(.allColumnsExcluding(excluded, qualifier: nil))
    }
}

extension SQLSelectable where Self == AllColumns {
    /// All columns: `*`.
    public static var allColumns: AllColumns { AllColumns() }

    /// All columns but some.
    public static func allColumns(excluding excluded: some Collection<String>) -> AllColumns { AllColumns(excluding: excluded) }

    /// All columns but some.
    public static func allColumns(excluding excluded: some Collection<some ColumnExpression>) -> AllColumns {
        AllColumns(excluding: excluded.map(\.name))
    }
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
    /// The tables of the queries being rendered, innermost last: each with
    /// the names its aliases resolve to.
    private var aliasScopes: [AliasScope] = []

    init(_ db: Database?, rawSQL: Bool = false) {
        self.db = db
        self.isRawSQL = rawSQL
    }

    /// The connection, for the parts of SQL that read the schema.
    func database(for what: @autoclosure () -> String) throws -> Database {
        guard let db else { throw DatabaseError.misuse("\(what()) needs a database connection to build its SQL") }
        return db
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

    // MARK: Table aliases

    /// The tables of one query (its source and joins) and their names.
    private struct AliasScope {
        /// The resolved name of each table, by alias identity.
        var names: [ObjectIdentifier: String]
    }

    /// Renders `body` in a query whose tables are `aliases`. Tables of the
    /// same name get a numeric suffix (`"player1"`, `"player2"`), as GRDB
    /// names them; a name chosen by the application stays.
    func withAliases<T>(_ aliases: [TableAliasBase], _ body: () throws -> T) throws -> T {
        var names: [ObjectIdentifier: String] = [:]
        var identities = Set<ObjectIdentifier>()
        var groups: [String: [TableAliasBase]] = [:]
        var groupOrder: [String] = []
        for alias in aliases {
            let identity = alias.identity
            guard identities.insert(identity).inserted else {
                throw DatabaseError.misuse("a TableAlias must not be used to refer to several tables")
            }
            let key = alias.identityName.lowercased()
            if groups[key] == nil { groupOrder.append(key) }
            groups[key, default: []].append(alias)
        }
        var taken = Set(groupOrder.filter { groups[$0]!.count == 1 })
        for key in groupOrder {
            let group = groups[key]!
            if group.count == 1 {
                names[group[0].identity] = group[0].identityName
                continue
            }
            if group.filter(\.hasUserName).count > 1 {
                throw DatabaseError.misuse("ambiguous alias: \(group[0].identityName)")
            }
            var index = 1
            for alias in group {
                if alias.hasUserName {
                    names[alias.identity] = alias.identityName
                    continue
                }
                let radical = alias.identityName.digitlessRadical
                var name: String
                repeat {
                    name = "\(radical)\(index)"
                    index += 1
                } while taken.contains(name.lowercased())
                taken.insert(name.lowercased())
                names[alias.identity] = name
            }
        }
        aliasScopes.append(AliasScope(names: names))
        defer { aliasScopes.removeLast() }
        return try body()
    }

    /// The qualifier of a column of this table: none when the query reads
    /// only this table, its resolved name otherwise; a name the application
    /// chose always shows.
    func qualifier(for alias: TableAliasBase) -> String? {
        if alias.hasUserName { return alias.identityName }
        let identity = alias.identity
        if let scope = aliasScopes.last, scope.names[identity] != nil {
            return scope.names.count > 1 ? scope.names[identity] : nil
        }
        return resolvedName(for: alias)
    }

    /// The name of the table in the query: its table name, a numeric suffix
    /// when several tables have the same name, or the application's name.
    func resolvedName(for alias: TableAliasBase) -> String {
        let identity = alias.identity
        for scope in aliasScopes.reversed() {
            if let name = scope.names[identity] { return name }
        }
        return alias.identityName
    }
}

extension String {
    /// The name without its trailing digits: `"player2"` gives `"player"`.
    fileprivate var digitlessRadical: String {
        String(reversed().drop(while: \.isNumber).reversed())
    }
}

/// What qualifies a column: a table name written as is (`"excluded"`), or
/// a ``TableAlias`` whose name the query decides.
enum SQLQualifier: Sendable {
    case table(String)
    case alias(TableAliasBase)

    /// `"name".`, or nothing when the query needs no qualifier.
    func prefix(_ context: SQLGenerationContext) -> String? {
        switch self {
        case .table(let name): return name.quotedDatabaseIdentifier + "."
        case .alias(let alias): return context.qualifier(for: alias).map { $0.quotedDatabaseIdentifier + "." }
        }
    }

    /// The table the columns belong to.
    var tableName: String? {
        switch self {
        case .table(let name): return name
        case .alias(let alias): return alias.tableNameIfDefined
        }
    }
}

/// `CAST(expression AS storageClass)`.
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    SQLExpression(.cast(expression.sqlExpression, storageClass.rawValue))
}
