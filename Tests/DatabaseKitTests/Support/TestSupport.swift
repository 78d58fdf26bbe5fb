import CDispatch
import DatabaseKit
import DatabaseKitSQLite
import Dispatch
import Foundation
import TestSupport
import Testing

extension TemporaryDirectory {
    /// A database queue on a file of the directory.
    func makeQueue(_ name: String = "db.sqlite", configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try DatabaseQueue(path: file(name), configuration: configuration)
    }
}

/// The label of the dispatch queue running the current code.
func currentDispatchQueueLabel() -> String {
    String(cString: dispatch_queue_get_label(nil))
}

/// The label of the dispatch queue an asynchronous access runs on:
/// `start` submits the access it is given (`{ dbQueue.asyncRead($0) }`).
func asyncAccessQueueLabel(_ start: (@escaping @Sendable (Result<Database, any Error>) -> Void) -> Void) -> String? {
    let label = Locked<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { _ in
        label.withLock { $0 = currentDispatchQueueLabel() }
        done.signal()
    }
    done.wait()
    return label.current
}

/// Expects `body` to throw a ``DatabaseError`` matching `code` (a primary code
/// matches its extended codes), and returns it.
@discardableResult
func expectDatabaseError<R>(
    _ code: ResultCode,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> DatabaseError? {
    do {
        _ = try body()
        Issue.record("expected a DatabaseError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as DatabaseError {
        #expect(code ~= error.extendedResultCode, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a DatabaseError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// `sqlite3_next_stmt`, to count the statements a connection holds.
func sqlite3NextStatement(_ connection: SQLiteConnection, _ statement: SQLiteStatement?) -> SQLiteStatement? {
    sqlite3_next_stmt(connection, statement)
}

/// The two kinds of database writers, for scenarios that run on both.
enum WriterKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case queue, pool

    var description: String { rawValue }

    /// How many times an observation started on this writer notifies its
    /// first value: a pool reads it, then fetches it again as its writer
    /// installs the observer (as GRDB does without WAL snapshots).
    var initialValueCount: Int { self == .pool ? 2 : 1 }

    /// A writer of this kind on a file of `directory`.
    func make(in directory: TemporaryDirectory, _ name: String = "db.sqlite", configuration: Configuration = Configuration()) throws
        -> any DatabaseWriter
    {
        switch self {
        case .queue: return try DatabaseQueue(path: directory.file(name), configuration: configuration)
        case .pool: return try DatabasePool(path: directory.file(name), configuration: configuration)
        }
    }
}

/// A barrier for `count` threads: `arrive()` returns true once all have
/// arrived, false after `timeout` seconds (proving they did not overlap).
final class Rendezvous: @unchecked Sendable {
    // Safe: `arrived` is only touched while holding `condition`.
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int

    init(count: Int) { self.count = count }

    func arrive(timeout: TimeInterval = 5) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < count {
            if !condition.wait(until: deadline) { return arrived >= count }
        }
        return true
    }
}

/// Runs `body` on `count` threads of their own, all at once, and waits for
/// them. (`DispatchQueue.concurrentPerform` may run iterations one after the
/// other on a small or busy machine, which would prove no overlap.)
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// `sqlite3_column_blob`, to check that a `Data` points into SQLite's memory.
func sqlite3ColumnBlob(_ statement: SQLiteStatement, _ index: CInt) -> UnsafeRawPointer? {
    sqlite3_column_blob(statement, index)
}

/// The number of statements a connection holds.
func liveStatementCount(_ connection: SQLiteConnection) -> Int {
    var count = 0
    var statement = sqlite3_next_stmt(connection, nil)
    while let current = statement {
        count += 1
        statement = sqlite3_next_stmt(connection, current)
    }
    return count
}

/// Polls `condition` for up to 10 s.
func waitUntilTrue(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1000)
    }
    return true
}
