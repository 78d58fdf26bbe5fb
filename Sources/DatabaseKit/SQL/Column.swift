/// A column of a table, for the query interface and the record APIs:
///
/// ```swift
/// struct Player: TableRecord {
///     enum Columns {
///         static let name = Column("name")
///         static let score = Column("score")
///     }
/// }
/// let best = try Player.filter(Player.Columns.score > 1000).order(Player.Columns.name).fetchAll(db)
/// ```
///
/// A column is an expression: `Column("name") == "Arthur"` is SQL, not a
/// Swift comparison (so a column is not `Equatable`, as in GRDB).
public struct Column: Sendable, ColumnExpression {
    /// The column name.
    public var name: String

    /// A column from its name.
    public init(_ name: String) { self.name = name }

    /// A column named after a coding key, for `Codable` records.
    public init(_ codingKey: some CodingKey) { self.name = codingKey.stringValue }

    /// The `rowid` pseudo-column.
    public static let rowID = Column("rowid")
}
