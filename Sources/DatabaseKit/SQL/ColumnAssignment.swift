/// An assignment of a column in an `UPDATE`, such as the `DO UPDATE SET`
/// clause of ``MutablePersistableRecord/upsertAndFetch(_:onConflict:updating:doUpdate:)``.
///
/// ```swift
/// Column("score").set(to: 0)         // "score" = 0
/// Column("score") += 1               // "score" = "score" + 1
/// Column("name").noOverwrite         // the upsert keeps the existing name
/// ```
public struct ColumnAssignment: Sendable {
    /// The assigned column.
    var columnName: String
    /// The new value; nil for "do not assign".
    var value: SQLExpression?

    /// `"column" = value`, or nil when nothing is assigned.
    func sql(_ context: SQLGenerationContext) throws -> String? {
        guard let value else { return nil }
        return try columnName.quotedDatabaseIdentifier + " = " + value.sql(context)
    }
}

extension ColumnExpression {
    /// Assigns a value or an expression to the column; nil is `NULL`.
    public func set(to value: (any SQLExpressible)?) -> ColumnAssignment {
        ColumnAssignment(columnName: name, value: value?.sqlExpression ?? .null)
    }

    /// Leaves the column unchanged: for an upsert, whose default is to
    /// overwrite every column.
    public var noOverwrite: ColumnAssignment {
        ColumnAssignment(columnName: name, value: nil)
    }
}

/// `"score" = "score" + value`.
public func += (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column + value)
}

/// `"score" = "score" - value`.
public func -= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column - value)
}

/// `"score" = "score" * value`.
public func *= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column * value)
}

/// `"score" = "score" / value`.
public func /= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column / value)
}

/// `"flags" = "flags" & value`.
public func &= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column & value)
}

/// `"flags" = "flags" | value`.
public func |= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column | value)
}

/// `"flags" = "flags" << value`.
public func <<= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column << value)
}

/// `"flags" = "flags" >> value`.
public func >>= (column: some ColumnExpression, value: some SQLExpressible) -> ColumnAssignment {
    column.set(to: column >> value)
}

/// How an upsert treats the columns its assignments do not name.
public struct UpsertUpdateStrategy: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Only the assigned columns are updated.
    public static let noColumnUnlessSpecified = UpsertUpdateStrategy([])

    /// Every column is overwritten with the inserted value, unless an
    /// assignment says otherwise. The default.
    public static let allColumns = UpsertUpdateStrategy(rawValue: 1 << 0)
}
