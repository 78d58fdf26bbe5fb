// The isolation of a `DatabasePool` read, without BEGIN and COMMIT when the
// read runs one statement.
//
// A read sees one committed state of the database from its first statement
// to its end. BEGIN DEFERRED and COMMIT around each read cost two more
// statements, which doubles what SQLite does for a point query. SQLite
// isolates one statement by itself: a statement reads one snapshot from its
// first step until it is reset, and the connection keeps that snapshot while
// any of its statements is active, in a transaction begun later too
// (<https://www.sqlite.org/isolation.html>). So a read defers its
// transaction:
//
// - its first statement runs on its own; once it has a row it is the read's
//   pin, and is not reset when its caller is done with it;
// - anything else (a second statement, a second step of the first one, a
//   statement run to completion, a transaction statement) begins the
//   transaction first, while the pin holds the snapshot, and the pin is then
//   reset;
// - a first statement that has no row at all has ended its snapshot with its
//   only step: it runs again inside the transaction, so that what it
//   returns and what the next statements read come from one snapshot;
// - at the end of the read, the pin is reset (ending the snapshot, as the
//   reset of a statement run alone does) or the transaction committed;
// - an interrupt that arrives while the pin is active stays pending until
//   the pin is reset, and would fail BEGIN: the pin is reset, BEGIN runs,
//   and the statement that needed it throws the interrupt. The statements
//   the read runs after it see a new snapshot (the only case where a read
//   sees two; the interrupt tells the application so).
//
// While it defers, the connection reports that it is inside a transaction,
// and the transaction date is the read's, as with BEGIN.

extension Database {
    /// Runs `block` isolated from the writes of other connections: the read
    /// access of a `DatabasePool` reader.
    func isolatedRead<T>(_ block: () throws -> T) throws -> T {
        // A connection that may write runs every statement in the
        // transaction: a write run alone would commit by itself.
        if isInsideTransaction || !configuration.readonly {
            return try isolated(block)
        }
        try checkOpen()
        let wasInsideTransactionBlock = isInsideTransactionBlock
        isDeferringReadTransaction = true
        wasInsideTransaction = true
        transactionDateResult = Result { try configuration.transactionClock.now(self) }
        let value: T
        do {
            value = try block()
        } catch {
            try endDeferredRead(.failure(error), wasInsideTransactionBlock: wasInsideTransactionBlock)
            throw error  // not reached: ending a failed read rethrows its error
        }
        try endDeferredRead(.success(.commit), wasInsideTransactionBlock: wasInsideTransactionBlock)
        return value
    }

    /// Steps a statement of a read that defers its transaction (see the top
    /// of this file).
    func stepDeferringRead(_ statement: Statement, isFirst: Bool) throws -> Bool {
        if let deferredReadFailure { throw deferredReadFailure }
        if !isFirst || readPin != nil || statement.transactionEffect != nil {
            try beginDeferredReadTransaction(for: statement)
            return try statement.stepIgnoringDeferredRead(in: self, isFirst: isFirst)
        }
        if try statement.stepIgnoringDeferredRead(in: self, isFirst: true) {
            readPin = statement
            statement.isReadPin = true
            return true
        }
        // No row: SQLite ended the statement's snapshot with its only step.
        statement.reset()
        try beginDeferredReadTransaction()
        return try statement.stepIgnoringDeferredRead(in: self, isFirst: true)
    }

    /// Begins the transaction of a read that deferred it, while its pin, if
    /// any, still holds the snapshot, then resets the pin if its caller is
    /// done with it. Does nothing once begun.
    ///
    /// - parameter statement: the statement that needs the transaction, whose
    ///   SQL an interrupt reports.
    func beginDeferredReadTransaction(for statement: Statement? = nil) throws {
        if let deferredReadFailure { throw deferredReadFailure }
        guard isDeferringReadTransaction else { return }
        // Cleared first: BEGIN itself runs as a plain statement.
        isDeferringReadTransaction = false
        let pin = readPin
        readPin = nil
        defer { releaseReadPin(pin, force: false) }
        do {
            try beginTransaction()
        } catch where pin != nil && Self.isInterruption(error) {
            // An interrupt that arrived while the pin ran stays pending on
            // the connection until no statement is active: it failed BEGIN
            // instead of the statement it was meant for. With the pin
            // reset (its snapshot ends), BEGIN runs, and the statement that
            // needed the transaction reports the interrupt, as in GRDB's
            // read, whose transaction then goes on.
            releaseReadPin(pin, force: true)
            try beginAfterFailure { try beginTransaction() }
            isInsideTransactionBlock = true
            guard let statement, let databaseError = error as? DatabaseError else { throw error }
            throw DatabaseError(
                resultCode: databaseError.extendedResultCode, message: databaseError.message,
                sql: statement.sql, arguments: statement.arguments,
                publicStatementArguments: databaseError.publicStatementArguments)
        } catch {
            try beginAfterFailure { throw error }
        }
        isInsideTransactionBlock = true
    }

    /// Runs `begin`; when it fails, the read can not be isolated: its next
    /// statements fail with the same error.
    private func beginAfterFailure(_ begin: () throws -> Void) throws {
        do {
            try begin()
        } catch {
            deferredReadFailure = error
            isDeferringReadTransaction = true
            throw error
        }
    }

    /// True for the error of an interrupted statement, or of a cancelled task.
    private static func isInterruption(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        return (error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT
    }

    /// Resets a former pin when its caller is done with it, or anyway when
    /// `force` is true (the read ends).
    private func releaseReadPin(_ pin: Statement?, force: Bool) {
        guard let pin else { return }
        pin.isReadPin = false
        if pin.readPinIsReleased || force {
            pin.readPinIsReleased = false
            pin.reset()
        }
    }

    /// Ends a read that deferred its transaction: resets the pin, or
    /// commits (rolls back when the read failed) the transaction it began.
    private func endDeferredRead(
        _ outcome: Result<TransactionCompletion, any Error>, wasInsideTransactionBlock: Bool
    ) throws {
        let pin = readPin
        readPin = nil
        deferredReadFailure = nil
        // Only a transaction that began clears the flag (a failed BEGIN
        // sets it again).
        if !isDeferringReadTransaction {
            defer { isInsideTransactionBlock = wasInsideTransactionBlock }
            try endTransactionBlock(outcome, wasInsideTransactionBlock: wasInsideTransactionBlock)
            return
        }
        isDeferringReadTransaction = false
        releaseReadPin(pin, force: true)
        wasInsideTransaction = false
        transactionDateResult = nil
        if case .failure(let error) = outcome { throw error }
    }
}
