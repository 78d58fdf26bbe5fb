/// Something that can be cancelled: a started observation.
public protocol DatabaseCancellable: Sendable {
    /// Stops the observation: no value or error is notified after it
    /// returns (on the queue the observation notifies).
    func cancel()
}

/// A cancellable that cancels when it is deallocated: keep it as long as
/// the observation should run.
///
/// ```swift
/// let cancellable = observation.start(in: dbQueue, scheduling: .immediate) { error in
///     print(error)
/// } onChange: { players in
///     print(players)
/// }
/// // later
/// cancellable.cancel()
/// ```
public final class AnyDatabaseCancellable: DatabaseCancellable {
    private let action: Locked<(@Sendable () -> Void)?>

    /// A cancellable that runs `cancel` once, when cancelled or deallocated.
    public init(cancel: @escaping @Sendable () -> Void) {
        action = Locked(cancel)
    }

    /// A cancellable that cancels `base`.
    public convenience init(_ base: some DatabaseCancellable) {
        self.init(cancel: { base.cancel() })
    }

    deinit { cancel() }

    /// Cancels, once: later calls do nothing.
    public func cancel() {
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}
