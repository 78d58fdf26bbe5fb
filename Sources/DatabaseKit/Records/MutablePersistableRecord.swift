/// A record that can be inserted, updated, saved and deleted, and that may
/// change on insertion (typically to take its new id):
///
/// ```swift
/// struct Player: Codable, FetchableRecord, MutablePersistableRecord {
///     var id: Int64?
///     var name: String
///     var score: Int
///     mutating func didInsert(_ inserted: InsertionSuccess) {
///         id = inserted.rowID
///     }
/// }
/// var player = Player(id: nil, name: "Arthur", score: 1000)
/// try player.insert(db)
/// player.id  // the new id
/// ```
///
/// The record's primary key is the table's (``Database/primaryKey(_:in:)``).
///
/// The callbacks run in this order: `willSave`, `aroundSave` (around
/// everything that follows), then `willInsert`, `aroundInsert`,
/// `didInsert` for an insertion, or `willUpdate`, `aroundUpdate`,
/// `didUpdate` for an update, then `didSave`. Deletion has `willDelete`,
/// `aroundDelete`, `didDelete`. An `around` callback must call its function
/// and rethrow its error: otherwise the method throws `SQLITE_MISUSE`.
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// The conflict resolutions of `insert` and `update` without `onConflict:`.
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }

    /// Called before the record is inserted. Throwing cancels the insertion.
    mutating func willInsert(_ db: Database) throws
    /// Wraps the insertion, which `insert` performs.
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws
    /// Called after the record is inserted.
    mutating func didInsert(_ inserted: InsertionSuccess)

    /// Called before the record is updated. Throwing cancels the update.
    func willUpdate(_ db: Database, columns: Set<String>) throws
    /// Wraps the update, which `update` performs.
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws
    /// Called after the record is updated.
    func didUpdate(_ updated: PersistenceSuccess)

    /// Called before the record is inserted, updated, upserted or saved.
    func willSave(_ db: Database) throws
    /// Wraps the insertion or update, which `save` performs.
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws
    /// Called after the record is inserted, updated, upserted or saved.
    func didSave(_ saved: PersistenceSuccess)

    /// Called before the record is deleted. Throwing cancels the deletion.
    func willDelete(_ db: Database) throws
    /// Wraps the deletion, which `delete` performs.
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws
    /// Called after the deletion, with whether a row was deleted.
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }
    public mutating func willInsert(_ db: Database) throws {}
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { _ = try insert() }
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        _ = try update()
    }
    public func didUpdate(_ updated: PersistenceSuccess) {}
    public func willSave(_ db: Database) throws {}
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { _ = try save() }
    public func didSave(_ saved: PersistenceSuccess) {}
    public func willDelete(_ db: Database) throws {}
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    public func didDelete(deleted: Bool) {}

    /// The error of an `around` callback that did not call its function, or
    /// swallowed its error.
    func persistenceCallbackMisuse(_ callbackName: String) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: """
                Incorrect implementation of the `\(Self.self).\(callbackName)` persistence callback: \
                the action function was not called, or its error was not rethrown.
                """)
    }

    /// Runs `body` inside `aroundSave`, between `willSave` and `didSave`.
    /// Not generic: the plain insert, update and save pay no generic
    /// metadata lookups (this module is not specialized for the records
    /// of its clients).
    func withSaveCallbacks(_ db: Database, _ body: () throws -> PersistenceSuccess) throws {
        try willSave(db)
        var saved: PersistenceSuccess?
        try aroundSave(db) {
            let result = try body()
            saved = result
            return result
        }
        guard let saved else { throw persistenceCallbackMisuse("aroundSave") }
        didSave(saved)
    }

    /// Runs `body` inside `aroundSave`, between `willSave` and `didSave`,
    /// and returns what it fetched.
    func withSaveCallbacks<T>(_ db: Database, _ body: () throws -> (PersistenceSuccess, T)) throws -> T {
        try willSave(db)
        var success: (saved: PersistenceSuccess, returned: T)?
        try aroundSave(db) {
            let result = try body()
            success = result
            return result.0
        }
        guard let success else { throw persistenceCallbackMisuse("aroundSave") }
        didSave(success.saved)
        return success.returned
    }
}

// MARK: - Delete and exists

extension MutablePersistableRecord {
    /// Deletes the row with the record's primary key, and returns whether
    /// there was one.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try willDelete(db)
        var deleted: Bool?
        try aroundDelete(db) {
            let result = try deleteWithoutCallbacks(db)
            deleted = result
            return result
        }
        guard let deleted else { throw persistenceCallbackMisuse("aroundDelete") }
        didDelete(deleted: deleted)
        return deleted
    }

    private func deleteWithoutCallbacks(_ db: Database) throws -> Bool {
        let writer = try RecordWriter(db, self)
        guard let statement = try writer.deleteStatement() else { return false }
        return try writer.countingChanges { try statement.execute() }.changes > 0
    }

    /// True when a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        guard let statement = try RecordWriter(db, self).existsStatement() else { return false }
        return try Bool.fetchOne(statement) ?? false
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The error of this record not being in the database:
    /// ``RecordError/recordNotFound(databaseTableName:key:)`` with its
    /// primary key, or the error that prevented knowing it.
    public func recordNotFound(_ db: Database) -> any Error {
        do {
            let primaryKey = try db.primaryKey(type(of: self).databaseTableName)
            let container = try databaseContainer()
            let key = primaryKey.columns.map { ($0, container.databaseValue(forColumn: $0) ?? .null) }
            return RecordError.recordNotFound(
                databaseTableName: type(of: self).databaseTableName, key: Dictionary(key, uniquingKeysWith: { first, _ in first }))
        } catch {
            return error
        }
    }
}
