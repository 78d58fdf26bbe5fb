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
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// The conflict resolutions of `insert` and `update` without `onConflict:`.
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }

    /// Called before the record is inserted. Throwing cancels the insertion.
    mutating func willInsert(_ db: Database) throws
    /// Called after the record is inserted.
    mutating func didInsert(_ inserted: InsertionSuccess)
    /// Called before the record is updated. Throwing cancels the update.
    func willUpdate(_ db: Database, columns: Set<String>) throws
    /// Called after the record is updated.
    func didUpdate(_ updated: PersistenceSuccess)
    /// Called before the record is saved (then inserted or updated).
    mutating func willSave(_ db: Database) throws
    /// Called after the record is saved.
    mutating func didSave(_ saved: PersistenceSuccess)
    /// Called before the record is deleted. Throwing cancels the deletion.
    func willDelete(_ db: Database) throws
    /// Called after the deletion, with whether a row was deleted.
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }
    public mutating func willInsert(_ db: Database) throws {}
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    public func didUpdate(_ updated: PersistenceSuccess) {}
    public mutating func willSave(_ db: Database) throws {}
    public mutating func didSave(_ saved: PersistenceSuccess) {}
    public func willDelete(_ db: Database) throws {}
    public func didDelete(deleted: Bool) {}
}

extension MutablePersistableRecord {
    // MARK: Insert

    /// Inserts the record, then calls ``didInsert(_:)``.
    ///
    /// - parameter conflictResolution: `INSERT OR ...`; by default the
    ///   record's ``persistenceConflictPolicy``.
    /// - throws: ``DatabaseError`` on a constraint violation or any SQLite error.
    public mutating func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws
    {
        try performInsert(db, onConflict: conflictResolution)
    }

    /// The insertion of both `insert` methods (mutating, and non-mutating for
    /// ``PersistableRecord``).
    @discardableResult
    mutating func performInsert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws
        -> InsertionSuccess
    {
        try willInsert(db)
        let inserted = try RecordWriter.insert(
            self, db, onConflict: conflictResolution ?? Self.persistenceConflictPolicy.conflictResolutionForInsert)
        didInsert(inserted)
        return inserted
    }

    /// Inserts a copy of the record, and returns it after ``didInsert(_:)``.
    public func inserted(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws
        -> Self
    {
        var record = self
        try record.performInsert(db, onConflict: conflictResolution)
        return record
    }

    // MARK: Update

    /// Updates every column of the row with the record's primary key.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   no row has the key; ``DatabaseError`` on any SQLite error.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try performUpdate(db, container: databaseContainer(), columns: nil, onConflict: conflictResolution)
    }

    /// Updates some columns of the row with the record's primary key.
    ///
    /// ```swift
    /// try player.update(db, columns: ["score"])
    /// ```
    public func update(
        _ db: Database, columns: some Sequence<String>,
        onConflict conflictResolution: Database.ConflictResolution? = nil
    ) throws {
        try performUpdate(
            db, container: databaseContainer(), columns: Set(columns.map { $0.lowercased() }),
            onConflict: conflictResolution)
    }

    /// The update of every `update` method, of the record encoded in `container`.
    private func performUpdate(
        _ db: Database, container: PersistenceContainer, columns: Set<String>?,
        onConflict conflictResolution: Database.ConflictResolution?
    ) throws {
        try willUpdate(db, columns: columns ?? Set(container.columns))
        try RecordWriter.update(
            container, Self.databaseTableName, db, columns: columns,
            onConflict: conflictResolution ?? Self.persistenceConflictPolicy.conflictResolutionForUpdate)
        didUpdate(PersistenceSuccess(persistenceContainer: container))
    }

    /// Updates the row when the record differs from `other` (its previous
    /// version), writing only the columns that changed. Returns whether a
    /// change was written.
    @discardableResult
    public func updateChanges(_ db: Database, from other: Self) throws -> Bool {
        let old = try other.databaseContainer()
        let new = try databaseContainer()
        let changed = new.columns.indices.filter {
            old.databaseValue(forColumn: new.columns[$0]) != new.databaseValues[$0]
        }.map { new.columns[$0] }
        if changed.isEmpty { return false }
        try update(db, columns: changed)
        return true
    }

    // MARK: Save

    /// Updates the record's row if it has one, inserts the record otherwise.
    public mutating func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws
    {
        try performSave(db, onConflict: conflictResolution)
    }

    /// The save of both `save` methods.
    mutating func performSave(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try willSave(db)
        // Encoded once for the key check and the update; an insertion encodes
        // again, after willInsert, which may change the record.
        let container = try databaseContainer()
        if try RecordWriter.hasNonNullPrimaryKey(container, Self.databaseTableName, db) {
            do {
                try performUpdate(db, container: container, columns: nil, onConflict: conflictResolution)
                didSave(PersistenceSuccess(persistenceContainer: container))
                return
            } catch RecordError.recordNotFound {
                // Not in the database yet: insert below.
            }
        }
        let inserted = try performInsert(db, onConflict: conflictResolution)
        didSave(PersistenceSuccess(persistenceContainer: inserted.persistenceContainer))
    }

    /// Saves a copy of the record, and returns it.
    public func saved(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.performSave(db, onConflict: conflictResolution)
        return record
    }

    // MARK: Delete and exists

    /// Deletes the row with the record's primary key, and returns whether
    /// there was one.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try willDelete(db)
        let filter = try KeyFilter(db, table: Self.databaseTableName, container: databaseContainer())
        let deleted = try filter.delete(db)
        didDelete(deleted: deleted)
        return deleted
    }

    /// True when a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        try KeyFilter(db, table: Self.databaseTableName, container: databaseContainer()).exists(db)
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Inserts the record and returns the inserted row as a new record, with
    /// the values SQLite gave (defaults, the new id), with `RETURNING *`.
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws -> Self
    {
        var record = self
        try record.willInsert(db)
        let (sql, arguments) = try RecordWriter.insertStatement(
            record, db,
            onConflict: conflictResolution ?? Self.persistenceConflictPolicy.conflictResolutionForInsert)
        guard let fetched = try Self.fetchOne(db, sql: sql + " RETURNING *", arguments: arguments) else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }
}
