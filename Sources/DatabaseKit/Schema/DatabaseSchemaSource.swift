import FoundationEssentials

/// A type that tells what SQLite does not know about the schema: the
/// primary key of a view, so that records can be fetched from it by key.
///
/// ```swift
/// struct MySchemaSource: DatabaseSchemaSource {
///     func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
///         view.name == "playerView" ? ["id"] : nil
///     }
/// }
/// var config = Configuration()
/// config.schemaSource = MySchemaSource()
/// ```
///
/// Migrations run without the schema source (a migration must not depend on
/// it); ``Database/withSchemaSource(_:execute:)`` enables one for a while.
public protocol DatabaseSchemaSource: Sendable {
    /// The primary key columns of a view, nil for no customization, or an
    /// empty array for a view without a primary key. The columns must exist
    /// in the view, and identify its rows. Default: nil.
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]?
}

extension DatabaseSchemaSource {
    public func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        nil
    }

    /// A schema source that asks `other` when this one gives nothing.
    public func then(_ other: some DatabaseSchemaSource) -> some DatabaseSchemaSource {
        ChainedSchemaSource(first: self, second: other)
    }
}

/// Two schema sources, the first one first.
struct ChainedSchemaSource<First: DatabaseSchemaSource, Second: DatabaseSchemaSource>: DatabaseSchemaSource {
    let first: First
    let second: Second

    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        try first.columnsForPrimaryKey(db, inView: view) ?? second.columnsForPrimaryKey(db, inView: view)
    }
}

extension Database {
    /// Runs `block` with another schema source (nil for none).
    public func withSchemaSource<T>(_ schemaSource: (any DatabaseSchemaSource)?, execute block: () throws -> T) rethrows -> T {
        let previous = self.schemaSource
        if previous == nil && schemaSource == nil { return try block() }
        self.schemaSource = schemaSource
        clearSchemaCache()
        defer {
            self.schemaSource = previous
            clearSchemaCache()
        }
        return try block()
    }
}
