#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// Used instead of the standard library's `Mutex` because ThreadSanitizer
/// sees the ordering that pthread mutexes create, but not the one that
/// `Mutex` creates on Linux when a waiter sleeps in its futex path (that code
/// lives in the uninstrumented standard library): every contended `Mutex` is
/// reported as a data race there, which would hide real ones.
///
/// The one lock of the package: DBToolCore, dbtool and the tests use it too.
///
/// `@unchecked Sendable`: `value` is only read or written with the mutex held.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Exclusive under the mutex: the dynamic exclusivity check would only
    /// repeat it (a nested `withLock` deadlocks before it could overlap).
    @exclusivity(unchecked) private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        // Default attributes: a normal mutex, which cannot fail to initialize.
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }
}
