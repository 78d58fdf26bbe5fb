import Foundation
import Synchronization

/// SIGINT and SIGTERM, turned into an error that long operations throw
/// between two steps, so that they clean up (temp files, staging copies,
/// SQLite locks) before the process exits with 130.
public enum Interruption {
    /// The signal received, or 0.
    private static let received = Atomic<Int32>(0)

    /// Catches SIGINT and SIGTERM from now on. Without this, a signal kills
    /// the process at once; temp files are then removed by the next run.
    public static func install() {
        _ = received.load(ordering: .relaxed)  // initialize before any handler runs
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            // The handler only stores the signal: that is async-signal-safe.
            signal(signalNumber) { number in Interruption.received.store(number, ordering: .relaxed) }
            sigaddset(&signals, signalNumber)
        }
        // A parent may have spawned us with them blocked (some test runners do).
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Throws ``DBToolError`` 130 once a signal was received.
    static func check() throws {
        let number = received.load(ordering: .relaxed)
        guard number != 0 else { return }
        throw DBToolError(
            .interrupted, "interrupted by \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopped cleanly, nothing was left behind")
    }
}
