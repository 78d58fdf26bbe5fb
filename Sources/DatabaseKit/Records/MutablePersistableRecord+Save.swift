extension MutablePersistableRecord {
    /// Updates the record's row when it has a non-nil primary key and the
    /// row exists, inserts the record otherwise.
    public mutating func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try saveWithSaveCallbacks(db, onConflict: conflictResolution)
    }

    /// The save of the mutating and non-mutating `save`.
    mutating func saveWithSaveCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try withSaveCallbacks(db) {
            let writer = try RecordWriter(db, self)
            if !writer.hasNilPrimaryKey {
                let columns = try Set(db.columns(in: type(of: self).databaseTableName).map(\.name))
                do {
                    return try updateWithCallbacks(db, onConflict: conflictResolution, columns: columns)
                } catch let error as RecordError where error.isNotFound(writer.recordNotFound()) {
                    // No row has the key: insert below.
                }
            }
            return try PersistenceSuccess(insertWithCallbacks(db, onConflict: conflictResolution))
        }
    }

    /// Saves a copy of the record, and returns it.
    public func saved(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.save(db, onConflict: conflictResolution)
        return record
    }

    /// Saves the record, and returns the saved row (`RETURNING`).
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        var record = self
        return try record.saveAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Saves the record, and returns the saved row decoded as `T`.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try saveAndFetchWithSaveCallbacks(
            db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRecord(T.self, db))
    }

    /// Saves the record, and returns what `fetch` reads from the statement,
    /// whose `RETURNING` clause selects `selection`.
    public mutating func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try saveAndFetchWithSaveCallbacks(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// The save of the `saveAndFetch` methods.
    mutating func saveAndFetchWithSaveCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        if selection.isEmpty { throw DatabaseError.misuse("Invalid empty selection") }
        return try withSaveCallbacks(db) {
            try updateOrInsertAndFetchWithCallbacks(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
        }
    }

    /// An update of every column when the primary key is not nil and its row
    /// exists; an insertion otherwise.
    mutating func updateOrInsertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        let writer = try RecordWriter(db, self)
        if !writer.hasNilPrimaryKey {
            let columns = try Set(db.columns(in: type(of: self).databaseTableName).map(\.name))
            do {
                return try updateAndFetchWithCallbacks(
                    db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            } catch let error as RecordError where error.isNotFound(writer.recordNotFound()) {
                // No row has the key: insert below.
            }
        }
        let (inserted, returned) = try insertAndFetchWithCallbacks(
            db, onConflict: conflictResolution, selection: selection, fetch: fetch)
        return (PersistenceSuccess(inserted), returned)
    }
}

extension RecordError {
    /// True when both errors report the same missing row.
    func isNotFound(_ other: RecordError) -> Bool {
        switch (self, other) {
        case let (.recordNotFound(table, key), .recordNotFound(otherTable, otherKey)):
            return table == otherTable && key == otherKey
        }
    }
}
