/// The handlers an observation calls at each step; each is nil unless set.
struct ValueObservationEvents: Sendable {
    var willStart: (@Sendable () -> Void)?
    var willTrackRegion: (@Sendable (DatabaseRegion) -> Void)?
    var databaseDidChange: (@Sendable () -> Void)?
    var didFail: (@Sendable (any Error) -> Void)?
    var didCancel: (@Sendable () -> Void)?
}

/// Both handlers, in order; either when the other is nil.
private func chain(_ first: (@Sendable () -> Void)?, _ second: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
    guard let first else { return second }
    guard let second else { return first }
    return {
        first()
        second()
    }
}

private func chain<T>(_ first: (@Sendable (T) -> Void)?, _ second: (@Sendable (T) -> Void)?) -> (@Sendable (T) -> Void)? {
    guard let first else { return second }
    guard let second else { return first }
    return {
        first($0)
        second($0)
    }
}

extension ValueObservation {
    /// The observation, calling these handlers at each step: when it starts,
    /// before each fetch, when it knows the region it tracks, after a change
    /// to that region, for each value, on failure, on cancellation.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(Player.fetchCount)
    ///     .handleEvents(databaseDidChange: { logger.debug("players changed") })
    /// ```
    public func handleEvents(
        willStart: (@Sendable () -> Void)? = nil,
        willFetch: (@Sendable () -> Void)? = nil,
        willTrackRegion: (@Sendable (DatabaseRegion) -> Void)? = nil,
        databaseDidChange: (@Sendable () -> Void)? = nil,
        didReceiveValue: (@Sendable (Reducer.Value) -> Void)? = nil,
        didFail: (@Sendable (any Error) -> Void)? = nil,
        didCancel: (@Sendable () -> Void)? = nil
    ) -> ValueObservation<ValueReducers.Trace<Reducer>> {
        var observation = mapReducer { ValueReducers.Trace($0, willFetch: willFetch, didReceiveValue: didReceiveValue) }
        observation.events.willStart = chain(events.willStart, willStart)
        observation.events.willTrackRegion = chain(events.willTrackRegion, willTrackRegion)
        observation.events.databaseDidChange = chain(events.databaseDidChange, databaseDidChange)
        observation.events.didFail = chain(events.didFail, didFail)
        observation.events.didCancel = chain(events.didCancel, didCancel)
        return observation
    }

    /// The observation, printing each step: "start", "fetch", "tracked
    /// region: ...", "database did change", "value: ...", "failure: ...",
    /// "cancel", after `prefix` and a colon when there is one.
    ///
    /// ```swift
    /// let cancellable = ValueObservation.tracking(Player.fetchCount)
    ///     .print("players")
    ///     .start(in: dbQueue, onError: { _ in }, onChange: { _ in })
    /// // players: start
    /// // players: fetch
    /// // players: value: 3
    /// ```
    ///
    /// Each message is one `write` to `stream`, without a line break (GRDB
    /// writes them so); the standard output gets one line per message.
    public func print(_ prefix: String = "", to stream: sending (any TextOutputStream)? = nil)
        -> ValueObservation<ValueReducers.Trace<Reducer>>
    {
        let output = Locked<any TextOutputStream>(stream ?? StandardOutputStream())
        let prefix = prefix.isEmpty ? "" : "\(prefix): "
        let write: @Sendable (String) -> Void = { message in output.withLock { $0.write(prefix + message) } }
        return handleEvents(
            willStart: { write("start") },
            willFetch: { write("fetch") },
            willTrackRegion: { write("tracked region: \($0)") },
            databaseDidChange: { write("database did change") },
            didReceiveValue: { write("value: \($0)") },
            didFail: { write("failure: \($0)") },
            didCancel: { write("cancel") })
    }
}

/// The standard output, one line per message, for ``ValueObservation/print(_:to:)``.
private struct StandardOutputStream: TextOutputStream {
    mutating func write(_ string: String) {
        Swift.print(string)
    }
}

extension ValueReducers {
    /// Calls handlers around the fetches and values of another reducer:
    /// see ``ValueObservation/handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``.
    public struct Trace<Base: ValueReducer>: ValueReducer {
        private var base: Base
        private let willFetch: (@Sendable () -> Void)?
        private let didReceiveValue: (@Sendable (Base.Value) -> Void)?

        init(_ base: Base, willFetch: (@Sendable () -> Void)?, didReceiveValue: (@Sendable (Base.Value) -> Void)?) {
            self.base = base
            self.willFetch = willFetch
            self.didReceiveValue = didReceiveValue
        }

        /// The fetch of the base reducer, after `willFetch`.
        public var _fetch: @Sendable (Database) throws -> Base.Fetched {
            let fetch = base._fetch
            guard let willFetch else { return fetch }
            return { db in
                willFetch()
                return try fetch(db)
            }
        }

        /// The value of the base reducer, given to `didReceiveValue`.
        public mutating func _value(_ fetched: Base.Fetched) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            didReceiveValue?(value)
            return value
        }
    }
}
