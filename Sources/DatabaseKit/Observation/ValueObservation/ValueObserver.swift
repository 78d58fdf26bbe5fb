/// The engine of a started ``ValueObservation``: a transaction observer of
/// the writer that fetches again after each commit that changed the
/// observed region.
///
/// Confinement: `region`, `lastRecorded`, `isChanged`, `isFetchingOnWriter` and
/// `announcesRegion` belong to the writer's thread (the transaction observer
/// callbacks, and the fetches that record a region, which run there; a
/// pool's first fetch, on a reader, ends before the writer's access that
/// installs the observer begins); `reducer` is used by one fetch at a time
/// (the `isFetching` flag of `state` serialises fetches); everything else
/// shared is in `state`, behind its lock. The checks of each write take no
/// lock.
final class ValueObserver<Reducer: ValueReducer>: TransactionObserver, @unchecked Sendable {
    private let reader: any DatabaseReader
    private let writer: (any DatabaseWriter)?
    private let tracking: ValueObservationTracking
    private let requiresWriteAccess: Bool
    private let fetch: @Sendable (Database) throws -> Reducer.Fetched
    private let scheduler: any ValueObservationScheduler
    private let onError: @Sendable (any Error) -> Void
    private let onChange: @Sendable (Reducer.Value) -> Void
    private let events: ValueObservationEvents

    private var reducer: Reducer
    /// What the observation watches; empty until the first fetch.
    private var region = DatabaseRegion()
    /// The last region a fetch recorded, and its observable form.
    private var lastRecorded: (recorded: DatabaseRegion, observable: DatabaseRegion)?
    private var isChanged = false
    private var isFetchingOnWriter = false
    /// Whether recording a region tells `willTrackRegion`: not for a read-only
    /// database (nothing to track), nor for a pool's first fetch on a reader
    /// (the writer's fetch tells it, as it installs the observer).
    private var announcesRegion: Bool

    private struct State {
        /// The region is known (recorded by the first fetch, or given).
        var hasRegion = false
        var isFetching = false
        /// A commit came while a fetch was running: fetch again after it.
        var needsFetch = false
        var isCancelled = false
        /// An error ended the observation.
        var isFinished = false
        var isActive: Bool { !isCancelled && !isFinished }
    }
    private let state = Locked(State())

    init(
        observation: ValueObservation<Reducer>, reader: any DatabaseReader, scheduler: any ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) {
        self.reader = reader
        // A read-only database never changes: one fetch, nothing observed.
        self.writer = reader.configuration.readonly ? nil : reader as? any DatabaseWriter
        self.announcesRegion = !reader.configuration.readonly && reader is any DatabaseWriter
        self.tracking = observation.tracking
        self.requiresWriteAccess = observation.requiresWriteAccess
        let reducer = observation.makeReducer()
        self.fetch = reducer._fetch
        self.reducer = reducer
        self.scheduler = scheduler
        self.onError = onError
        self.onChange = onChange
        self.events = observation.events
    }

    // MARK: Start and cancel

    /// Fetches the first value and, on a writer, starts observing it: both
    /// in one access of the writer, so that no commit comes between them.
    /// A pool reads the first value first (see `startConcurrently`).
    func start() {
        events.willStart?()
        let immediate = scheduler.immediateInitialValue()
        if let pool = writer as? DatabasePool, !requiresWriteAccess {
            startConcurrently(pool, immediate: immediate)
            return
        }
        guard let writer else {
            // A snapshot never changes: its one value.
            if immediate {
                do {
                    if let value = try reader.unsafeReentrantRead({ db in try reduce(isolatedFetch(db)) }) { onChange(value) }
                } catch {
                    finish(with: error, immediately: true)
                }
            } else {
                reader.asyncRead { result in
                    do {
                        if let value = try self.reduce(self.isolatedFetch(result.get())) { self.deliver(value) }
                    } catch {
                        self.finish(with: error)
                    }
                }
            }
            return
        }
        if immediate {
            do {
                if let value = try writer.unsafeReentrantWrite({ db in try startObserving(db) }) { onChange(value) }
            } catch {
                finish(with: error, immediately: true)
            }
        } else {
            writer.asyncWriteWithoutTransaction { db in
                do {
                    if let value = try self.startObserving(db) { self.deliver(value) }
                } catch {
                    self.finish(with: error)
                }
            }
        }
    }

    /// On a pool, as GRDB does without WAL snapshots: the first value comes
    /// from a reader, so that starting waits for no write (and the fetch may
    /// itself write); the writer then fetches again as it installs the
    /// observer, so that a commit between the two is not missed. The second
    /// value may equal the first (`removeDuplicates()` drops it). The first
    /// value is handed to the scheduler before the writer's access is
    /// queued, so that the two come in that order.
    private func startConcurrently(_ pool: DatabasePool, immediate: Bool) {
        announcesRegion = false
        if immediate {
            let value: Reducer.Value?
            do {
                value = try pool.unsafeReentrantRead { db in try reduce(isolatedFetch(db)) }
            } catch {
                finish(with: error, immediately: true)
                return
            }
            // Notified here, before `start` returns; the writer's value goes
            // through the scheduler, after it.
            startObservingOnWriter(pool)
            if let value { onChange(value) }
        } else {
            pool.asyncRead { result in
                guard self.state.withLock({ $0.isActive }) else { return }
                let value: Reducer.Value?
                do {
                    value = try self.reduce(self.isolatedFetch(result.get()))
                } catch {
                    self.finish(with: error)
                    return
                }
                if let value { self.deliver(value) }
                self.startObservingOnWriter(pool)
            }
        }
    }

    private func startObservingOnWriter(_ pool: DatabasePool) {
        pool.asyncWriteWithoutTransaction { db in
            guard self.state.withLock({ $0.isActive }) else { return }
            self.events.databaseDidChange?()
            do {
                if let value = try self.startObserving(db) { self.deliver(value) }
            } catch {
                self.finish(with: error)
            }
        }
    }

    private func startObserving(_ db: Database) throws -> Reducer.Value? {
        guard state.withLock({ $0.isActive }) else { return nil }
        let fetched = try isolatedFetch(db)
        if !announcesRegion {
            // After a pool's first fetch on a reader: told now, as GRDB does.
            announcesRegion = true
            events.willTrackRegion?(region)
        }
        // Weakly held: the cancellable owns the observer, and the writer
        // forgets it once it is gone.
        db.add(transactionObserver: self, extent: .observerLifetime)
        return try reduce(fetched)
    }

    /// Stops notifying. The writer forgets the observer when the
    /// cancellable releases it.
    func cancel() {
        let wasActive = state.withLock { state -> Bool in
            defer { state.isCancelled = true }
            return !state.isCancelled
        }
        if wasActive { events.didCancel?() }
    }

    // MARK: Fetching

    /// Fetches again, now or after the running fetch.
    private func requestFetch() {
        let starts = state.withLock { state -> Bool in
            guard state.isActive else { return false }
            if state.isFetching {
                state.needsFetch = true
                return false
            }
            state.isFetching = true
            return true
        }
        if starts { performFetch() }
    }

    private func performFetch() {
        let onWriter: Bool
        switch tracking {
        case .recordedEachFetch: onWriter = true  // the region changes with the fetch
        case .recordedOnce, .constant: onWriter = requiresWriteAccess
        }
        if onWriter, let writer {
            writer.asyncWriteWithoutTransaction { db in
                self.fetchDidComplete(Result { try self.reduce(self.isolatedFetch(db)) })
            }
        } else {
            reader.asyncRead { result in
                self.fetchDidComplete(Result { try self.reduce(self.isolatedFetch(result.get())) })
            }
        }
    }

    private func fetchDidComplete(_ result: Result<Reducer.Value?, any Error>) {
        switch result {
        case .success(let value):
            if let value { deliver(value) }
        case .failure(let error):
            finish(with: error)
            return
        }
        let again = state.withLock { state -> Bool in
            if state.needsFetch && state.isActive {
                state.needsFetch = false
                return true
            }
            state.isFetching = false
            return false
        }
        if again { performFetch() }
    }

    /// The fetch, in a transaction (read-only unless the observation
    /// requires write access), recording its region when it should.
    private func isolatedFetch(_ db: Database) throws -> Reducer.Fetched {
        // A fetch that writes runs on the writer: its own changes are not
        // changes to notify. (Other fetches may run on readers: they leave
        // the writer's flag alone.)
        if requiresWriteAccess { isFetchingOnWriter = true }
        defer { if requiresWriteAccess { isFetchingOnWriter = false } }
        return try db.isolated(readOnly: !requiresWriteAccess) {
            switch tracking {
            case .recordedEachFetch:
                return try recordingRegion(db)
            case .recordedOnce:
                if state.withLock({ $0.hasRegion }) { return try fetch(db) }
                return try recordingRegion(db)
            case .constant(let regions):
                // Fetched first, then the region told, as GRDB orders its events.
                let fetched = try fetch(db)
                if !state.withLock({ $0.hasRegion }) {
                    var region = DatabaseRegion()
                    for convertible in regions { region.formUnion(try convertible.databaseRegion(db)) }
                    try setRegion(region.observableRegion(db))
                }
                return fetched
            }
        }
    }

    private func recordingRegion(_ db: Database) throws -> Reducer.Fetched {
        var region = DatabaseRegion()
        let fetched = try db.recordingSelection(&region) { try fetch(db) }
        // The observable region reads the schema: once per recorded region,
        // not at each fetch.
        if let lastRecorded, lastRecorded.recorded == region {
            try setRegion(lastRecorded.observable)
        } else {
            let observable = try region.observableRegion(db)
            lastRecorded = (region, observable)
            try setRegion(observable)
        }
        return fetched
    }

    /// On the writer's thread (see the confinement rules above).
    private func setRegion(_ region: DatabaseRegion) throws {
        if announcesRegion, let willTrackRegion = events.willTrackRegion, region != self.region || !state.withLock({ $0.hasRegion }) {
            willTrackRegion(region)
        }
        self.region = region
        state.withLock { $0.hasRegion = true }
    }

    private func reduce(_ fetched: Reducer.Fetched) throws -> Reducer.Value? {
        try reducer._value(fetched)
    }

    // MARK: Notifying

    private func deliver(_ value: Reducer.Value) {
        let onChange = self.onChange
        scheduler.schedule { [self] in
            if state.withLock({ !$0.isCancelled }) { onChange(value) }
        }
    }

    private func finish(with error: any Error, immediately: Bool = false) {
        state.withLock { $0.isFinished = true }
        events.didFail?(error)
        let onError = self.onError
        let notify: @Sendable () -> Void = { [self] in
            if state.withLock({ !$0.isCancelled }) { onError(error) }
        }
        if immediately { notify() } else { scheduler.schedule(notify) }
    }

    // MARK: TransactionObserver

    // A cancelled observation may still be asked until the writer forgets
    // it: its fetch requests are then refused (requestFetch).

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard !isFetchingOnWriter else { return }
        if region.isModified(by: event) {
            isChanged = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseWillChange(with event: DatabasePreUpdateEvent) {
        guard !isFetchingOnWriter else { return }
        if region.isModified(byRowRemovedIn: event) {
            isChanged = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseDidChange() {
        guard !isFetchingOnWriter else { return }
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        // The commit of a transaction that changed nothing observed is the
        // common case: it returns before the generic work below, whose
        // entry instantiates metadata (`Result<Reducer.Value, Error>`).
        guard isChanged else { return }
        changesDidCommit(db)
    }

    @inline(never)
    private func changesDidCommit(_ db: Database) {
        isChanged = false
        events.databaseDidChange?()
        if fetchesInWriterAfterCommit {
            // The fetch would run on this connection anyway: now, with no
            // hop to another thread (the writer waits for it either way).
            let starts = state.withLock { state -> Bool in
                guard state.isActive, !state.isFetching else { return false }
                state.isFetching = true
                return true
            }
            if starts { fetchDidComplete(Result { try reduce(isolatedFetch(db)) }) } else { requestFetch() }
        } else {
            requestFetch()
        }
    }

    /// True when fetches run on the writer's connection (a queue, or a
    /// region recorded at each fetch) and only read: they then run right
    /// after the commit, on the writer.
    private var fetchesInWriterAfterCommit: Bool {
        if requiresWriteAccess { return false }
        if case .recordedEachFetch = tracking { return true }
        return reader is DatabaseQueue
    }

    func databaseDidRollback(_ db: Database) {
        isChanged = false
    }
}
