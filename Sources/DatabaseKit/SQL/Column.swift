/// A column name, for the record APIs that accept one:
///
/// ```swift
/// struct Player: EncodableRecord {
///     enum Columns {
///         static let name = Column("name")
///     }
///     func encode(to container: inout PersistenceContainer) {
///         container[Columns.name] = name
///     }
/// }
/// ```
public struct Column: Hashable, Sendable, CustomStringConvertible, ColumnExpression {
    /// The column name.
    public var name: String

    /// A column from its name.
    public init(_ name: String) { self.name = name }

    /// A column named after a coding key, for `Codable` records.
    public init(_ codingKey: some CodingKey) { self.name = codingKey.stringValue }

    /// The column name.
    public var description: String { name }

    /// The `rowid` pseudo-column.
    public static let rowID = Column("rowid")
}

