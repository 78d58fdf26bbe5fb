@preconcurrency import Dispatch
import FoundationEssentials

/// The reader connections of a pool: opened on demand, reused, and never more
/// than the maximum at once.
///
/// One lock guards it all: a reader in use is out of `idle` and counted in
/// `inUseCount`; threads that wait for a reader, or for the end of the reads
/// before a barrier, wait on the lock's condition. Async tasks wait on one
/// serial queue, so that waiting tasks block one thread in all, not one each.
///
/// A lock rather than a concurrent dispatch queue with barriers: taking a
/// reader through `dispatch_sync` on a shared queue cost 1,000 instructions
/// per read (the block, its copy, the queue's atomics), against about 200.
final class ReaderPool: Sendable {
    private struct State {
        var idle: [SerializedDatabase] = []
        var all: [SerializedDatabase] = []
        var isClosed = false
        var nextReaderNumber = 1
        /// The readers handed out and not given back yet.
        var inUseCount = 0
        /// The barriers waiting or running: while there is one, no reader is
        /// handed out, so that readers can not starve a barrier.
        var barrierCount = 0
        /// True while the body of a barrier runs: barriers run one at a time.
        var isBarrierRunning = false
    }

    /// What a checkout hands out: an idle reader, or the number of a reader
    /// to open.
    private enum Checkout {
        case idle(SerializedDatabase)
        case new(number: Int)
    }

    private let state = Locked(State())
    private let maximumCount: Int
    private let makeReader: @Sendable (_ number: Int) throws -> SerializedDatabase

    /// Where async tasks wait for a reader.
    private let waitingQueue: DispatchQueue
    /// Where asynchronous barriers wait for the reads to end, in order.
    private let barrierQueue: DispatchQueue

    init(
        maximumCount: Int, qos: DispatchQoS,
        makeReader: @escaping @Sendable (_ number: Int) throws -> SerializedDatabase
    ) {
        self.maximumCount = Swift.max(maximumCount, 1)
        self.makeReader = makeReader
        self.waitingQueue = DispatchQueue(label: "GRDB.Pool.wait", qos: qos)
        self.barrierQueue = DispatchQueue(label: "GRDB.Pool.barrier", qos: qos)
    }

    /// Runs `body` with a reader, waiting for one when all are busy.
    func withReader<T>(_ body: (SerializedDatabase) throws -> T) throws -> T {
        let reader = try acquire()
        defer { release(reader) }
        return try body(reader)
    }

    /// Runs `body` with a reader, waiting without blocking the task's thread.
    func withReader<T: Sendable>(_ body: (SerializedDatabase) async throws -> T) async throws -> T {
        let reader = try await acquireAsync()
        defer { release(reader) }
        return try await body(reader)
    }

    /// Takes a reader out of the pool, waiting for one when all are busy or
    /// a barrier waits or runs. Give it back with ``release(_:)``.
    func acquire() throws -> SerializedDatabase {
        let maximumCount = self.maximumCount
        let checkout: Checkout = try state.withLock(waitingUntil: { state in
            state.isClosed || (state.barrierCount == 0 && state.inUseCount < maximumCount)
        }) { state in
            if state.isClosed { throw DatabaseError.connectionIsClosed() }
            state.inUseCount += 1
            if let reader = state.idle.popLast() { return .idle(reader) }
            defer { state.nextReaderNumber += 1 }
            return .new(number: state.nextReaderNumber)
        }
        switch checkout {
        case .idle(let reader):
            return reader
        case .new(let number):
            // Opened outside of the lock: it takes time, and may fail.
            do {
                let reader = try makeReader(number)
                state.withLock { $0.all.append(reader) }
                return reader
            } catch {
                state.withLock { $0.inUseCount -= 1 }
                state.broadcast()
                throw error
            }
        }
    }

    /// Takes a reader, waiting on the pool's waiting queue.
    func acquireAsync() async throws -> SerializedDatabase {
        let reader = try await withCheckedThrowingContinuation { continuation in
            waitingQueue.async {
                continuation.resume(with: Result { try self.acquire() })
            }
        }
        // The continuation orders the reader's creation before its use, but
        // ThreadSanitizer does not see that ordering on Linux (the resumption
        // goes through the uninstrumented concurrency runtime). Taking the
        // lock that `acquire()` released after taking the reader states the
        // same ordering in a form it sees; it costs one uncontended lock.
        state.withLock { _ in }
        return reader
    }

    /// Takes a reader, and calls `completion` with it later.
    func asyncAcquire(_ completion: @escaping @Sendable (Result<SerializedDatabase, any Error>) -> Void) {
        waitingQueue.async {
            completion(Result { try self.acquire() })
        }
    }

    /// Gives a reader back. A reader that ``removeAll()`` dropped while it
    /// was in use is closed instead.
    func release(_ reader: SerializedDatabase) {
        state.withLock { state in
            if state.all.contains(where: { $0 === reader }) {
                state.idle.append(reader)
            }
            state.inUseCount -= 1
        }
        state.broadcast()
    }

    /// Runs `body` once no reader is in use, while no reader can be taken.
    func barrier<T>(_ body: () throws -> T) throws -> T {
        state.withLock { $0.barrierCount += 1 }
        return try runBarrier(body)
    }

    /// Runs `body` later, once no reader is in use, while no reader can be
    /// taken. The readers asked for after this call wait for it.
    func asyncBarrier(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.barrierCount += 1 }
        barrierQueue.async { self.runBarrier(body) }
    }

    /// Runs `body` once no reader is in use, while no reader can be taken,
    /// waiting for the reads to end without blocking the task's thread.
    ///
    /// `body` runs in the calling task, so that it sees its task-locals and
    /// its cancellation: no closure is handed to another thread.
    func barrier<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        state.withLock { $0.barrierCount += 1 }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            barrierQueue.async {
                self.startBarrier()
                continuation.resume()
            }
        }
        // Orders the wait above before the body for ThreadSanitizer, as in
        // `acquireAsync()`.
        state.withLock { _ in }
        defer { endBarrier() }
        return try await body()
    }

    /// Runs the body of a barrier already counted in `barrierCount`.
    private func runBarrier<T>(_ body: () throws -> T) rethrows -> T {
        startBarrier()
        defer { endBarrier() }
        return try body()
    }

    /// Waits until no reader is in use and no other barrier runs, then marks
    /// a barrier as running.
    private func startBarrier() {
        state.withLock(waitingUntil: { $0.inUseCount == 0 && !$0.isBarrierRunning }) { $0.isBarrierRunning = true }
    }

    /// Ends the running barrier, and wakes the readers and barriers waiting.
    private func endBarrier() {
        state.withLock { state in
            state.isBarrierRunning = false
            state.barrierCount -= 1
        }
        state.broadcast()
    }

    /// Calls `body` with every open reader, idle or not.
    func forEach(_ body: (SerializedDatabase) throws -> Void) rethrows {
        for reader in state.withLock({ $0.all }) {
            try body(reader)
        }
    }

    /// The reader whose queue runs the current code, if any.
    var currentReader: SerializedDatabase? {
        state.withLock { $0.all }.first(where: \.isOnQueue)
    }

    /// Drops every reader: idle ones now, busy ones when they are released.
    /// The next reads open new connections.
    func removeAll() {
        state.withLock { state in
            state.all.removeAll()
            state.idle.removeAll()
        }
    }

    /// Closes every reader once none is in use, around `closeReaders`, which
    /// receives the function that closes them: later acquisitions throw,
    /// whether the readers closed or not (one that fails stays alive as a
    /// zombie until its last statement is finalized). Does nothing when
    /// already closed.
    func close(_ closing: (_ closeReaders: () throws -> Void) throws -> Void) throws {
        try barrier {
            if state.withLock({ $0.isClosed }) { return }
            try closing {
                let readers = state.withLock { state in
                    state.isClosed = true
                    let readers = state.all
                    state.all.removeAll()
                    state.idle.removeAll()
                    return readers
                }
                var failure: (any Error)?
                for reader in readers {
                    do { try reader.close() } catch { failure = failure ?? error }
                }
                if let failure { throw failure }
            }
        }
    }

    /// True once closed.
    var isClosed: Bool { state.withLock { $0.isClosed } }
}
