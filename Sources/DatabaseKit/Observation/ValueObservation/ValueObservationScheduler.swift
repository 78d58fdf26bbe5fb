import Dispatch

/// Where and when a ``ValueObservation`` notifies its values.
///
/// - ``ValueObservationScheduler/async(onQueue:)``: every value
///   asynchronously, on a dispatch queue.
/// - ``ValueObservationScheduler/immediate``: the first value synchronously,
///   before `start` returns, on the thread that started the observation; the
///   next ones asynchronously on the main queue.
/// - ``ValueObservationScheduler/task``: on no queue in particular; what
///   ``ValueObservation/values(in:scheduling:bufferingPolicy:)`` uses.
public protocol ValueObservationScheduler: Sendable {
    /// True when the first value is notified before `start` returns.
    func immediateInitialValue() -> Bool

    /// Runs `action`, which notifies a value or an error.
    func schedule(_ action: @escaping @Sendable () -> Void)
}

/// A scheduler that notifies on the main actor.
public protocol ValueObservationMainActorScheduler: ValueObservationScheduler {
    /// Runs `action` on the main actor.
    func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void)
}

extension ValueObservationMainActorScheduler {
    /// Runs `action` on the main actor.
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduleOnMainActor(action)
    }
}

/// Notifies every value asynchronously on a dispatch queue.
public struct AsyncValueObservationScheduler: ValueObservationScheduler {
    private let queue: DispatchQueue

    /// A scheduler that notifies on `queue`.
    public init(queue: DispatchQueue) { self.queue = queue }

    /// False: the first value comes asynchronously too.
    public func immediateInitialValue() -> Bool { false }

    /// Runs `action` asynchronously on the queue.
    public func schedule(_ action: @escaping @Sendable () -> Void) { queue.async(execute: action) }
}

/// Notifies the first value before `start` returns, the next ones on the
/// main queue.
public struct ImmediateValueObservationScheduler: ValueObservationMainActorScheduler {
    /// The scheduler.
    public init() {}

    /// True.
    public func immediateInitialValue() -> Bool { true }

    /// Runs `action` asynchronously on the main queue.
    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated(action) }
    }
}

/// Notifies every value asynchronously on the main queue.
public struct DelayedMainActorValueObservationScheduler: ValueObservationMainActorScheduler {
    /// The scheduler.
    public init() {}

    /// False.
    public func immediateInitialValue() -> Bool { false }

    /// Runs `action` asynchronously on the main queue.
    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated(action) }
    }
}

/// Notifies values where they are fetched: for consumers that hop on their
/// own, as an async sequence does.
public struct TaskValueObservationScheduler: ValueObservationScheduler {
    /// The scheduler.
    public init() {}

    /// False.
    public func immediateInitialValue() -> Bool { false }

    /// Runs `action` at once.
    public func schedule(_ action: @escaping @Sendable () -> Void) { action() }
}

extension ValueObservationScheduler where Self == AsyncValueObservationScheduler {
    /// Notifies every value asynchronously on `queue`.
    public static func async(onQueue queue: DispatchQueue) -> AsyncValueObservationScheduler {
        AsyncValueObservationScheduler(queue: queue)
    }
}

extension ValueObservationScheduler where Self == ImmediateValueObservationScheduler {
    /// Notifies the first value before `start` returns, the next ones on the
    /// main queue.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == ImmediateValueObservationScheduler {
    /// Notifies the first value before `start` returns, the next ones on the
    /// main queue.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Notifies every value asynchronously on the main queue.
    public static var mainActor: DelayedMainActorValueObservationScheduler { DelayedMainActorValueObservationScheduler() }
}

extension ValueObservationScheduler where Self == TaskValueObservationScheduler {
    /// Notifies values where they are fetched.
    public static var task: TaskValueObservationScheduler { TaskValueObservationScheduler() }
}
