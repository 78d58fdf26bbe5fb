// Deleting and updating the rows a request selects, in one statement.

extension QueryInterfaceRequest {
    /// Deletes the rows of the request, and returns how many were deleted.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < ?
    /// try Player.filter(Column("score") < 10).deleteAll(db)
    /// ```
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let context = SQLGenerationContext(db)
        let sql = try SQLQueryGenerator(relation).deleteSQL(context)
        return try executeCountingChanges(db, sql: sql, arguments: context.arguments)
    }

    /// Updates the rows of the request, and returns how many were changed.
    /// Without `conflictResolution`, a record type's
    /// ``MutablePersistableRecord/persistenceConflictPolicy`` applies.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + ? WHERE "team" = ?
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score") += 1)
    /// ```
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> Int {
        let context = SQLGenerationContext(db)
        let resolution = conflictResolution ?? defaultConflictResolutionForUpdate
        guard let sql = try SQLQueryGenerator(relation).updateSQL(context, conflictResolution: resolution, assignments: assignments) else {
            return 0
        }
        return try executeCountingChanges(db, sql: sql, arguments: context.arguments)
    }

    /// Updates the rows of the request, and returns how many were changed.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// A record type's conflict policy for updates, else `ABORT`.
    private var defaultConflictResolutionForUpdate: Database.ConflictResolution {
        (RowDecoder.self as? any MutablePersistableRecord.Type)?.persistenceConflictPolicy.conflictResolutionForUpdate ?? .abort
    }

    /// Runs the statement; the rows of the table it changed, or for a view
    /// the rows its INSTEAD OF triggers changed.
    private func executeCountingChanges(_ db: Database, sql: String, arguments: StatementArguments) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        if try db.viewExists(relation.source) {
            let before = db.totalChangesCount
            try statement.execute()
            return db.totalChangesCount - before
        }
        try statement.execute()
        return db.changesCount
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// Updates the rows of the request with assignments of the record's
    /// columns: `request.updateAll(db) { $0.score.set(to: 0) }`.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (RowDecoder.DatabaseComponents) throws -> ColumnAssignment
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(RowDecoder.databaseComponents)])
    }

    /// Updates the rows of the request with assignments of the record's
    /// columns: `request.updateAll(db) { [$0.score.set(to: 0), $0.bonus += 1] }`.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
