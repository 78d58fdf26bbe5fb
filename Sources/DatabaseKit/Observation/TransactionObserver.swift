/// A type that is told about the changes and transactions of a database
/// connection.
///
/// ```swift
/// final class PlayerObserver: TransactionObserver {
///     var changed = false
///     func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
///         eventKind.tableName == "player"
///     }
///     func databaseDidChange(with event: DatabaseEvent) {
///         changed = true
///         stopObservingDatabaseChangesUntilNextTransaction()
///     }
///     func databaseDidCommit(_ db: Database) { if changed { print("players changed") }; changed = false }
///     func databaseDidRollback(_ db: Database) { changed = false }
/// }
/// let observer = PlayerObserver()
/// dbQueue.add(transactionObserver: observer)
/// ```
///
/// Changes are notified before they are committed, and after the savepoint
/// that holds them is released; then the commit (``databaseWillCommit()``,
/// which may throw to roll the transaction back, and
/// ``databaseDidCommit(_:)``) or the rollback (``databaseDidRollback(_:)``).
/// Read-only transactions, changes made by other connections, schema changes
/// and changes to `WITHOUT ROWID` tables are not notified: see
/// ``Database/notifyChanges(in:)``.
///
/// Callbacks run on the connection's queue. ``databaseDidChange(with:)`` and
/// ``databaseWillCommit()`` must not use the connection;
/// ``databaseDidCommit(_:)`` and ``databaseDidRollback(_:)`` may.
public protocol TransactionObserver: AnyObject {
    /// Whether the observer wants ``databaseDidChange(with:)`` for events of
    /// this kind. Called once per statement, before it runs: returning false
    /// for every kind costs nothing per changed row.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool

    /// Called by ``Database/notifyChanges(in:)`` for a region the observer
    /// observes. Default: does nothing.
    func databaseDidChange()

    /// Called for each inserted, updated or deleted row of an observed kind.
    func databaseDidChange(with event: DatabaseEvent)

    /// Called before each row change of an observed kind, with the values
    /// before and after it (SQLite's pre-update hook). Default: does nothing.
    func databaseWillChange(with event: DatabasePreUpdateEvent)

    /// Called before a transaction commits. Throwing rolls the transaction
    /// back, and the error is thrown by the statement that committed.
    /// Default: does nothing.
    func databaseWillCommit() throws

    /// Called after a transaction has committed.
    func databaseDidCommit(_ db: Database)

    /// Called after a transaction has rolled back.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    public func databaseDidChange() {}
    public func databaseWillChange(with event: DatabasePreUpdateEvent) {}
    public func databaseWillCommit() throws {}

    /// From ``databaseDidChange(with:)`` or ``databaseDidChange()``: no more
    /// change notification until the current transaction ends (commit and
    /// rollback are still notified).
    ///
    /// Called anywhere else, it does nothing.
    public func stopObservingDatabaseChangesUntilNextTransaction() {
        DatabaseObservationBroker.current?.disableUntilNextTransaction(self)
    }
}

extension Database {
    /// How long a transaction observer is notified.
    public enum TransactionObservationExtent: Sendable {
        /// Until the observer is deallocated: the connection keeps a weak
        /// reference. The default.
        case observerLifetime
        /// Until the end of the current or next transaction: the connection
        /// keeps the observer alive until then.
        case nextTransaction
        /// As long as the connection: the connection keeps the observer alive.
        case databaseLifetime
    }

    /// Starts notifying `transactionObserver` of the changes and
    /// transactions of this connection.
    ///
    /// Read-only connections perform no transaction to notify: the observer
    /// is not registered.
    public func add(
        transactionObserver: some TransactionObserver,
        extent: TransactionObservationExtent = .observerLifetime
    ) {
        guard !configuration.readonly, sqliteConnection != nil else { return }
        // Cached statements that delete rows were compiled for the previous
        // observers (see the truncate optimization in StatementAuthorizer).
        dropCachedStatements { $0.canDeleteRows }
        makeObservationBroker().add(transactionObserver, extent: extent)
    }

    /// Stops notifying `transactionObserver`.
    public func remove(transactionObserver: some TransactionObserver) {
        guard let observationBroker else { return }
        dropCachedStatements { $0.canDeleteRows }
        observationBroker.remove(transactionObserver)
    }

    /// Calls `onCommit` once the current or next transaction commits, or
    /// `onRollback` if it rolls back.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.execute(sql: "INSERT ...")
    ///     db.afterNextTransaction { _ in print("inserted for good") }
    /// }
    /// ```
    ///
    /// Read-only accesses perform no transaction to notify: there the
    /// closures are never called.
    public func afterNextTransaction(
        onCommit: @escaping @Sendable (Database) -> Void,
        onRollback: @escaping @Sendable (Database) -> Void = { _ in }
    ) {
        guard !isReadOnly else { return }
        add(transactionObserver: TransactionHandler(onCommit: onCommit, onRollback: onRollback), extent: .nextTransaction)
    }

    /// Tells the transaction observers that observe the region that it has
    /// changed (calls their ``TransactionObserver/databaseDidChange()``), for
    /// changes SQLite does not report: schema changes, other connections,
    /// `WITHOUT ROWID` tables.
    ///
    /// ```swift
    /// try db.notifyChanges(in: .fullDatabase)
    /// ```
    ///
    /// Does nothing in a read-only access.
    public func notifyChanges(in region: some DatabaseRegionConvertible) throws {
        guard !isReadOnly, let observationBroker, observationBroker.hasObservers else { return }
        let kinds = try region.databaseRegion(self).observableRegion(self).impactfulEventKinds(self)
        observationBroker.notifyChanges(withEventsOfKind: kinds)
    }
}

/// The observer of ``Database/afterNextTransaction(onCommit:onRollback:)``.
private final class TransactionHandler: TransactionObserver {
    let onCommit: @Sendable (Database) -> Void
    let onRollback: @Sendable (Database) -> Void

    init(onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void) {
        self.onCommit = onCommit
        self.onRollback = onRollback
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { onCommit(db) }
    func databaseDidRollback(_ db: Database) { onRollback(db) }
}

/// An observer as the broker holds it: weakly or strongly per its extent,
/// and possibly disabled until the end of the transaction.
final class TransactionObservation {
    let extent: Database.TransactionObservationExtent
    var isEnabled = true
    private weak var weakObserver: (any TransactionObserver)?
    private var strongObserver: (any TransactionObserver)?

    init(observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        self.extent = extent
        if case .observerLifetime = extent {
            weakObserver = observer
        } else {
            strongObserver = observer
        }
    }

    var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

    /// False once a weakly held observer is gone, or a next-transaction
    /// observer was notified of its transaction's end.
    var isObserving: Bool { observer != nil }

    func wraps(_ other: some TransactionObserver) -> Bool { observer === other }

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool {
        observer?.observes(eventsOfKind: kind) ?? false
    }

    func databaseDidChange() {
        if isEnabled { observer?.databaseDidChange() }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if isEnabled { observer?.databaseDidChange(with: event) }
    }

    func databaseWillChange(with event: DatabasePreUpdateEvent) {
        if isEnabled { observer?.databaseWillChange(with: event) }
    }

    func databaseWillCommit() throws {
        try observer?.databaseWillCommit()
    }

    func databaseDidCommit(_ db: Database) {
        takeObserverForEnd()?.databaseDidCommit(db)
    }

    func databaseDidRollback(_ db: Database) {
        takeObserverForEnd()?.databaseDidRollback(db)
    }

    /// The observer to tell about the end of a transaction. A
    /// next-transaction observer is released first, so that what it does in
    /// its callback is not notified to it.
    private func takeObserverForEnd() -> (any TransactionObserver)? {
        guard case .nextTransaction = extent else { return observer }
        let observer = strongObserver
        strongObserver = nil
        return observer
    }
}
