import Dispatch

/// How long a ``SharedValueObservation`` observes the database.
public enum SharedValueObservationExtent: Sendable {
    /// As long as the shared observation exists, subscribers or not.
    case observationLifetime
    /// As long as it has subscribers: the last one leaving stops it, the
    /// next one starts it again.
    case whileObserved
}

extension ValueObservation {
    /// One observation of the database for several subscribers: each gets
    /// the last value when it subscribes, then every new one, from a single
    /// fetch per change.
    ///
    /// ```swift
    /// let players = ValueObservation.tracking(Player.fetchAll).shared(in: dbQueue)
    /// let a = players.start(onError: { _ in }, onChange: { print("list", $0.count) })
    /// let b = players.start(onError: { _ in }, onChange: { print("badge", $0.count) })
    /// ```
    public func shared(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main),
        extent: SharedValueObservationExtent = .whileObserved
    ) -> SharedValueObservation<Reducer.Value> {
        let observation = self
        return SharedValueObservation(scheduler: scheduler, extent: extent) { onError, onChange in
            observation.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }
}

/// A ``ValueObservation`` shared by several subscribers; see
/// ``ValueObservation/shared(in:scheduling:extent:)``. An error ends it for
/// every subscriber; the next subscriber starts it again.
public final class SharedValueObservation<Element: Sendable>: Sendable {
    fileprivate typealias Start =
        @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void, _ onChange: @escaping @Sendable (Element) -> Void
        ) -> AnyDatabaseCancellable

    private struct Subscriber {
        var onError: @Sendable (any Error) -> Void
        var onChange: @Sendable (Element) -> Void
    }

    private struct State {
        var upstream: AnyDatabaseCancellable?
        var lastValue: Element?
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
    }

    private let startUpstream: Start
    private let scheduler: any ValueObservationScheduler
    private let extent: SharedValueObservationExtent
    private let state = Locked(State())

    fileprivate init(scheduler: any ValueObservationScheduler, extent: SharedValueObservationExtent, start: @escaping Start) {
        self.scheduler = scheduler
        self.extent = extent
        self.startUpstream = start
    }

    deinit {
        state.withLock { $0.upstream }?.cancel()
    }

    /// Subscribes: `onChange` gets the last value (or the first one), then
    /// each new value, until the returned cancellable is cancelled or
    /// deallocated, or an error (given to `onError`) ends the observation.
    /// The subscription keeps the shared observation alive meanwhile, as in
    /// GRDB: releasing the shared observation early does not end it.
    public func start(
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Element) -> Void
    ) -> AnyDatabaseCancellable {
        let (id, lastValue, needsUpstream) = state.withLock { state -> (Int, Element?, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(onError: onError, onChange: onChange)
            return (id, state.lastValue, state.upstream == nil)
        }
        if let lastValue {
            // The value the others have, now or on the scheduler's queue.
            if scheduler.immediateInitialValue() {
                onChange(lastValue)
            } else {
                scheduler.schedule { [weak self] in
                    if self?.state.withLock({ $0.subscribers[id] != nil }) == true { onChange(lastValue) }
                }
            }
        }
        if needsUpstream { startObserving() }
        return AnyDatabaseCancellable { self.unsubscribe(id) }
    }

    /// The values of the shared observation, as an async sequence.
    public func values(
        bufferingPolicy: AsyncValueObservation<Element>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Element> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            self.start(onError: onError, onChange: onChange)
        }
    }

    private func startObserving() {
        // A placeholder first, so that a subscriber arriving meanwhile does
        // not start a second upstream.
        let placeholder = AnyDatabaseCancellable(cancel: {})
        let claimed = state.withLock { state -> Bool in
            guard state.upstream == nil else { return false }
            state.upstream = placeholder
            return true
        }
        guard claimed else { return }
        let upstream = startUpstream(
            { [weak self] error in self?.fail(error) },
            { [weak self] value in self?.receive(value) })
        let replaced = state.withLock { state -> Bool in
            guard state.upstream === placeholder else { return false }
            state.upstream = upstream
            return true
        }
        // Failed or stopped while starting: the upstream is not wanted.
        if !replaced { upstream.cancel() }
    }

    private func receive(_ value: Element) {
        let subscribers = state.withLock { state -> [Subscriber] in
            state.lastValue = value
            return state.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        for subscriber in subscribers { subscriber.onChange(value) }
    }

    private func fail(_ error: any Error) {
        let subscribers = state.withLock { state -> [Subscriber] in
            let subscribers = state.subscribers.sorted { $0.key < $1.key }.map(\.value)
            state.subscribers = [:]
            state.upstream = nil
            state.lastValue = nil
            return subscribers
        }
        for subscriber in subscribers { subscriber.onError(error) }
    }

    private func unsubscribe(_ id: Int) {
        let stopped = state.withLock { state -> AnyDatabaseCancellable? in
            state.subscribers[id] = nil
            guard extent == .whileObserved, state.subscribers.isEmpty, let upstream = state.upstream else { return nil }
            state.upstream = nil
            state.lastValue = nil
            return upstream
        }
        stopped?.cancel()
    }
}
