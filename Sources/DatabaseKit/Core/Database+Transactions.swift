extension Database {
    /// Runs `operations` in a transaction, committed or rolled back according
    /// to the returned completion, and rolled back when it throws.
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try db.execute(sql: "INSERT ...")
    ///     return .commit
    /// }
    /// ```
    ///
    /// - parameter kind: The transaction kind (default: the configuration's
    ///   ``Configuration/defaultTransactionKind``).
    /// - throws: The error of `operations`, or a ``DatabaseError``.
    public func inTransaction(
        _ kind: TransactionKind? = nil,
        _ operations: () throws -> TransactionCompletion
    ) throws {
        try beginTransaction(kind)
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            try rollbackIfNeeded()
            throw error
        }
        switch completion {
        case .commit:
            do {
                try commit()
            } catch {
                // A failed COMMIT (deferred foreign keys, SQLITE_BUSY) may leave
                // the transaction open: never leave it half done.
                try rollbackIfNeeded()
                throw error
            }
        case .rollback:
            try rollbackIfNeeded()
        }
    }

    /// Runs `operations` in a savepoint, released or rolled back according to
    /// the returned completion, and rolled back when it throws. Savepoints
    /// nest; outside of a transaction, a savepoint is a transaction.
    ///
    /// See <https://www.sqlite.org/lang_savepoint.html>.
    public func inSavepoint(_ operations: () throws -> TransactionCompletion) throws {
        guard isInsideTransaction else {
            try inTransaction(nil, operations)
            return
        }
        // Savepoint names are quoted identifiers: any stable name works, and
        // nesting reuses it (RELEASE and ROLLBACK TO target the innermost one).
        try execute(sql: "SAVEPOINT dbkit")
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            try rollbackToSavepointIfNeeded()
            throw error
        }
        switch completion {
        case .commit:
            try execute(sql: "RELEASE SAVEPOINT dbkit")
        case .rollback:
            try rollbackToSavepointIfNeeded()
        }
    }

    /// Begins a transaction.
    ///
    /// - parameter kind: The transaction kind (default: the configuration's
    ///   ``Configuration/defaultTransactionKind``).
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        switch kind ?? configuration.defaultTransactionKind {
        case .deferred: try execute(sql: "BEGIN DEFERRED TRANSACTION")
        case .immediate: try execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        case .exclusive: try execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
        }
    }

    /// Commits the current transaction.
    public func commit() throws {
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls the current transaction back.
    public func rollback() throws {
        try execute(sql: "ROLLBACK TRANSACTION")
    }

    /// Rolls back, unless SQLite already did (some errors roll back by
    /// themselves: <https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction>).
    private func rollbackIfNeeded() throws {
        if isInsideTransaction { try rollback() }
    }

    private func rollbackToSavepointIfNeeded() throws {
        guard isInsideTransaction else { return }
        try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT dbkit")
        try execute(sql: "RELEASE SAVEPOINT dbkit")
    }
}
