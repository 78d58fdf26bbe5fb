#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the column lookup's,
// the statement's, the argument slots', the encoder's and the transaction statements' (removed together),
// fetch-name runs 28% more instructions, observed-elsewhere 1.4%.

/// A value guarded by a `pthread_mutex_t`, with a condition variable for
/// the code that waits for the value to change.
///
/// Used instead of the standard library's `Mutex` because ThreadSanitizer
/// sees the ordering that pthread mutexes create, but not the one that
/// `Mutex` creates on Linux when a waiter sleeps in its futex path (that code
/// lives in the uninstrumented standard library): every contended `Mutex` is
/// reported as a data race there, which would hide real ones.
///
/// The one lock of the package: DBToolCore, dbtool and the tests use it too.
///
/// Give it a value of some size, a count or a flag, when it guards something
/// else: an empty one (`Void`) would share its address with the mutex's
/// pointer, and ThreadSanitizer reports the read of the one before the lock
/// against the locked write of the other.
///
/// `@unchecked Sendable`: `value` is only read or written with the mutex held.
package final class Locked<Value>: @unchecked Sendable {
    /// The mutex and the condition, in one allocation.
    private let storage: UnsafeMutableRawPointer
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { storage.assumingMemoryBound(to: pthread_mutex_t.self) }
    private var condition: UnsafeMutablePointer<pthread_cond_t> {
        (storage + Self.conditionOffset).assumingMemoryBound(to: pthread_cond_t.self)
    }
    private static var conditionOffset: Int {
        let alignment = MemoryLayout<pthread_cond_t>.alignment
        return (MemoryLayout<pthread_mutex_t>.size + alignment - 1) / alignment * alignment
    }

    /// Exclusive under the mutex: the dynamic exclusivity check would only
    /// repeat it (a nested `withLock` deadlocks before it could overlap).
    @exclusivity(unchecked) private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        storage = .allocate(
            byteCount: Self.conditionOffset + MemoryLayout<pthread_cond_t>.size,
            alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<pthread_cond_t>.alignment))
        // Default attributes: a normal mutex and a condition, which cannot
        // fail to initialize.
        pthread_mutex_init(storage.bindMemory(to: pthread_mutex_t.self, capacity: 1), nil)
        pthread_cond_init((storage + Self.conditionOffset).bindMemory(to: pthread_cond_t.self, capacity: 1), nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        storage.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits until `isReady` holds for the value, then runs `body` with
    /// exclusive access to it. The mutex is released while waiting; waiters
    /// check again after each ``broadcast()``.
    package func withLock<T>(waitingUntil isReady: (Value) -> Bool, _ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isReady(value) { pthread_cond_wait(condition, mutex) }
        return try body(&value)
    }

    /// Wakes the waiters of ``withLock(waitingUntil:_:)``: call it after a
    /// change that may let them go on.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }
}
