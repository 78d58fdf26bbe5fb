import DatabaseKit
import Foundation

/// Measures how long a connection waited for another connection's lock.
///
/// Its ``busyMode(timeout:)`` replaces a busy timeout and notes SQLite's
/// first busy answer; ``elapsed()`` is the time since then. A test that
/// bounds the stall another process causes reads this rather than the
/// duration of the whole statement, which on a loaded machine also counts
/// fsyncs and scheduling delays nobody caused.
public final class BusyClock: Sendable {
    private let since = Locked<Date?>(nil)

    public init() {}

    /// Retries every millisecond, for at most `timeout` seconds of waiting.
    public func busyMode(timeout: TimeInterval) -> Database.BusyMode {
        .callback { [self] tries in
            if tries == 0 { since.withLock { $0 = Date() } }
            usleep(1_000)
            return elapsed() < timeout
        }
    }

    /// Forgets the last wait: call it before the statement to measure.
    public func reset() { since.withLock { $0 = nil } }

    /// Seconds since the first busy answer after ``reset()``; 0 when the
    /// connection met no lock.
    public func elapsed() -> TimeInterval { since.withLock { $0.map { Date().timeIntervalSince($0) } ?? 0 } }
}
