internal import DatabaseKitSQLite
import FoundationEssentials
import Synchronization

// What happens around the execution of every statement: the checks before it
// runs (an aborted transaction, a cancelled task, a suspended database), and
// the bookkeeping after (transaction observers, the transaction date). Each
// costs a flag test when unused: a statement of a connection without
// observers, outside of any async access, pays two loads and one SQLite call.

extension Database {
    /// Runs before the first step of a statement.
    ///
    /// - throws: SQLITE_ABORT when the transaction of an enclosing
    ///   transaction block was rolled back by SQLite (a constraint `ON
    ///   CONFLICT ROLLBACK`, a full disk); `CancellationError` when the task
    ///   of an async access is cancelled; SQLITE_ABORT when the database is
    ///   suspended and the statement would take a lock.
    @inline(__always)
    func statementWillExecute(_ statement: Statement) throws {
        if isInsideTransactionBlock && sqlite3_get_autocommit(sqliteConnection) != 0 {
            throw DatabaseError(
                resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql,
                arguments: statement.arguments, publicStatementArguments: configuration.publicStatementArguments)
        }
        if interruption.isSet { try checkInterruption(before: statement) }
        observationBroker?.statementWillExecute(statement)
        if recordedSelection != nil { recordedSelection!.formUnion(statement.databaseRegion) }
    }

    /// Runs after the last step of a statement.
    @inline(__always)
    func statementDidExecute(_ statement: Statement) throws {
        noteTransactionState()
        if let observationBroker { try observationBroker.statementDidExecute(statement) }
    }

    /// Runs when a step fails: the statement leaves the caches (SQLite can
    /// not always reset a failed statement), observers hear about the
    /// rollback, and the error is thrown.
    func statementDidFail(_ statement: Statement, code: CInt) throws -> Never {
        // Read before anything else can overwrite it.
        let error = self.error(code: code, sql: statement.sql, arguments: statement.arguments)
        sqlite3_reset(statement.sqliteStatement)
        dropCachedStatements { $0 === statement }
        noteTransactionState()
        if let observationBroker { try observationBroker.statementDidFail(statement) }
        if error.isInterruptionError, interruption.isCancelled, ignoresCancellationDepth == 0 {
            // The only error a cancelled task sees is CancellationError.
            throw CancellationError()
        }
        throw error
    }

    /// Records when the connection enters a transaction (the
    /// ``transactionDate`` is read then) and leaves it.
    @inline(__always)
    private func noteTransactionState() {
        let isInside = sqlite3_get_autocommit(sqliteConnection) == 0 || isDeferringReadTransaction
        guard isInside != wasInsideTransaction else { return }
        wasInsideTransaction = isInside
        transactionDateResult = isInside ? Result { try configuration.transactionClock.now(self) } : nil
    }

    /// The date of the current transaction, given by the configuration's
    /// ``Configuration/transactionClock`` when the transaction began (the
    /// current date outside of a transaction): every record written by one
    /// transaction gets the same timestamp.
    public var transactionDate: Date {
        get throws {
            if let transactionDateResult, isInsideTransaction { return try transactionDateResult.get() }
            return try configuration.transactionClock.now(self)
        }
    }

    // MARK: Interruption, cancellation, suspension

    /// The checks of a connection whose task is cancelled or that is suspended.
    private func checkInterruption(before statement: Statement) throws {
        // Rollbacks always run: they release locks, and end the transaction
        // of a cancelled task properly. So do the commits of read-only
        // transactions, and switching query_only back.
        if let effect = statement.transactionEffect {
            if effect == .rollbackTransaction { return }
            if effect == .commitTransaction && isReadOnly { return }
        }
        if statement.compilation.isQueryOnlyPragma { return }
        if interruption.isCancelled && ignoresCancellationDepth == 0 {
            throw CancellationError()
        }
        if interruption.isSuspended {
            // Reads of a WAL database take no lock that matters; statements
            // that release locks are welcome.
            if try journalMode() == "wal" && statement.isReadonly { return }
            if statement.transactionEffect?.releasesDatabaseLock == true { return }
            try? rollback()
            throw DatabaseError(
                resultCode: .SQLITE_ABORT, message: "Database is suspended", sql: statement.sql,
                arguments: statement.arguments, publicStatementArguments: configuration.publicStatementArguments)
        }
    }

    /// The journal mode, read once without going through the statement
    /// checks (they need it).
    private func journalMode() throws -> String {
        if let journalModeCache { return journalModeCache }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(sqliteConnection, "PRAGMA journal_mode", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        sqlite3_step(statement)
        guard let text = sqlite3_column_text(statement, 0) else {
            throw error(code: sqlite3_errcode(sqliteConnection), sql: "PRAGMA journal_mode")
        }
        let mode = String(cString: text).lowercased()
        journalModeCache = mode
        return mode
    }

    /// Runs `value` with task cancellation not interrupting the connection:
    /// for the statements that must run whatever happens (rollbacks,
    /// observers' commit callbacks).
    func ignoringCancellation<T>(_ value: () throws -> T) rethrows -> T {
        ignoresCancellationDepth += 1
        defer { ignoresCancellationDepth -= 1 }
        return try value()
    }

    /// Runs `value`, and runs it again if it was interrupted: for the
    /// statements that must not fail because the user interrupted the
    /// connection at the wrong moment (a rollback, leaving read-only mode).
    func ignoringInterruption<T>(_ value: () throws -> T) rethrows -> T {
        do {
            return try value()
        } catch {
            guard error is CancellationError || (error as? DatabaseError)?.isInterruptionError == true else { throw error }
            // Leave SQLite's interrupted state first.
            var statement = sqlite3_next_stmt(sqliteConnection, nil)
            while let current = statement {
                sqlite3_reset(current)
                statement = sqlite3_next_stmt(sqliteConnection, current)
            }
            return try ignoringCancellation(value)
        }
    }
}

/// The interruption state of a connection, set from other threads (a
/// cancelled task, a suspension notification, ``DatabaseReader/interrupt()``),
/// read by the connection before each statement.
final class ConnectionInterruption: Sendable {
    private static let cancelledBit = 1
    private static let suspendedBit = 2

    private let flags = Atomic<Int>(0)

    /// The connection to interrupt, nil once closed. Locked, so that
    /// ``interrupt()`` never calls SQLite with a closed connection.
    private let handle = Locked<SendableConnection?>(nil)

    /// A connection handle that may cross threads: only
    /// `sqlite3_interrupt`, which SQLite documents as thread-safe, is
    /// called with it from another thread.
    struct SendableConnection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Set when the connection opens, cleared when it closes (on the
    /// connection's queue).
    var connection: OpaquePointer? {
        get { handle.withLock { $0?.pointer } }
        set { handle.withLock { $0 = newValue.map(SendableConnection.init) } }
    }

    /// True when a flag is set: the only check statements make otherwise.
    @inline(__always)
    var isSet: Bool { flags.load(ordering: .relaxed) != 0 }

    var isCancelled: Bool { flags.load(ordering: .acquiring) & Self.cancelledBit != 0 }
    var isSuspended: Bool { flags.load(ordering: .acquiring) & Self.suspendedBit != 0 }

    /// Interrupts the running statement, if any
    /// (<https://www.sqlite.org/c3ref/interrupt.html>).
    func interrupt() {
        handle.withLock { connection in
            if let connection { sqlite3_interrupt(connection.pointer) }
        }
    }

    /// Marks the current access as cancelled, and interrupts it.
    func cancel() {
        flags.bitwiseOr(Self.cancelledBit, ordering: .acquiringAndReleasing)
        interrupt()
    }

    /// Clears the cancellation at the end of an access.
    func uncancel() {
        flags.bitwiseAnd(~Self.cancelledBit, ordering: .acquiringAndReleasing)
    }

    /// Suspends the connection: statements that would take a lock abort.
    func suspend() {
        let old = flags.bitwiseOr(Self.suspendedBit, ordering: .acquiringAndReleasing).oldValue
        if old & Self.suspendedBit == 0 { interrupt() }
    }

    /// Lifts the suspension.
    func resume() {
        flags.bitwiseAnd(~Self.suspendedBit, ordering: .acquiringAndReleasing)
    }
}
