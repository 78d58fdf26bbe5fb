// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the column lookup's,
// the statement's, the argument slots', the lock's and the encoder's (removed together), transactions runs
// 1.8% more instructions, observed-elsewhere 1.4%.

internal import DatabaseKitSQLite

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
    /// When SQLite rolls the transaction back by itself (a constraint with
    /// `ON CONFLICT ROLLBACK`, a full disk), the following statements of the
    /// block, and the commit, throw SQLITE_ABORT "Transaction was aborted".
    ///
    /// - parameters:
    ///   - kind: The transaction kind. By default IMMEDIATE, so that writes
    ///     never fail half-way with SQLITE_BUSY, and DEFERRED in a read-only
    ///     access (see ``Configuration/defaultTransactionKind``).
    ///   - operations: The statements; the completion it returns commits or
    ///     rolls back.
    /// - throws: The first error: of `operations`, of the commit, or of the
    ///   rollback.
    public func inTransaction(_ kind: TransactionKind? = nil, _ operations: () throws -> TransactionCompletion) throws {
        _ = try transactionBlock(kind, operations, completion: { $0 })
    }

    /// Runs `operations` in a transaction committed when it returns and rolled
    /// back when it throws, and returns its value: the transaction of the
    /// access methods.
    func inCommittedTransaction<T>(_ kind: TransactionKind?, _ operations: () throws -> T) throws -> T {
        try transactionBlock(kind, operations, completion: { _ in .commit })
    }

    /// Runs `operations` in a transaction, ended as `completion` says of
    /// their value, or rolled back when they throw; returns the value.
    ///
    /// The value is held in a `let` of `T`, not in a `T?` or a `Result`:
    /// in unspecialized generic code, the runtime would look up the metadata
    /// of `Optional<T>` or `Result<T, Error>` on each call (measured: 450
    /// instructions).
    private func transactionBlock<T>(
        _ kind: TransactionKind?, _ operations: () throws -> T, completion: (T) -> TransactionCompletion
    ) throws -> T {
        try beginTransaction(kind)
        let wasInsideTransactionBlock = isInsideTransactionBlock
        isInsideTransactionBlock = true
        defer { isInsideTransactionBlock = wasInsideTransactionBlock }
        let value: T
        do {
            value = try operations()
        } catch {
            try endTransactionBlock(.failure(error), wasInsideTransactionBlock: wasInsideTransactionBlock)
            throw error  // not reached: ending a failed block rethrows its error
        }
        try endTransactionBlock(.success(completion(value)), wasInsideTransactionBlock: wasInsideTransactionBlock)
        return value
    }

    /// The end of a transaction block: commit, or roll back on request or
    /// error.
    func endTransactionBlock(
        _ outcome: Result<TransactionCompletion, any Error>, wasInsideTransactionBlock: Bool
    ) throws {
        try completeTransactionBlock(outcome) {
            // Observers may run statements from their commit callbacks.
            isInsideTransactionBlock = wasInsideTransactionBlock
            try commit()
        } rollback: {
            try rollback()
        }
    }

    /// Runs `operations` in a savepoint, released or rolled back according to
    /// the returned completion, and rolled back when it throws. Savepoints
    /// nest; outside of a transaction, a savepoint is a transaction (an
    /// IMMEDIATE one, for writes).
    ///
    /// See <https://www.sqlite.org/lang_savepoint.html>.
    public func inSavepoint(_ operations: () throws -> TransactionCompletion) throws {
        guard isInsideTransaction else {
            try inTransaction(nil, operations)
            return
        }
        // Nested savepoints share a name: RELEASE and ROLLBACK TO target the
        // innermost one.
        try execute(sql: "SAVEPOINT grdb")
        let wasInsideTransactionBlock = isInsideTransactionBlock
        isInsideTransactionBlock = true
        defer { isInsideTransactionBlock = wasInsideTransactionBlock }
        try completeTransactionBlock(Result { try operations() }) {
            isInsideTransactionBlock = wasInsideTransactionBlock
            try execute(sql: "RELEASE SAVEPOINT grdb")
        } rollback: {
            // ROLLBACK TO keeps the savepoint on SQLite's stack: release it too.
            try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT grdb")
            try execute(sql: "RELEASE SAVEPOINT grdb")
        }
    }

    /// The end of a transaction or savepoint block: commit, or roll back on
    /// request or error, and throw the first error.
    private func completeTransactionBlock(
        _ outcome: Result<TransactionCompletion, any Error>,
        commit: () throws -> Void,
        rollback: () throws -> Void
    ) throws {
        var firstError: (any Error)?
        var needsRollback = true
        do {
            if try outcome.get() == .commit {
                // SQLite may have rolled back already: report that, rather
                // than the "no transaction is active" of the COMMIT.
                if isInsideTransactionBlock && sqlite3_get_autocommit(sqliteConnection) != 0 {
                    throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted")
                }
                try commit()
                needsRollback = false
            }
        } catch {
            firstError = error
        }
        if needsRollback {
            do {
                if isInsideTransaction { try rollback() }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// Runs `block` isolated from other connections: in a savepoint (a
    /// transaction outside of one), read-only when asked.
    func isolated<T>(readOnly: Bool = false, _ block: () throws -> T) throws -> T {
        if isInsideTransaction {
            return readOnly ? try self.readOnly(block) : try block()
        }
        // Outside of a transaction, a savepoint is a transaction.
        if readOnly {
            // Read-only first, so that the commit is not notified to observers.
            return try self.readOnly { try inCommittedTransaction(nil, block) }
        }
        return try inCommittedTransaction(nil, block)
    }

    /// Begins a transaction.
    ///
    /// - parameter kind: The transaction kind; by default the
    ///   configuration's ``Configuration/defaultTransactionKind`` when set,
    ///   otherwise IMMEDIATE, or DEFERRED in a read-only access.
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        try checkOpen()
        // A read-only connection can only begin DEFERRED transactions.
        let kind =
            kind
            ?? (configuration.readonly
                ? .deferred : configuration.explicitDefaultTransactionKind ?? (isReadOnly ? .deferred : .immediate))
        try accessStatements.begin(kind, in: self).executeOwnStatement()
    }

    /// Commits the current transaction.
    public func commit() throws {
        try checkOpen()
        try accessStatements.commit(in: self).executeOwnStatement()
    }

    /// Rolls the current transaction back; does nothing outside of a
    /// transaction (SQLite may already have rolled back after an error).
    ///
    /// An interruption does not stop the rollback: it is tried again.
    public func rollback() throws {
        guard isInsideTransaction else { return }
        try ignoringInterruption {
            try execute(sql: "ROLLBACK TRANSACTION")
        }
    }

    /// Runs `value` with writes disallowed (`PRAGMA query_only`): a write
    /// fails with SQLITE_READONLY. Blocks nest.
    /// See <https://www.sqlite.org/pragma.html#pragma_query_only>.
    public func readOnly<T>(_ value: () throws -> T) throws -> T {
        try beginReadOnly()
        let result: T
        do {
            result = try value()
        } catch {
            try? endReadOnly()
            throw error
        }
        // A failure to switch back must be reported: the connection would
        // otherwise stay read-only for the writes that follow.
        try endReadOnly()
        return result
    }

    func beginReadOnly() throws {
        if configuration.readonly { return }
        if readOnlyDepth == 0 {
            try checkOpen()
            try accessStatements.queryOnly(true, in: self).executeOwnStatement()
        }
        readOnlyDepth += 1
    }

    func endReadOnly() throws {
        if configuration.readonly { return }
        readOnlyDepth -= 1
        if readOnlyDepth == 0 {
            try ignoringInterruption {
                try accessStatements.queryOnly(false, in: self).executeOwnStatement()
            }
        }
    }
}

/// The statements every access block runs (BEGIN, COMMIT, and the
/// `query_only` switches of read accesses), compiled once per connection:
/// running them through the statement cache would hash their SQL each time.
///
/// Like the connection, they are only used by the thread of the current
/// access block: the slots skip the dynamic exclusivity check.
final class AccessStatements {
    @exclusivity(unchecked) private var beginDeferred: Statement?
    @exclusivity(unchecked) private var beginImmediate: Statement?
    @exclusivity(unchecked) private var beginExclusive: Statement?
    @exclusivity(unchecked) private var commitStatement: Statement?
    @exclusivity(unchecked) private var queryOnlyOn: Statement?
    @exclusivity(unchecked) private var queryOnlyOff: Statement?

    func begin(_ kind: Database.TransactionKind, in db: Database) throws -> Statement {
        switch kind {
        case .deferred: return try statement(&beginDeferred, "BEGIN DEFERRED TRANSACTION", db)
        case .immediate: return try statement(&beginImmediate, "BEGIN IMMEDIATE TRANSACTION", db)
        case .exclusive: return try statement(&beginExclusive, "BEGIN EXCLUSIVE TRANSACTION", db)
        }
    }

    func commit(in db: Database) throws -> Statement {
        try statement(&commitStatement, "COMMIT TRANSACTION", db)
    }

    /// `PRAGMA query_only = 1` or `= 0`.
    func queryOnly(_ isOn: Bool, in db: Database) throws -> Statement {
        isOn
            ? try statement(&queryOnlyOn, "PRAGMA query_only = 1", db)
            : try statement(&queryOnlyOff, "PRAGMA query_only = 0", db)
    }

    private func statement(_ slot: inout Statement?, _ sql: String, _ db: Database) throws -> Statement {
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
