import Dispatch
import Foundation

/// A connection confined to a serial dispatch queue: every access runs on the
/// queue, one at a time.
///
/// `@unchecked Sendable`: `db` is only touched inside blocks run by `queue`
/// (synchronously or not), which serializes every access.
final class SerializedDatabase: @unchecked Sendable {
    private let db: Database
    let queue: DispatchQueue

    /// Identifies the queue that runs the current code, to detect re-entrant calls.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Opens a connection whose accesses run on a queue with this label.
    init(path: String, configuration: Configuration, label: String) throws {
        db = try Database(path: path, description: label, configuration: configuration)
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// The configuration of the connection.
    var configuration: Configuration { db.configuration }

    /// The path of the database.
    var path: String { db.path }

    /// True when the current code runs inside an access to this connection.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) }

    /// Runs `block` on the queue and waits for its result.
    ///
    /// Calling it from inside an access to the same connection is a
    /// programmer error: the program stops instead of deadlocking.
    func sync<T>(_ block: (Database) throws -> T) throws -> T {
        precondition(
            !isOnQueue,
            "Database methods are not reentrant: a database access (read, write, inDatabase, ...) was started from inside another access to the same database (\(db.description)). Use the `db` argument of the outer closure instead."
        )
        return try onQueue { try access(block) }
    }

    /// Runs `block` right away when called from inside an access to this
    /// connection, or on the queue otherwise.
    func reentrantSync<T>(_ block: (Database) throws -> T) throws -> T {
        if isOnQueue {
            try db.checkOpen()
            return try block(db)
        }
        return try onQueue { try access(block) }
    }

    /// Runs `body` on the queue and waits for its result, through the plain
    /// `dispatch_sync` overload: the overlay's generic `sync<T>` adds several
    /// closure layers per call (measured: 2,400 instructions per access).
    private func onQueue<T>(_ body: () throws -> T) throws -> T {
        var result: Result<T, any Error>?
        queue.sync { result = Result(catching: body) }
        return try result!.get()
    }

    /// Runs `block` on the queue without waiting. It receives the connection,
    /// and the error that forbids using it (a closed connection), if any.
    func async(_ block: @escaping @Sendable (Database, (any Error)?) -> Void) {
        queue.async { [self] in
            do {
                try access { db in block(db, nil) }
            } catch {
                block(db, error)
            }
        }
    }

    /// Runs `block` on the queue, and resumes when it is done. The task's
    /// cancellation before the block starts throws `CancellationError`.
    func execute<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(with: Result { try access(block) })
            }
        }
    }

    /// Runs an access block on the current thread, which is the queue's:
    /// marks the thread as the one allowed to use statements and cursors, and
    /// checks that no transaction is left open.
    private func access<T>(_ block: (Database) throws -> T) throws -> T {
        try db.checkOpen()
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
