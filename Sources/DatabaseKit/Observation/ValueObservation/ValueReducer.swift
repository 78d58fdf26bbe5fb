/// What a ``ValueObservation`` fetches, and how it turns each fetch into
/// the value it notifies.
///
/// Observations build their reducers (``ValueObservation/tracking(_:)``,
/// ``ValueObservation/map(_:)``, ``ValueObservation/removeDuplicates()``);
/// applications seldom write one. A reducer is used by one fetch at a time,
/// so it need not be `Sendable`; its fetch runs on database threads and is.
public protocol ValueReducer: SendableMetatype {
    /// What the fetch returns.
    associatedtype Fetched
    /// The values the observation notifies.
    associatedtype Value: Sendable

    /// The fetch, run in a read transaction after each change.
    var _fetch: @Sendable (Database) throws -> Fetched { get }

    /// The value to notify after a fetch, or nil to notify nothing.
    mutating func _value(_ fetched: Fetched) throws -> Value?
}

/// The reducers of ``ValueObservation``.
public enum ValueReducers {
    /// Notifies every fetched value.
    public struct Fetch<Value: Sendable>: ValueReducer {
        /// The fetch.
        public let _fetch: @Sendable (Database) throws -> Value

        init(_ fetch: @escaping @Sendable (Database) throws -> Value) { _fetch = fetch }

        /// Returns `fetched`.
        public func _value(_ fetched: Value) -> Value? { fetched }
    }

    /// Transforms the values of another reducer.
    public struct Map<Base: ValueReducer, Value: Sendable>: ValueReducer {
        private var base: Base
        private let transform: @Sendable (Base.Value) throws -> Value

        init(_ base: Base, _ transform: @escaping @Sendable (Base.Value) throws -> Value) {
            self.base = base
            self.transform = transform
        }

        /// The fetch of the base reducer.
        public var _fetch: @Sendable (Database) throws -> Base.Fetched { base._fetch }

        /// The transformed value of the base reducer, if any.
        public mutating func _value(_ fetched: Base.Fetched) throws -> Value? {
            try base._value(fetched).map(transform)
        }
    }

    /// Skips the values of another reducer equal to the previous one.
    public struct RemoveDuplicates<Base: ValueReducer>: ValueReducer {
        private var base: Base
        private var previous: Base.Value?
        private let isDuplicate: (Base.Value, Base.Value) -> Bool

        init(_ base: Base, isDuplicate: @escaping (Base.Value, Base.Value) -> Bool) {
            self.base = base
            self.isDuplicate = isDuplicate
        }

        /// The fetch of the base reducer.
        public var _fetch: @Sendable (Database) throws -> Base.Fetched { base._fetch }

        /// The value of the base reducer, unless it repeats the previous one.
        public mutating func _value(_ fetched: Base.Fetched) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            if let previous, isDuplicate(previous, value) { return nil }
            previous = value
            return value
        }
    }
}
