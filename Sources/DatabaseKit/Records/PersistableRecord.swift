/// A record that can be inserted, updated, saved and deleted, and that does
/// not change on insertion: `insert` and `save` are not mutating, so they
/// work on constants and on classes.
///
/// ```swift
/// struct Place: Codable, FetchableRecord, PersistableRecord {
///     var id: Int64
///     var title: String
/// }
/// try Place(id: 1, title: "Paris").insert(db)
/// ```
public protocol PersistableRecord: MutablePersistableRecord {
    /// Called before the record is inserted. Throwing cancels the insertion.
    func willInsert(_ db: Database) throws
    /// Called after the record is inserted.
    func didInsert(_ inserted: InsertionSuccess)
    /// Called before the record is saved.
    func willSave(_ db: Database) throws
    /// Called after the record is saved.
    func didSave(_ saved: PersistenceSuccess)
}

extension PersistableRecord {
    public func willInsert(_ db: Database) throws {}
    public func didInsert(_ inserted: InsertionSuccess) {}
    public func willSave(_ db: Database) throws {}
    public func didSave(_ saved: PersistenceSuccess) {}

    /// Inserts the record, then calls ``didInsert(_:)``.
    ///
    /// - parameter conflictResolution: `INSERT OR ...`; by default the
    ///   record's ``MutablePersistableRecord/persistenceConflictPolicy``.
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.performInsert(db, onConflict: conflictResolution)
    }

    /// Updates the record's row if it has one, inserts the record otherwise.
    public func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.performSave(db, onConflict: conflictResolution)
    }
}
