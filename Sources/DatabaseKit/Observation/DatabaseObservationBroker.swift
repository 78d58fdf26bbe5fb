internal import DatabaseKitSQLite
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells a connection's transaction observers about its changes and
/// transactions.
///
/// Created with the first observer, so that a connection without observers
/// pays nothing: no SQLite hook, one nil check per statement.
///
/// - Before a statement runs, the observers interested in the kinds of change
///   its authorizer reported are selected, and only then is the update hook
///   installed (``statementWillExecute(_:)``).
/// - Changes made inside a savepoint are buffered until the savepoint is
///   released (and dropped when it is rolled back), so that observers only
///   hear about changes that may be committed.
/// - The commit hook calls ``TransactionObserver/databaseWillCommit()``; an
///   error there turns the commit into a rollback, and is thrown by the
///   statement that committed.
final class DatabaseObservationBroker {
    private unowned let database: Database
    private var observations: [TransactionObservation] = []
    private var savepointStack = SavepointStack()
    private var completion = Completion.none
    /// True when an observation stopped observing until the transaction
    /// ends: the end of the transaction enables it again.
    private var hasDisabledObservations = false

    /// How the current transaction ended, as the hooks saw it.
    private enum Completion {
        case none
        case commit
        case rollback
        case cancelledCommit(any Error)
    }

    /// The observers notified of the changes of the running statement.
    private var statementObservations: [StatementObservation] = [] {
        didSet {
            if statementObservations.isEmpty != oldValue.isEmpty {
                if statementObservations.isEmpty { uninstallUpdateHooks() } else { installUpdateHooks() }
            }
        }
    }

    init(_ database: Database) {
        self.database = database
        installCommitAndRollbackHooks()
    }

    var hasObservers: Bool { !observations.isEmpty }

    /// True when SQLite reports the rowid a row had before it was deleted
    /// or updated to another rowid, through its pre-update hook: only then
    /// can a region name rows (see `DatabaseRegion.isModified(byRowRemovedIn:)`).
    static let reportsRemovedRows = dbkit_has_preupdate_hook() != 0

    // MARK: Observers

    func add(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        observations.append(TransactionObservation(observer: observer, extent: extent))
    }

    func remove(_ observer: some TransactionObserver) {
        observations.removeAll { $0.wraps(observer) }
        statementObservations.removeAll { $0.observation.wraps(observer) }
    }

    func disableUntilNextTransaction(_ observer: some TransactionObserver) {
        guard let observation = observations.first(where: { $0.wraps(observer) }) else { return }
        observation.isEnabled = false
        hasDisabledObservations = true
        statementObservations.removeAll { $0.observation === observation }
    }

    /// True when an observer wants deletions from the table (the
    /// authorizer then disables SQLite's truncate optimization, which would
    /// delete every row without reporting them).
    func observesDeletions(on table: String) -> Bool {
        observations.contains { $0.observes(eventsOfKind: .delete(tableName: table)) }
    }

    func notifyChanges(withEventsOfKind kinds: [DatabaseEventKind]) {
        withCurrentBroker {
            for observation in observations where observation.isEnabled {
                if kinds.contains(where: observation.observes(eventsOfKind:)) {
                    observation.databaseDidChange()
                }
            }
        }
    }

    // MARK: Statement execution

    func statementWillExecute(_ statement: Statement) {
        completion = .none
        guard !observations.isEmpty, !database.isReadOnly else { return }
        let kinds = statement.authorizerEventKinds
        switch kinds.count {
        case 0:
            // BEGIN, COMMIT, SELECT: nothing to select, nothing to assign.
            if !statementObservations.isEmpty { statementObservations = [] }
        case 1:
            // All changes have the one kind the statement announced.
            statementObservations = observations.compactMap { observation in
                observation.isEnabled && observation.observes(eventsOfKind: kinds[0])
                    ? StatementObservation(observation: observation, predicate: .all) : nil
            }
        default:
            // Triggers and foreign key actions: only the observed kinds.
            statementObservations = observations.compactMap { observation in
                guard observation.isEnabled else { return nil }
                let observed = kinds.filter(observation.observes(eventsOfKind:))
                return observed.isEmpty
                    ? nil
                    : StatementObservation(observation: observation, predicate: .matching(observed: observed, announced: kinds))
            }
        }
        if !statementObservations.isEmpty { Self.setCurrent(self) }
    }

    func statementDidExecute(_ statement: Statement) throws {
        if !statementObservations.isEmpty {
            statementObservations = []
            Self.setCurrent(nil)
        }
        if let effect = statement.transactionEffect {
            switch effect {
            case .beginTransaction, .rollbackTransaction:
                break
            case .commitTransaction:
                if case .none = completion {
                    // BEGIN DEFERRED; COMMIT with nothing in between: SQLite saw
                    // no transaction, the code wrote one; it is notified.
                    try didCommitEmptyTransaction()
                    return
                }
            case .beginSavepoint(let name):
                savepointStack.savepointDidBegin(name)
            case .releaseSavepoint(let name):
                savepointStack.savepointDidRelease(name)
                if case .none = completion, !database.isInsideTransaction {
                    try didCommitEmptyTransaction()
                    return
                }
                if savepointStack.isEmpty { notifyBufferedEvents() }
            case .rollbackSavepoint(let name):
                savepointStack.savepointDidRollback(name)
            }
        }
        let completion = self.completion
        self.completion = .none
        switch completion {
        case .commit: databaseDidCommit()
        case .rollback: databaseDidRollback(notifying: !database.isReadOnly)
        default: break
        }
    }

    func statementDidFail(_ statement: Statement) throws {
        if !statementObservations.isEmpty {
            statementObservations = []
            Self.setCurrent(nil)
        }
        let completion = self.completion
        self.completion = .none
        switch completion {
        case .rollback:
            // A failed statement outside of a transaction: its implicit
            // transaction rolled back, with nothing to tell.
            databaseDidRollback(notifying: false)
        case .cancelledCommit(let error):
            databaseDidRollback(notifying: !database.isReadOnly)
            throw error
        default:
            break
        }
    }

    // MARK: Changes

    fileprivate func databaseDidChange(with event: DatabaseEvent) {
        if savepointStack.isEmpty {
            for statementObservation in statementObservations where statementObservation.predicate.matches(event) {
                statementObservation.observation.databaseDidChange(with: event)
            }
        } else {
            savepointStack.buffer.append((event.copy(), statementObservations))
        }
    }

    fileprivate func databaseWillChange(with event: DatabasePreUpdateEvent) {
        if savepointStack.isEmpty {
            for statementObservation in statementObservations where statementObservation.predicate.matches(event) {
                statementObservation.observation.databaseWillChange(with: event)
            }
        } else {
            savepointStack.buffer.append((event.copy(), statementObservations))
        }
    }

    private func notifyBufferedEvents() {
        let buffer = savepointStack.buffer
        savepointStack.clear()
        guard !buffer.isEmpty else { return }
        withCurrentBroker {
            for (event, statementObservations) in buffer {
                for statementObservation in statementObservations where statementObservation.predicate.matches(event) {
                    event.send(to: statementObservation.observation)
                }
            }
        }
    }

    // MARK: Transaction end

    private func databaseWillCommit() throws {
        notifyBufferedEvents()
        guard !database.isReadOnly else { return }
        for observation in observations {
            try observation.databaseWillCommit()
        }
    }

    private func databaseDidCommit() {
        savepointStack.clear()
        if !database.isReadOnly {
            // The commit happened: the observers see it whatever happens to
            // the task that wrote (a task cancelled from one of them too).
            database.ignoringCancellation {
                for observation in observations {
                    observation.databaseDidCommit(database)
                }
            }
        }
        databaseDidEndTransaction()
    }

    private func didCommitEmptyTransaction() throws {
        do {
            try databaseWillCommit()
            databaseDidCommit()
        } catch {
            databaseDidRollback(notifying: !database.isReadOnly)
            throw error
        }
    }

    private func databaseDidRollback(notifying: Bool) {
        savepointStack.clear()
        if notifying {
            for observation in observations {
                observation.databaseDidRollback(database)
            }
        }
        databaseDidEndTransaction()
    }

    private func databaseDidEndTransaction() {
        observations.removeAll { !$0.isObserving }
        if hasDisabledObservations {
            hasDisabledObservations = false
            for observation in observations { observation.isEnabled = true }
        }
    }

    // MARK: SQLite hooks

    private func installCommitAndRollbackHooks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_commit_hook(
            database.sqliteConnection,
            { context in
                let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
                do {
                    try broker.databaseWillCommit()
                    broker.completion = .commit
                    return 0
                } catch {
                    // Non-zero turns the commit into a rollback.
                    broker.completion = .cancelledCommit(error)
                    return 1
                }
            }, context)
        sqlite3_rollback_hook(
            database.sqliteConnection,
            { context in
                let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
                if case .cancelledCommit = broker.completion { return }
                broker.completion = .rollback
            }, context)
    }

    /// Removes every hook: the connection is closing.
    func uninstallHooks() {
        sqlite3_commit_hook(database.sqliteConnection, nil, nil)
        sqlite3_rollback_hook(database.sqliteConnection, nil, nil)
        uninstallUpdateHooks()
    }

    private func installUpdateHooks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(
            database.sqliteConnection,
            { context, kind, databaseName, tableName, rowID in
                guard let kind = DatabaseEvent.Kind(rawValue: kind) else { return }
                let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
                broker.databaseDidChange(
                    with: DatabaseEvent(kind: kind, rowID: rowID, databaseNameCString: databaseName, tableNameCString: tableName))
            }, context)
        _ = dbkit_preupdate_hook(
            database.sqliteConnection,
            { context, connection, kind, databaseName, tableName, initialRowID, finalRowID in
                guard let kind = DatabasePreUpdateEvent.Kind(rawValue: kind), let connection else { return }
                let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
                broker.databaseWillChange(
                    with: DatabasePreUpdateEvent(
                        connection: connection, kind: kind, initialRowID: initialRowID, finalRowID: finalRowID,
                        databaseNameCString: databaseName, tableNameCString: tableName))
            }, context)
    }

    private func uninstallUpdateHooks() {
        sqlite3_update_hook(database.sqliteConnection, nil, nil)
        _ = dbkit_preupdate_hook(database.sqliteConnection, nil, nil)
    }

    // MARK: The current broker

    /// The broker whose observers are being notified on this thread, for
    /// ``TransactionObserver/stopObservingDatabaseChangesUntilNextTransaction()``.
    static var current: DatabaseObservationBroker? {
        pthread_getspecific(currentBrokerKey).map { Unmanaged<DatabaseObservationBroker>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func setCurrent(_ broker: DatabaseObservationBroker?) {
        pthread_setspecific(currentBrokerKey, broker.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    private func withCurrentBroker(_ body: () -> Void) {
        let previous = Self.current
        Self.setCurrent(self)
        defer { Self.setCurrent(previous) }
        body()
    }
}

/// The thread-specific slot of ``DatabaseObservationBroker/current``.
private let currentBrokerKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// An observer selected for the running statement, with the events it gets.
struct StatementObservation {
    let observation: TransactionObservation
    let predicate: EventPredicate

    enum EventPredicate {
        /// Every event: the statement announced a single kind of change.
        case all
        /// The events of the observed kinds, and the events no kind
        /// announced (virtual tables that change their shadow tables).
        case matching(observed: [DatabaseEventKind], announced: [DatabaseEventKind])

        func matches(_ event: some DatabaseEventProtocol) -> Bool {
            switch self {
            case .all:
                return true
            case let .matching(observed, announced):
                if observed.contains(where: event.matchesKind) { return true }
                return !announced.contains(where: event.matchesKind)
            }
        }
    }
}

/// The savepoints of the current transaction, and the changes made inside
/// them, held until the outermost one is released.
struct SavepointStack {
    var buffer: [(event: any DatabaseEventProtocol, observations: [StatementObservation])] = []
    private var savepoints: [(name: String, bufferCount: Int)] = []

    var isEmpty: Bool { savepoints.isEmpty }

    mutating func clear() {
        buffer.removeAll()
        savepoints.removeAll()
    }

    mutating func savepointDidBegin(_ name: String) {
        savepoints.append((name.lowercased(), buffer.count))
    }

    /// ROLLBACK TO keeps the savepoint, and drops what followed it.
    mutating func savepointDidRollback(_ name: String) {
        let name = name.lowercased()
        while let last = savepoints.last, last.name != name { savepoints.removeLast() }
        if let last = savepoints.last { buffer.removeLast(buffer.count - last.bufferCount) }
    }

    /// RELEASE removes the savepoint and the ones after it.
    mutating func savepointDidRelease(_ name: String) {
        let name = name.lowercased()
        while let last = savepoints.last, last.name != name { savepoints.removeLast() }
        if !savepoints.isEmpty { savepoints.removeLast() }
    }
}
