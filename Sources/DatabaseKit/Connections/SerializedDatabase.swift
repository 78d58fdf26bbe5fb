@preconcurrency import Dispatch
import Foundation

/// A connection confined to a serial dispatch queue: every access runs on the
/// queue, one at a time.
///
/// `@unchecked Sendable`: `db` is only touched inside blocks run by `queue`
/// (synchronously, asynchronously, or by the actor whose executor is the
/// queue), which serializes every access.
final class SerializedDatabase: @unchecked Sendable {
    private let db: Database
    let queue: DispatchQueue

    /// Runs async accesses on `queue`, inside the calling task: its task-local
    /// values stay visible, and its cancellation interrupts the access.
    private let actor: DispatchQueueActor

    /// The configuration of the connection.
    let configuration: Configuration

    /// The path of the database.
    let path: String

    /// Identifies the queue that runs the current code, to detect re-entrant calls.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

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
        actor = DispatchQueueActor(queue: queue)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        // The connection may be released on its own queue: close it there
        // or here, but never from another access.
        if isOnQueue {
            db.close_v2()
        } else {
            queue.sync { db.close_v2() }
        }
    }

    /// True when the current code runs inside an access to this connection.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    /// Runs `block` on the queue and waits for its result.
    ///
    /// Calling it from inside an access to the same connection is a
    /// programmer error: the program stops instead of deadlocking.
    func sync<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(
            !isOnQueue,
            "Database methods are not reentrant: a database access (read, write, inDatabase, ...) was started from inside another access to the same database (\(db.description)). Use the `db` argument of the outer closure instead."
        )
        return try onQueue { try access(block) }
    }

    /// Runs `block` right away when called from inside an access to this
    /// connection, or on the queue otherwise.
    func reentrantSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if isOnQueue { return try block(db) }
        return try onQueue { try access(block) }
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
        queue.async { [self] in
            access { db in block(db) }
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
                return try self.access(block)
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
            try queue.sync { try db.close() }
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
