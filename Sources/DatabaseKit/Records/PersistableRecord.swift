/// A record that can be inserted, updated, saved and deleted, and that does
/// not change on insertion: `insert`, `save` and `upsert` are not mutating,
/// so they work on constants and on classes.
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
}

// The non-mutating methods run their mutating counterparts on a copy: the
// callbacks of a PersistableRecord do not mutate, so the copy is the record.
extension PersistableRecord {
    public func willInsert(_ db: Database) throws {}
    public func didInsert(_ inserted: InsertionSuccess) {}

    /// Inserts the record; see ``MutablePersistableRecord/insert(_:onConflict:)``.
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.insertWithSaveCallbacks(db, onConflict: conflictResolution)
    }

    /// Inserts the record and returns the inserted row decoded as `T`.
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.insertAndFetchWithSaveCallbacks(
            db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRecord(T.self, db))
    }

    /// Inserts the record, and returns what `fetch` reads from the statement.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.insertAndFetchWithSaveCallbacks(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Updates or inserts the record; see ``MutablePersistableRecord/save(_:onConflict:)``.
    public func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.saveWithSaveCallbacks(db, onConflict: conflictResolution)
    }

    /// Saves the record and returns the saved row decoded as `T`.
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.saveAndFetchWithSaveCallbacks(
            db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRecord(T.self, db))
    }

    /// Saves the record, and returns what `fetch` reads from the statement.
    public func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.saveAndFetchWithSaveCallbacks(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Upserts the record; see ``MutablePersistableRecord/upsert(_:)``.
    public func upsert(_ db: Database) throws {
        var record = self
        try record.upsertWithSaveCallbacks(db)
    }

    /// Upserts the record and returns the inserted or updated row.
    public func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        var record = self
        return try record.upsertAndFetchWithSaveCallbacks(
            db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Upserts the record and returns the row decoded as `T`.
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        var record = self
        return try record.upsertAndFetchWithSaveCallbacks(
            db, as: T.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }
}
