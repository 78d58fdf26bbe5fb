import Dispatch
import Foundation

/// The reader connections of a pool: opened on demand, reused, and never more
/// than the maximum at once.
///
/// `@unchecked Sendable`: the mutable state (`available`, `all`, `isClosed`,
/// `nextReaderNumber`) is only touched while holding `lock`; `permits` counts
/// the readers that can still be handed out.
final class ReaderPool: @unchecked Sendable {
    private let lock = NSLock()
    private let permits: DispatchSemaphore
    private let maximumCount: Int
    private var available: [SerializedDatabase] = []
    private var all: [SerializedDatabase] = []
    private var isClosed = false
    private var nextReaderNumber = 1
    private let makeReader: @Sendable (_ number: Int) throws -> SerializedDatabase

    init(maximumCount: Int, makeReader: @escaping @Sendable (_ number: Int) throws -> SerializedDatabase) {
        precondition(maximumCount > 0, "maximumReaderCount must be at least 1")
        self.maximumCount = maximumCount
        self.permits = DispatchSemaphore(value: maximumCount)
        self.makeReader = makeReader
    }

    /// Runs `body` with a reader, waiting for one when all are busy.
    func withReader<T>(_ body: (SerializedDatabase) throws -> T) throws -> T {
        let reader = try acquire()
        defer { release(reader) }
        return try body(reader)
    }

    /// Takes a reader out of the pool, waiting for one when all are busy.
    /// Give it back with ``release(_:)``.
    func acquire() throws -> SerializedDatabase {
        permits.wait()
        lock.lock()
        if isClosed {
            lock.unlock()
            permits.signal()
            throw closedError()
        }
        if let reader = available.popLast() {
            lock.unlock()
            return reader
        }
        let number = nextReaderNumber
        nextReaderNumber += 1
        lock.unlock()
        do {
            let reader = try makeReader(number)
            lock.lock()
            all.append(reader)
            lock.unlock()
            return reader
        } catch {
            permits.signal()
            throw error
        }
    }

    /// Gives a reader back.
    func release(_ reader: SerializedDatabase) {
        lock.lock()
        available.append(reader)
        lock.unlock()
        permits.signal()
    }

    /// Runs `body` once no reader is in use, while no reader can be taken.
    func barrier<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        for _ in 0..<maximumCount { permits.wait() }
        defer { for _ in 0..<maximumCount { permits.signal() } }
        return try body()
    }

    /// The reader whose queue runs the current code, if any.
    var currentReader: SerializedDatabase? {
        lock.lock()
        defer { lock.unlock() }
        return all.first(where: \.isOnQueue)
    }

    /// Frees the memory of the idle readers.
    func releaseMemory() {
        lock.lock()
        let idle = available
        lock.unlock()
        for reader in idle {
            try? reader.sync { db in db.releaseMemory() }
        }
    }

    /// Closes every reader, once none is in use. Later acquisitions throw.
    func close() throws {
        lock.lock()
        let alreadyClosed = isClosed
        lock.unlock()
        if alreadyClosed { return }
        try barrier {
            lock.lock()
            isClosed = true
            let readers = all
            lock.unlock()
            var firstError: (any Error)?
            for reader in readers {
                do { try reader.close() } catch { firstError = firstError ?? error }
            }
            if let firstError { throw firstError }
        }
    }

    private func checkOpen() throws {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { throw closedError() }
    }

    private func closedError() -> DatabaseError {
        DatabaseError.misuse("the database pool is closed")
    }
}
