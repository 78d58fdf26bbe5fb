extension MutablePersistableRecord {
    /// Inserts the record, or, when it violates a uniqueness constraint
    /// (primary key or unique index), updates the existing row with every
    /// column but the primary key (`INSERT ... ON CONFLICT DO UPDATE`).
    ///
    /// The save and insertion callbacks run; `didInsert` receives the rowid
    /// of the inserted or updated row.
    public mutating func upsert(_ db: Database) throws {
        try upsertWithSaveCallbacks(db)
    }

    /// The upsert of the mutating and non-mutating `upsert`.
    mutating func upsertWithSaveCallbacks(_ db: Database) throws {
        try withSaveCallbacks(db) {
            let (inserted, _) = try upsertAndFetchWithCallbacks(
                db, onConflict: [], updating: .allColumns, doUpdate: nil, selection: []
            ) { _ in }
            return (PersistenceSuccess(inserted), ())
        }
    }

    /// Upserts the record and returns the inserted or updated row.
    ///
    /// ```swift
    /// // On conflict, overwrite every column but the primary key:
    /// let upserted = try player.upsertAndFetch(db)
    /// // On conflict, keep the existing score:
    /// let upserted = try player.upsertAndFetch(db) { _ in [Column("score").noOverwrite] }
    /// // On conflict, only add to the score:
    /// let upserted = try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { excluded in
    ///     [Column("score") += excluded[Column("score")]]
    /// }
    /// ```
    ///
    /// - parameters:
    ///   - db: A connection.
    ///   - conflictTarget: The columns of the uniqueness constraint that
    ///     triggers the update; all constraints when empty.
    ///   - strategy: Whether the columns the assignments do not name are
    ///     overwritten with the inserted values (`.allColumns`, the default).
    ///   - assignments: The assignments of the update; `excluded` refers to
    ///     the row that was not inserted.
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Upserts the record and returns the row decoded as `T`.
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        try upsertAndFetchWithSaveCallbacks(db, as: T.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// The upsert of the `upsertAndFetch` methods.
    mutating func upsertAndFetchWithSaveCallbacks<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?
    ) throws -> T {
        try withSaveCallbacks(db) {
            let (inserted, returned) = try upsertAndFetchWithCallbacks(
                db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments, selection: T.databaseSelection
            ) { row in try T(row: row) }
            return (PersistenceSuccess(inserted), returned)
        }
    }

    /// The upsert, between `willInsert` and `didInsert`, inside `aroundInsert`.
    private mutating func upsertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> (InsertionSuccess, T) {
        try willInsert(db)
        var success: (inserted: InsertionSuccess, returned: T)?
        try aroundInsert(db) {
            let result = try upsertAndFetchWithoutCallbacks(
                db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments, selection: selection,
                decode: decode)
            success = result
            return result.0
        }
        guard let success else { throw persistenceCallbackMisuse("aroundInsert") }
        didInsert(success.inserted)
        return success
    }

    private func upsertAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> (InsertionSuccess, T) {
        let writer = try RecordWriter(db, self)
        // An update does not set lastInsertedRowID: the rowid is returned,
        // as the last column (tables WITHOUT ROWID have none).
        let hasRowID = writer.primaryKey.tableHasRowID
        let statement = try writer.upsertStatement(
            onConflict: conflictTarget, updating: strategy,
            assignments: assignments?(TableAlias(name: "excluded")) ?? [],
            returning: hasRowID ? selection + [Column.rowID] : selection)
        if !hasRowID && selection.isEmpty {
            try statement.execute()
            let inserted = InsertionSuccess(
                rowID: db.lastInsertedRowID, rowIDColumn: writer.primaryKey.rowIDColumn, insertedContainer: writer.container)
            return try (inserted, decode(Row()))
        }
        let cursor = try Row.fetchCursor(statement)
        guard let row = try cursor.next() else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "Insertion failed")
        }
        let rowID: Int64 = hasRowID ? try row.decode(atIndex: row.count - 1) : db.lastInsertedRowID
        let returned = try decode(row)
        // Run the statement to its end (an FTS5 table synchronized with
        // triggers needs it).
        while try cursor.next() != nil {}
        let inserted = InsertionSuccess(rowID: rowID, rowIDColumn: writer.primaryKey.rowIDColumn, insertedContainer: writer.container)
        return (inserted, returned)
    }
}
