@preconcurrency import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connection whose accesses run one at a time, in the order they were
/// submitted.
///
/// Asynchronous accesses run on a serial dispatch queue. A synchronous access
/// runs on the calling thread, as `dispatch_sync` would run it, but without
/// the dispatch call: it takes the connection's access lock, unless
/// asynchronous accesses are still pending, in which case it waits for them
/// through the queue. A connection whose configuration names a target queue
/// runs every access through the queue, which serializes them with the other
/// work of the target.
///
/// `@unchecked Sendable`: `db` is only touched inside accesses, and an
/// access only starts once it has marked the connection busy under
/// `accessState`'s lock, and ends by clearing the mark.
final class SerializedDatabase: @unchecked Sendable {
    private let db: Database
    let queue: DispatchQueue

    /// Whether an access is running, and how many asynchronous accesses are
    /// pending (submitted and not ended).
    private struct AccessState {
        var isBusy = false
        var pendingAsyncAccesses = 0
    }
    private let accessState = Locked(AccessState())

    /// True when synchronous accesses go through the queue too: the
    /// configuration names a target queue, which must see every access.
    private let accessesRunOnQueue: Bool

    /// Runs async accesses on `queue`, inside the calling task: its task-local
    /// values stay visible, and its cancellation interrupts the access.
    private let actor: DispatchQueueActor

    /// The configuration of the connection.
    let configuration: Configuration

    /// The path of the database.
    let path: String

    /// Opens a connection whose accesses run on a queue labelled from the
    /// configuration: `label` (or `defaultLabel`), then `.purpose`.
    convenience init(path: String, configuration: Configuration, defaultLabel: String, purpose: String? = nil) throws {
        let label = configuration.identifier(defaultLabel: defaultLabel, purpose: purpose)
        try self.init(Database(path: path, description: label, configuration: configuration), label: label)
    }

    /// A connection that never opened: every access throws `error`.
    convenience init(closedBy error: any Error, configuration: Configuration, defaultLabel: String) {
        let label = configuration.identifier(defaultLabel: defaultLabel, purpose: nil)
        self.init(Database(closedBy: error, description: label, configuration: configuration), label: label)
    }

    private init(_ db: Database, label: String) {
        self.db = db
        let configuration = db.configuration
        self.configuration = configuration
        self.path = db.path
        queue = configuration.readonly
            ? configuration.makeReaderDispatchQueue(label: label) : configuration.makeWriterDispatchQueue(label: label)
        accessesRunOnQueue = configuration.readonly ? configuration.targetQueue != nil
            : (configuration.writeTargetQueue ?? configuration.targetQueue) != nil
        actor = DispatchQueueActor(queue: queue)
    }

    deinit {
        // Nothing else can access the connection any longer: asynchronous
        // accesses and running ones hold a reference to it.
        db.close_v2()
    }

    /// True when the current code runs inside an access to this connection.
    var isOnQueue: Bool { db.isAccessedByCurrentThread }

    /// Runs `block` as an access, and waits for its result.
    ///
    /// Calling it from inside an access to the same connection is a
    /// programmer error: the program stops instead of deadlocking.
    func sync<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(
            !isOnQueue,
            "Database methods are not reentrant: a database access (read, write, inDatabase, ...) was started from inside another access to the same database (\(db.description)). Use the `db` argument of the outer closure instead."
        )
        return try exclusiveSync(block)
    }

    /// Runs `block` right away when called from inside an access to this
    /// connection, or as an access otherwise.
    func reentrantSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if isOnQueue { return try block(db) }
        return try exclusiveSync(block)
    }

    /// Runs `block` as an access: on the calling thread when no asynchronous
    /// access is pending, on the queue after them otherwise.
    private func exclusiveSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if !accessesRunOnQueue && beginAccessOnCallingThread() {
            defer { endAccess(wasPending: false) }
            return try access(block)
        }
        return try onQueue { try exclusiveAccess(block) }
    }

    /// Marks the connection busy for an access on the calling thread, once
    /// no other access runs; false, having marked nothing, when asynchronous
    /// accesses are pending: they were submitted first.
    private func beginAccessOnCallingThread() -> Bool {
        accessState.withLock(waitingUntil: { !$0.isBusy || $0.pendingAsyncAccesses > 0 }) { state in
            guard state.pendingAsyncAccesses == 0 else { return false }
            state.isBusy = true
            return true
        }
    }

    /// Runs `block` as an access from the queue, once no access runs on
    /// another thread.
    private func exclusiveAccess<T>(_ block: (Database) throws -> T, wasPending: Bool = false) rethrows -> T {
        accessState.withLock(waitingUntil: { !$0.isBusy }) { $0.isBusy = true }
        defer { endAccess(wasPending: wasPending) }
        return try access(block)
    }

    /// Clears the busy mark, and wakes the accesses that wait for it.
    private func endAccess(wasPending: Bool) {
        accessState.withLock { state in
            state.isBusy = false
            if wasPending { state.pendingAsyncAccesses -= 1 }
        }
        accessState.broadcast()
    }

    /// Runs `block` with the connection, from inside an access to it.
    func execute<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(isOnQueue, "must be called from inside an access to \(db.description)")
        return try block(db)
    }

    /// Runs `body` on the queue and waits for its result, through the plain
    /// `dispatch_sync` overload: the overlay's generic `sync<T>` adds several
    /// closure layers per call (measured: 2,400 instructions per access).
    ///
    /// The value goes through a heap cell of `T`, allocated and freed here,
    /// rather than an `Optional<Result<T, Error>>` or a stack allocation:
    /// `T` is generic here, and `Optional<T>`, `Result<T, Error>` (which
    /// `withUnsafeTemporaryAllocation` uses) would be looked up in the
    /// runtime's metadata cache on every access (measured: 330 to 800
    /// instructions, against about 100 for the allocation).
    private func onQueue<T>(_ body: () throws -> T) rethrows -> T {
        let slot = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { slot.deallocate() }
        var failure: (any Error)?
        var isSet = false
        queue.sync {
            do {
                slot.initialize(to: try body())
                isSet = true
            } catch {
                failure = error
            }
        }
        if isSet { return slot.move() }
        // The error comes from `body` (dispatch_sync has run the block):
        // rethrown through a rethrowing call, as libdispatch's own `sync` does.
        return try rethrowing { throw failure ?? CancellationError() }
    }

    /// Runs `block` on the queue without waiting.
    func async(_ block: @escaping @Sendable (Database) -> Void) {
        accessState.withLock { $0.pendingAsyncAccesses += 1 }
        queue.async { [self] in
            exclusiveAccess({ db in block(db) }, wasPending: true)
        }
    }

    /// Runs `block` on the queue, inside the calling task, and resumes when
    /// it is done. A task cancelled before the block starts throws
    /// `CancellationError`; cancelled during it, its statements throw
    /// `CancellationError` too (the connection is interrupted).
    func execute<T: Sendable>(_ block: @Sendable (Database) throws -> T) async throws -> T {
        let access = AsyncAccess(interruption: db.interruption)
        return try await withTaskCancellationHandler {
            try await actor.run {
                access.begin()
                defer { access.end() }
                try Task.checkCancellation()
                return try self.exclusiveAccess(block)
            }
        } onCancel: {
            access.cancel()
        }
    }

    /// Runs an access block on the current thread, which is the queue's:
    /// marks the thread as the one allowed to use statements and cursors, and
    /// checks that no transaction is left open.
    private func access<T>(_ block: (Database) throws -> T) rethrows -> T {
        db.accessThread = pthread_self()
        db.schemaCache.needsValidation = true  // other connections may have changed the schema
        defer {
            db.accessThread = nil
            checkNoTransactionLeftOpen()
        }
        return try block(db)
    }

    private func checkNoTransactionLeftOpen() {
        guard !db.configuration.allowsUnsafeTransactions, !db.isClosed, db.isInsideTransaction else { return }
        // Configuration.allowsUnsafeTransactions documents this as a programmer error.
        fatalError(
            "A transaction has been left opened at the end of a database access (\(db.description)): commit or roll it back inside the access block, or set Configuration.allowsUnsafeTransactions"
        )
    }

    /// Interrupts the running statement, from any thread.
    func interrupt() {
        db.interruption.interrupt()
    }

    /// Suspends the connection (see ``Configuration/observesSuspensionNotifications``).
    func suspend() {
        db.interruption.suspend()
    }

    /// Lifts the suspension.
    func resume() {
        db.interruption.resume()
    }

    /// Closes the connection; see ``DatabaseQueue/close()``. Closing a closed
    /// connection does nothing.
    func close() throws {
        if isOnQueue {
            try db.close()
        } else {
            try exclusiveSync { db in try db.close() }
        }
    }
}

/// Runs `body`: lets a `rethrows` function throw the error it captured from
/// its own closure parameter (a `rethrows` function may not throw by
/// itself; the pattern is libdispatch's, in its `sync`).
@inline(__always)
private func rethrowing<T>(_ body: () throws -> T) rethrows -> T {
    try body()
}

/// The cancellation of one async access: a cancellation that arrives before
/// or during the access interrupts it; one that arrives after does nothing
/// (the connection may already run another access).
private final class AsyncAccess: Sendable {
    private enum State { case pending, running, finished }
    private let state = Locked(State.pending)
    private let interruption: ConnectionInterruption

    init(interruption: ConnectionInterruption) {
        self.interruption = interruption
    }

    func begin() {
        state.withLock { $0 = .running }
    }

    func end() {
        state.withLock { state in
            state = .finished
            interruption.uncancel()
        }
    }

    func cancel() {
        state.withLock { state in
            if state == .running { interruption.cancel() }
        }
    }
}

/// An actor that runs on a dispatch queue, so that an async access runs on
/// the connection's queue within the calling task.
actor DispatchQueueActor {
    private let executor: DispatchQueueExecutor

    init(queue: DispatchQueue) {
        executor = DispatchQueueExecutor(queue: queue)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    func run<T>(_ work: () throws -> T) rethrows -> T {
        try work()
    }
}

/// A serial executor that runs jobs on a dispatch queue.
///
/// `@unchecked Sendable`: its only state is the queue, which is thread-safe.
final class DispatchQueueExecutor: SerialExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: UnownedJob) {
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
