import Synchronization

/// Tells, on the writer, after each committed transaction that modified a
/// region of the database.
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Player.all())
/// let cancellable = observation.start(in: dbQueue) { error in
///     print(error)
/// } onChange: { db in
///     print("players were modified")
/// }
/// ```
///
/// `onChange` runs on the writer's thread right after the commit, with the
/// connection, before any other write.
public struct DatabaseRegionObservation: Sendable {
    private let regions: [any DatabaseRegionConvertible]

    /// An observation of `regions` (tables, requests, regions).
    public init(tracking regions: any DatabaseRegionConvertible...) {
        self.init(tracking: regions)
    }

    /// An observation of `regions`.
    public init(tracking regions: [any DatabaseRegionConvertible]) {
        self.regions = regions
    }

    /// Starts observing; stops when the returned cancellable is cancelled or
    /// deallocated. An error computing the region goes to `onError`, before
    /// `start` returns.
    public func start(
        in writer: any DatabaseWriter,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void
    ) -> AnyDatabaseCancellable {
        let observer = writer.unsafeReentrantWrite { db -> RegionObserver? in
            do {
                var region = DatabaseRegion()
                for convertible in regions { region.formUnion(try convertible.databaseRegion(db)) }
                let observer = RegionObserver(region: try region.observableRegion(db), onChange: onChange)
                db.add(transactionObserver: observer, extent: .observerLifetime)
                return observer
            } catch {
                onError(error)
                return nil
            }
        }
        // The cancellable owns the observer; the writer holds it weakly.
        return AnyDatabaseCancellable { observer?.cancel() }
    }
}

/// The transaction observer of a ``DatabaseRegionObservation``. Its region
/// is set before it is added; `isChanged` belongs to the writer's thread.
private final class RegionObserver: TransactionObserver, @unchecked Sendable {
    private let region: DatabaseRegion
    private let onChange: @Sendable (Database) -> Void
    private let isCancelled = Atomic(false)
    private var isChanged = false

    init(region: DatabaseRegion, onChange: @escaping @Sendable (Database) -> Void) {
        self.region = region
        self.onChange = onChange
    }

    func cancel() { isCancelled.store(true, ordering: .relaxed) }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if region.isModified(by: event) {
            isChanged = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseWillChange(with event: DatabasePreUpdateEvent) {
        if region.isModified(byRowRemovedIn: event) {
            isChanged = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseDidChange() {
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard isChanged else { return }
        isChanged = false
        if !isCancelled.load(ordering: .relaxed) { onChange(db) }
    }

    func databaseDidRollback(_ db: Database) {
        isChanged = false
    }
}
