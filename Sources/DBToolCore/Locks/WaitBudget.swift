import DatabaseKit
import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How long one command may wait for one database's locks, all of them
/// together: SQLite's (on every connection the command opens, also several
/// at once) and dbtool's own (``ExclusiveLock``). `--timeout N` is the sum
/// of the waits, so a command that meets the lock at three steps still gives
/// up after N seconds, not 3N. Time spent working is not counted.
final class WaitBudget: Sendable {
    private let limit: UInt64
    private let state = Locked<(spent: UInt64, holding: Int)>((0, 0))

    /// A budget of `timeout` seconds (bounded as `--timeout` is).
    init(timeout: TimeInterval) {
        limit = UInt64(max(0, min(timeout, DatabaseLocation.maximumTimeout)) * 1e9)
    }

    /// The seconds left to wait.
    var remaining: TimeInterval { Double(state.withLock { $0.spent < limit ? limit - $0.spent : 0 }) / 1e9 }

    /// What SQLite's busy handler may still wait: nothing inside ``withoutWaiting(_:)``.
    private var sqliteWait: UInt64 {
        state.withLock { $0.holding > 0 ? 0 : ($0.spent < limit ? limit - $0.spent : 0) }
    }

    /// Runs `body` with SQLite's waits off: a lock held elsewhere is
    /// `SQLITE_BUSY` at once (a checkpoint that must never make a writer wait).
    func withoutWaiting<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { $0.holding += 1 }
        defer { state.withLock { $0.holding -= 1 } }
        return try body()
    }

    /// Counts a wait that began at `start` and ends now.
    func spend(since start: DispatchTime) {
        let waited = DispatchTime.now().uptimeNanoseconds &- start.uptimeNanoseconds
        state.withLock { $0.spent &+= waited }
    }

    /// SQLite's busy handler drawing on this budget: sleeps as SQLite's own
    /// does (1 ms, growing to 20 ms), counts each sleep, and gives up once
    /// the budget is spent or as soon as a signal was received.
    var busyHandler: Database.BusyCallback {
        { [self] tries in
            let left = sqliteWait
            guard !Interruption.isRequested, left > 0 else { return false }
            let delays: [UInt64] = [1, 2, 5, 10, 20]
            let delay = min(delays[min(tries, delays.count - 1)] * 1_000_000, left)
            let start = DispatchTime.now()
            var request = timespec(tv_sec: 0, tv_nsec: Int(delay))
            _ = nanosleep(&request, nil)
            spend(since: start)
            return !Interruption.isRequested
        }
    }
}
