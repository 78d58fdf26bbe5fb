extension MutablePersistableRecord {
    /// Inserts the record (`INSERT`), with the insertion and save callbacks.
    ///
    /// - parameters:
    ///   - db: A connection.
    ///   - conflictResolution: `INSERT OR ...`; by default the record's
    ///     ``persistenceConflictPolicy``.
    /// - throws: ``DatabaseError`` on a constraint violation or any SQLite
    ///   error, or the error of a callback.
    public mutating func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try insertWithSaveCallbacks(db, onConflict: conflictResolution)
    }

    /// The insertion of the mutating and non-mutating `insert`.
    mutating func insertWithSaveCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try withSaveCallbacks(db) {
            try PersistenceSuccess(insertWithCallbacks(db, onConflict: conflictResolution))
        }
    }

    /// The insertion without `RETURNING`, between `willInsert` and
    /// `didInsert`, inside `aroundInsert`.
    mutating func insertWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws
        -> InsertionSuccess
    {
        try willInsert(db)
        // Read by the closure without copying it, where each read of the
        // captured `self` copied the record.
        let record = self
        var inserted: InsertionSuccess?
        try aroundInsert(db) {
            let writer = try RecordWriter(db, record)
            let statement = try writer.insertStatement(
                onConflict: conflictResolution ?? type(of: record).persistenceConflictPolicy.conflictResolutionForInsert,
                returning: [])
            try statement.execute()
            let result = InsertionSuccess(
                rowID: db.lastInsertedRowID, rowIDColumn: writer.primaryKey.rowIDColumn, insertedContainer: writer.container)
            inserted = result
            return result
        }
        guard let inserted else { throw persistenceCallbackMisuse("aroundInsert") }
        didInsert(inserted)
        return inserted
    }

    /// Inserts a copy of the record, and returns it after ``didInsert(_:)``.
    public func inserted(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.insert(db, onConflict: conflictResolution)
        return record
    }

    /// Inserts the record and returns the inserted row (`RETURNING`), with
    /// the values SQLite gave: defaults, the new id.
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        var record = self
        return try record.insertAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Inserts the record and returns the inserted row decoded as `T`,
    /// selected with `T.databaseSelection`.
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try insertAndFetchWithSaveCallbacks(
            db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRecord(T.self, db))
    }

    /// Inserts the record, and returns what `fetch` reads from the statement,
    /// whose `RETURNING` clause selects `selection`.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) when `selection` is empty.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try insertAndFetchWithSaveCallbacks(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// The insertion of the `insertAndFetch` methods.
    mutating func insertAndFetchWithSaveCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        if selection.isEmpty { throw DatabaseError.misuse("Invalid empty selection") }
        return try withSaveCallbacks(db) {
            let (inserted, returned) = try insertAndFetchWithCallbacks(
                db, onConflict: conflictResolution, selection: selection, fetch: fetch)
            return (PersistenceSuccess(inserted), returned)
        }
    }

    /// The insertion, between `willInsert` and `didInsert`, inside `aroundInsert`.
    mutating func insertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (InsertionSuccess, T) {
        try willInsert(db)
        var success: (inserted: InsertionSuccess, returned: T)?
        try aroundInsert(db) {
            let result = try insertAndFetchWithoutCallbacks(
                db, onConflict: conflictResolution, selection: selection, fetch: fetch)
            success = result
            return result.0
        }
        guard let success else { throw persistenceCallbackMisuse("aroundInsert") }
        didInsert(success.inserted)
        return success
    }

    private func insertAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (InsertionSuccess, T) {
        let writer = try RecordWriter(db, self)
        let statement = try writer.insertStatement(
            onConflict: conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForInsert,
            returning: selection)
        let returned = try fetch(statement)
        let inserted = InsertionSuccess(
            rowID: db.lastInsertedRowID, rowIDColumn: writer.primaryKey.rowIDColumn, insertedContainer: writer.container)
        return (inserted, returned)
    }
}
