/// The right side of `IN`: a list of values, a subquery, or a table (a
/// common table expression).
struct SQLCollection: Sendable {
    enum Impl: Sendable {
        case array([SQLExpression])
        case subquery(SQLSubquery)
        case table(String)
    }

    let impl: Impl

    static func array(_ expressions: [SQLExpression]) -> SQLCollection { SQLCollection(impl: .array(expressions)) }

    static func subquery(_ subquery: SQLSubquery) -> SQLCollection { SQLCollection(impl: .subquery(subquery)) }

    static func table(_ name: String) -> SQLCollection { SQLCollection(impl: .table(name)) }

    func qualified(with table: SQLQualifier) -> SQLCollection {
        guard case .array(let expressions) = impl else { return self }
        return .array(expressions.map { $0.qualified(with: table) })
    }

    /// `value IN (...)`; for a list of one, `value = item` (which evaluates
    /// as `IN` does, NULL included); for an empty list, false.
    func contains(_ value: SQLExpression) -> SQLExpression {
        guard case .array(let expressions) = impl else { return SQLExpression(.inCollection(value, self, negated: false)) }
        guard let first = expressions.first else { return false.sqlExpression }
        if expressions.count == 1 { return .compare(.equal, value, first) }
        return SQLExpression(.inCollection(value, self, negated: false))
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .array(let expressions): try "(" + expressions.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .subquery(let subquery): try "(" + subquery.sql(context) + ")"
        case .table(let name): name.quotedDatabaseIdentifier
        }
    }
}
