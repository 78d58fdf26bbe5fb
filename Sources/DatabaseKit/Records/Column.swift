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
public struct Column: Hashable, Sendable, CustomStringConvertible {
    /// The column name.
    public let name: String

    /// A column from its name.
    public init(_ name: String) { self.name = name }

    /// A column named after a coding key, for `Codable` records.
    public init(_ codingKey: some CodingKey) { self.name = codingKey.stringValue }

    /// The column name.
    public var description: String { name }

    /// The `rowid` pseudo-column.
    public static let rowID = Column("rowid")
}

extension Row {
    /// The value of the column, or nil when NULL or missing.
    public subscript(_ column: Column) -> (any DatabaseValueConvertible)? { self[column.name] }

    /// The value of the column, converted. Stops the program when the
    /// conversion fails; see ``decode(_:forKey:)``.
    public subscript<Value: DatabaseValueConvertible>(_ column: Column) -> Value { self[column.name] }

    /// The value of the column, read straight from the statement.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: Column) -> Value {
        self[column.name]
    }
}
