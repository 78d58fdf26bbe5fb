/// Notifies the fresh value of a fetch each time a transaction changes what
/// it read.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try Player.order(Column("score").desc).limit(10).fetchAll(db)
/// }
/// for try await players in observation.values(in: dbPool) {
///     print("best players: \(players)")
/// }
/// ```
///
/// The first value is fetched when the observation starts; then, after each
/// committed transaction that modified the region the fetch read, the fetch
/// runs again and its value is notified. Values come in the order of the
/// transactions; consecutive transactions may be notified once. An error
/// ends the observation.
///
/// On a ``DatabasePool``, fetches run on its readers, beside the writes,
/// except those of ``tracking(_:)`` whose region may change from one fetch
/// to the next: they run on the writer, so that no commit slips between a
/// fetch and the region it records. A connection without observations pays
/// nothing; a write pays one region check per observation.
public struct ValueObservation<Reducer: ValueReducer>: Sendable {
    let tracking: ValueObservationTracking
    let makeReducer: @Sendable () -> Reducer

    /// When true, fetches run on the writer, in a write transaction:
    /// for fetches that write (a temporary table, for example).
    public var requiresWriteAccess = false

    /// The handlers of ``handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``.
    var events = ValueObservationEvents()

    init(tracking: ValueObservationTracking, makeReducer: @escaping @Sendable () -> Reducer) {
        self.tracking = tracking
        self.makeReducer = makeReducer
    }

    func mapReducer<Other>(_ transform: @escaping @Sendable (Reducer) -> Other) -> ValueObservation<Other> {
        let makeReducer = self.makeReducer
        var observation = ValueObservation<Other>(tracking: tracking) { transform(makeReducer()) }
        observation.requiresWriteAccess = requiresWriteAccess
        observation.events = events
        return observation
    }
}

extension ValueObservation {
    /// An observation of `fetch`, whose region is recorded at each fetch:
    /// the right one when what is read depends on what was read (a request
    /// built from the result of another).
    public static func tracking<Value>(
        _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .recordedEachFetch) { ValueReducers.Fetch(fetch) }
    }

    /// An observation of `fetch`, whose region is recorded at the first
    /// fetch: later fetches may then run on a pool's readers.
    public static func trackingConstantRegion<Value>(
        _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .recordedOnce) { ValueReducers.Fetch(fetch) }
    }

    /// An observation of `fetch`, after each change to one of `regions`
    /// (tables, requests, ``DatabaseRegion/fullDatabase``).
    public static func tracking<Value>(
        region: any DatabaseRegionConvertible...,
        fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        tracking(regions: region, fetch: fetch)
    }

    /// An observation of `fetch`, after each change to one of `regions`.
    public static func tracking<Value>(
        regions: [any DatabaseRegionConvertible],
        fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .constant(regions)) { ValueReducers.Fetch(fetch) }
    }

    /// The observation of the values of this one, transformed.
    public func map<T: Sendable>(
        _ transform: @escaping @Sendable (Reducer.Value) throws -> T
    ) -> ValueObservation<ValueReducers.Map<Reducer, T>> {
        mapReducer { ValueReducers.Map($0, transform) }
    }

    /// The observation of the values of this one, without the values that
    /// `isDuplicate` finds equal to the previous one.
    public func removeDuplicates(
        by isDuplicate: sending @escaping (Reducer.Value, Reducer.Value) -> Bool
    ) -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        // Called by one fetch at a time only (see ValueReducer).
        nonisolated(unsafe) let isDuplicate = isDuplicate
        return mapReducer { ValueReducers.RemoveDuplicates($0, isDuplicate: isDuplicate) }
    }
}

extension ValueObservation where Reducer.Value: Equatable {
    /// The observation of the values of this one, without the values equal
    /// to the previous one.
    public func removeDuplicates() -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        mapReducer { ValueReducers.RemoveDuplicates($0, isDuplicate: ==) }
    }
}

extension ValueObservation {
    /// Starts the observation: `onChange` gets the first value, then a value
    /// after each change, on the scheduler's queue, until the returned
    /// cancellable is cancelled or deallocated, or an error (given to
    /// `onError`) ends it.
    ///
    /// ```swift
    /// let cancellable = observation.start(
    ///     in: dbQueue, scheduling: .async(onQueue: queue),
    ///     onError: { error in print(error) },
    ///     onChange: { players in print(players) })
    /// ```
    @preconcurrency public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let observer = ValueObserver(
            observation: self, reader: reader, scheduler: scheduler, onError: onError, onChange: onChange)
        observer.start()
        return AnyDatabaseCancellable { observer.cancel() }
    }

    /// Starts the observation from the main actor, notifying on it (by
    /// default, every value asynchronously; with `.immediate`, the first one
    /// before `start` returns).
    @preconcurrency @MainActor public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationMainActorScheduler = .mainActor,
        onError: @escaping @MainActor (any Error) -> Void,
        onChange: @escaping @MainActor (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let general: any ValueObservationScheduler = scheduler
        return start(
            in: reader, scheduling: general,
            onError: { error in MainActor.assumeIsolated { onError(error) } },
            onChange: { value in MainActor.assumeIsolated { onChange(value) } })
    }

    /// The values of the observation, as an async sequence: the first value,
    /// then a value after each change. Ending the iteration (or its task)
    /// cancels the observation; an error ends the sequence.
    ///
    /// ```swift
    /// for try await count in ValueObservation.tracking(Player.fetchCount).values(in: dbQueue) {
    ///     print(count)
    /// }
    /// ```
    public func values(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .task,
        bufferingPolicy: AsyncValueObservation<Reducer.Value>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Reducer.Value> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }
}

/// How an observation knows its region.
enum ValueObservationTracking: Sendable {
    /// The region of every fetch, recorded as it runs.
    case recordedEachFetch
    /// The region of the first fetch, recorded as it runs.
    case recordedOnce
    /// The given regions.
    case constant([any DatabaseRegionConvertible])
}
