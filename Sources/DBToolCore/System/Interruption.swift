import DatabaseKit
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM, turned into an error that long operations throw
/// between two steps, so that they clean up (temp files, staging copies,
/// SQLite locks) before the process exits with 130.
///
/// Waits end early too: the handler is installed without `SA_RESTART`, so a
/// call blocked in the kernel (reading a pipe, opening a FIFO, sleeping)
/// returns `EINTR`, and `retryingInterrupted(_:)` stops retrying once a
/// signal was received. dbtool's own threads block both signals
/// (`blockInCurrentThread()`), so that the kernel delivers them to the
/// thread that waits. Sleeps (`sleep(seconds:)`), lock waits and SQLite's
/// busy handler (``DatabaseHandle``) wake at least every 50 ms to look.
/// A statement that runs long (a query, a `quick_check`) is stopped by
/// `sqlite3_interrupt`: the actions registered with `onSignal(_:)` run on
/// a watcher thread, woken by the handler through a pipe.
public enum Interruption {
    /// The signal received, or 0.
    private static let received = Atomic<Int32>(0)
    /// The write end of the pipe that wakes the watcher (-1 before ``install()``).
    private static let wakeUp = Atomic<Int32>(-1)
    /// What the watcher runs on a signal, by registration number.
    private static let actions = Locked<(next: Int, actions: [Int: @Sendable () -> Void])>((0, [:]))

    /// Catches SIGINT and SIGTERM from now on. Without this, a signal kills
    /// the process at once; temp files are then removed by the next run.
    public static func install() {
        _ = received.load(ordering: .relaxed)  // initialize before any handler runs
        startWatcher()
        var action = sigaction()
        // The handler stores the signal and writes one byte: both are async-signal-safe.
        action.__sigaction_handler.sa_handler = { number in
            Interruption.received.store(number, ordering: .relaxed)
            var byte: UInt8 = 1
            _ = write(Interruption.wakeUp.load(ordering: .relaxed), &byte, 1)
        }
        action.sa_flags = 0  // no SA_RESTART: blocking calls return EINTR
        sigemptyset(&action.sa_mask)
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            sigaction(signalNumber, &action, nil)
            sigaddset(&signals, signalNumber)
        }
        // A parent may have spawned us with them blocked (some test runners do).
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Starts the thread that runs the registered actions once a signal
    /// arrives (once per process).
    private static func startWatcher() {
        guard wakeUp.load(ordering: .relaxed) < 0 else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakeUp.store(ends[1], ordering: .relaxed)
        let readEnd = ends[0]
        WorkerThreads.start(name: "signals") { _ in
            var byte: UInt8 = 0
            while retryingInterrupted({ read(readEnd, &byte, 1) }) < 0 {}
            let pending = actions.withLock { Array($0.actions.values) }
            for action in pending { action() }
        }
    }

    /// Runs `action` (on another thread) when SIGINT or SIGTERM arrives,
    /// until ``unregister(_:)``: how a long SQLite statement is interrupted.
    /// Returns the registration's number.
    static func register(_ action: @escaping @Sendable () -> Void) -> Int {
        let number = actions.withLock { state in
            state.next += 1
            state.actions[state.next] = action
            return state.next
        }
        if isRequested { action() }  // arrived before the registration
        return number
    }

    /// Ends a registration of ``register(_:)``.
    static func unregister(_ number: Int) {
        actions.withLock { _ = $0.actions.removeValue(forKey: number) }
    }

    /// True once SIGINT or SIGTERM was received.
    public static var isRequested: Bool { received.load(ordering: .relaxed) != 0 }

    /// Takes the signal received as a request to finish rather than to
    /// stop at once (`replicate`'s last sync): clears it, so that a last,
    /// bounded piece of work runs, and returns its name; a later signal,
    /// or ``requestAgain()``, interrupts that work.
    static func acknowledge() -> String? {
        let number = received.exchange(0, ordering: .relaxed)
        guard number != 0 else { return nil }
        return number == SIGTERM ? "SIGTERM" : "SIGINT"
    }

    /// Marks SIGTERM received again: what runs after ``acknowledge()`` is
    /// stopped (its deadline passed).
    static func requestAgain() {
        received.store(SIGTERM, ordering: .relaxed)
    }

    /// The error of an interrupted run: 130.
    static var error: DBToolError {
        DBToolError(.interrupted, "interrupted by \(signalName): stopped cleanly, nothing was left behind")
    }

    /// The error of a run interrupted once its output was complete: 130,
    /// saying what was kept (`what` is a sentence's subject).
    static func error(keeping what: String) -> DBToolError {
        DBToolError(.interrupted, "interrupted by \(signalName) once the work was complete: \(what)")
    }

    /// "SIGTERM" or "SIGINT": the signal received.
    static var signalName: String { received.load(ordering: .relaxed) == SIGTERM ? "SIGTERM" : "SIGINT" }

    /// Throws ``DBToolError`` 130 once a signal was received.
    static func check() throws {
        if isRequested { throw error }
    }

    /// Blocks SIGINT and SIGTERM in the calling thread: called first by the
    /// threads dbtool starts, so that a signal interrupts the waiting main
    /// thread rather than a worker.
    static func blockInCurrentThread() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// The longest a wait sleeps before it looks for a signal again.
    static let pollInterval: Double = 0.05

    /// Sleeps `seconds`, in slices of at most ``pollInterval``; throws 130
    /// as soon as a signal is received.
    static func sleep(seconds: Double) throws {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, min(seconds, 86_400)) * 1e9)
        while true {
            try check()
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return }
            let slice = min(deadline - now, UInt64(pollInterval * 1e9))
            var request = timespec(tv_sec: Int(slice / 1_000_000_000), tv_nsec: Int(slice % 1_000_000_000))
            _ = nanosleep(&request, nil)  // EINTR: the loop looks again
        }
    }
}
