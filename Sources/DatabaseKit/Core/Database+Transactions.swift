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
        case .commit: try commitOrRollBack()
        case .rollback: try rollbackIfNeeded()
        }
    }

    /// Runs `operations` in a transaction committed when it returns and rolled
    /// back when it throws, and returns its value: the transaction of the
    /// access methods, without an intermediate optional.
    func inCommittedTransaction<T>(_ kind: TransactionKind?, _ operations: () throws -> T) throws -> T {
        try beginTransaction(kind)
        let value: T
        do {
            value = try operations()
        } catch {
            try rollbackIfNeeded()
            throw error
        }
        try commitOrRollBack()
        return value
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
        // Nested savepoints may share a name: RELEASE and ROLLBACK TO target
        // the innermost one.
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
        try checkOpen()
        try accessStatements.begin(kind ?? configuration.defaultTransactionKind).execute()
    }

    /// Commits the current transaction.
    public func commit() throws {
        try checkOpen()
        try accessStatements.commit().execute()
    }

    /// Rolls the current transaction back.
    public func rollback() throws {
        try execute(sql: "ROLLBACK TRANSACTION")
    }

    /// Commits; when COMMIT fails (deferred foreign keys, SQLITE_BUSY) the
    /// transaction may still be open: it is rolled back, never left half done.
    private func commitOrRollBack() throws {
        do {
            try commit()
        } catch {
            try rollbackIfNeeded()
            throw error
        }
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

/// The statements every access block runs (BEGIN, COMMIT, and the
/// `query_only` switches of read accesses), compiled once per connection:
/// running them through the statement cache would hash their SQL each time.
final class AccessStatements {
    private unowned let db: Database
    private var beginDeferred: Statement?
    private var beginImmediate: Statement?
    private var beginExclusive: Statement?
    private var commitStatement: Statement?
    private var queryOnlyOn: Statement?
    private var queryOnlyOff: Statement?

    init(_ db: Database) { self.db = db }

    func begin(_ kind: Database.TransactionKind) throws -> Statement {
        switch kind {
        case .deferred: return try statement(&beginDeferred, "BEGIN DEFERRED TRANSACTION")
        case .immediate: return try statement(&beginImmediate, "BEGIN IMMEDIATE TRANSACTION")
        case .exclusive: return try statement(&beginExclusive, "BEGIN EXCLUSIVE TRANSACTION")
        }
    }

    func commit() throws -> Statement {
        try statement(&commitStatement, "COMMIT TRANSACTION")
    }

    /// `PRAGMA query_only = 1` or `= 0`.
    func queryOnly(_ isOn: Bool) throws -> Statement {
        isOn ? try statement(&queryOnlyOn, "PRAGMA query_only = 1") : try statement(&queryOnlyOff, "PRAGMA query_only = 0")
    }

    private func statement(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try db.makeStatement(sql: sql)
        slot = statement
        return statement
    }

    /// Finalizes the statements, so that the connection can close.
    func removeAll() {
        beginDeferred = nil
        beginImmediate = nil
        beginExclusive = nil
        commitStatement = nil
        queryOnlyOn = nil
        queryOnlyOff = nil
    }
}
