extension MutablePersistableRecord {
    // MARK: Update

    /// Updates some columns of the row with the record's primary key
    /// (`UPDATE`), with the update and save callbacks. Columns the table or
    /// the record lacks are ignored.
    ///
    /// ```swift
    /// try player.update(db, columns: ["score"])
    /// ```
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   no row has the key; ``DatabaseError`` on any SQLite error.
    public func update(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, columns: some Collection<String>
    ) throws {
        try withSaveCallbacks(db) {
            try updateWithCallbacks(db, onConflict: conflictResolution, columns: Set(columns))
        }
    }

    /// Updates some columns of the row with the record's primary key.
    public func update(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>
    ) throws {
        try update(db, onConflict: conflictResolution, columns: columns.map(\.name))
    }

    /// Updates every column of the row with the record's primary key.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try update(db, onConflict: conflictResolution, columns: db.columns(in: type(of: self).databaseTableName).map(\.name))
    }

    /// Updates the columns whose value differs in `record` (the previous
    /// version), and returns whether there was a change to write.
    @discardableResult
    public func updateChanges<Record: MutablePersistableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, from record: Record
    ) throws -> Bool {
        try updateChanges(db, onConflict: conflictResolution, from: record.databaseContainer())
    }

    /// Modifies the record, then updates the columns that changed, and
    /// returns whether there was a change to write.
    ///
    /// ```swift
    /// try player.updateChanges(db) { $0.score += 10 }
    /// ```
    @discardableResult
    public mutating func updateChanges(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, modify: (inout Self) throws -> Void
    ) throws -> Bool {
        let before = try databaseContainer()
        try modify(&self)
        return try updateChanges(db, onConflict: conflictResolution, from: before)
    }

    private func updateChanges(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, from before: PersistenceContainer
    ) throws -> Bool {
        let changed = try databaseContainer().changes(from: before).map(\.0)
        if changed.isEmpty { return false }
        try update(db, onConflict: conflictResolution, columns: changed)
        return true
    }

    // MARK: Update and fetch

    /// Updates every column, and returns the updated row (`RETURNING`).
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        try updateAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Updates every column, and returns the updated row decoded as `T`.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try updateAndFetch(
            db, onConflict: conflictResolution, columns: db.columns(in: type(of: self).databaseTableName).map(\.name),
            selection: T.databaseSelection, fetch: fetchRecord(T.self, db))
    }

    /// Updates some columns, and returns what `fetch` reads from the
    /// statement, whose `RETURNING` clause selects `selection`.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, columns: some Collection<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        if selection.isEmpty { throw DatabaseError.misuse("Invalid empty selection") }
        return try withSaveCallbacks(db) {
            try updateAndFetchWithCallbacks(
                db, onConflict: conflictResolution, columns: Set(columns), selection: selection, fetch: fetch)
        }
    }

    /// Updates some columns, and returns what `fetch` reads.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try updateAndFetch(db, onConflict: conflictResolution, columns: columns.map(\.name), selection: selection, fetch: fetch)
    }

    /// Updates every column, and returns what `fetch` reads.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try updateAndFetch(
            db, onConflict: conflictResolution, columns: db.columns(in: type(of: self).databaseTableName).map(\.name),
            selection: selection, fetch: fetch)
    }

    /// Modifies the record, updates the columns that changed, and returns
    /// the updated row; nil when nothing changed.
    public mutating func updateChangesAndFetch(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, modify: (inout Self) throws -> Void
    ) throws -> Self? where Self: FetchableRecord {
        try updateChangesAndFetch(db, onConflict: conflictResolution, as: Self.self, modify: modify)
    }

    /// Modifies the record, updates the columns that changed, and returns
    /// the updated row decoded as `T`; nil when nothing changed.
    public mutating func updateChangesAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type,
        modify: (inout Self) throws -> Void
    ) throws -> T? {
        try updateChangesAndFetch(
            db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRecord(T.self, db), modify: modify)
    }

    /// Modifies the record, updates the columns that changed, and returns
    /// what `fetch` reads; nil when nothing changed.
    public mutating func updateChangesAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T, modify: (inout Self) throws -> Void
    ) throws -> T? {
        let before = try databaseContainer()
        try modify(&self)
        let changed = try databaseContainer().changes(from: before).map(\.0)
        if changed.isEmpty { return nil }
        return try updateAndFetch(db, onConflict: conflictResolution, columns: changed, selection: selection, fetch: fetch)
    }

    // MARK: Internals

    /// Reads one `T` from a `RETURNING` statement; none means the record's
    /// row is gone.
    func fetchRecord<T: FetchableRecord>(_ type: T.Type, _ db: Database) -> (Statement) throws -> T {
        let record = self
        return { statement in
            if let fetched = try T.fetchOne(statement) { return fetched }
            throw record.recordNotFound(db)
        }
    }

    /// The update without `RETURNING`, between `willUpdate` and `didUpdate`,
    /// inside `aroundUpdate`.
    func updateWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>)
        throws -> PersistenceSuccess
    {
        try willUpdate(db, columns: columns)
        var updated: PersistenceSuccess?
        try aroundUpdate(db, columns: columns) {
            let writer = try RecordWriter(db, self)
            guard
                let statement = try writer.updateStatement(
                    columns: columns,
                    onConflict: conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForUpdate,
                    returning: [])
            else {
                throw writer.recordNotFound()
            }
            if try writer.countingChanges({ try statement.execute() }).changes == 0 { throw writer.recordNotFound() }
            let result = PersistenceSuccess(persistenceContainer: writer.container)
            updated = result
            return result
        }
        guard let updated else { throw persistenceCallbackMisuse("aroundUpdate") }
        didUpdate(updated)
        return updated
    }

    /// The update, between `willUpdate` and `didUpdate`, inside `aroundUpdate`.
    func updateAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        try willUpdate(db, columns: columns)
        var success: (updated: PersistenceSuccess, returned: T)?
        try aroundUpdate(db, columns: columns) {
            let result = try updateAndFetchWithoutCallbacks(
                db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            success = result
            return result.0
        }
        guard let success else { throw persistenceCallbackMisuse("aroundUpdate") }
        didUpdate(success.updated)
        return success
    }

    private func updateAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        let writer = try RecordWriter(db, self)
        guard
            let statement = try writer.updateStatement(
                columns: columns,
                onConflict: conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForUpdate,
                returning: selection)
        else {
            throw writer.recordNotFound()
        }
        let (changes, returned) = try writer.countingChanges { try fetch(statement) }
        if changes == 0 { throw writer.recordNotFound() }
        return (PersistenceSuccess(persistenceContainer: writer.container), returned)
    }
}
