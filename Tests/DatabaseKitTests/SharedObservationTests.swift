import DatabaseKit
import Dispatch
import Foundation
import TestSupport
import Testing

/// The events of an observation (handleEvents, print) and observations
/// shared by several subscribers, with real writers.
@Suite("Observation events and shared observations")
struct SharedObservationTests {
    private func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)") }
        return writer
    }

    final class Lines: Sendable {
        private let storage = Locked<[String]>([])
        var all: [String] { storage.withLock { $0 } }
        func append(_ line: String) { storage.withLock { $0.append(line) } }

        func wait(until condition: ([String]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while !condition(all) {
                if Date() > deadline { return false }
                usleep(1000)
            }
            return true
        }
    }

    /// A text stream that keeps what an observation prints.
    struct LinesStream: TextOutputStream {
        let lines: Lines
        mutating func write(_ string: String) { lines.append(string) }
    }

    @Test("handleEvents and print report each step: start, fetch, region, change, value, cancel", arguments: WriterKind.allCases)
    @MainActor func events(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let lines = Lines()
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? -1 }
            .print("count", to: LinesStream(lines: lines))
        var cancellable: AnyDatabaseCancellable? = observation.start(
            in: writer, scheduling: .immediate, onError: { _ in }, onChange: { _ in })
        var expected = ["count: start", "count: fetch", "count: tracked region: player(*)", "count: value: 0"]
        if kind == .pool {
            // As GRDB: the first value from a reader, told no region; then the
            // writer fetches again as it installs the observer.
            expected = ["count: start", "count: fetch", "count: value: 0"]
            #expect(lines.all.prefix(3) == expected[...])
            expected += ["count: database did change", "count: fetch", "count: tracked region: player(*)", "count: value: 0"]
            #expect(lines.wait { $0.count >= expected.count })
        }
        #expect(lines.all.prefix(expected.count) == expected[...])
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(lines.wait { $0.contains("count: value: 1") })
        #expect(lines.all[expected.count...].prefix(3) == ["count: database did change", "count: fetch", "count: value: 1"])
        cancellable?.cancel()
        cancellable = nil
        #expect(lines.all.last == "count: cancel")

        // A failing fetch reports the failure.
        let failures = Lines()
        let failing = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM missing") ?? 0 }
            .handleEvents(didFail: { failures.append("\($0)") })
        let failed = failing.start(in: writer, scheduling: .immediate, onError: { _ in }, onChange: { _ in })
        #expect(failures.all.count == 1 && failures.all[0].contains("no such table"))
        failed.cancel()
    }

    @Test("a read-only database: the observation fetches once and tracks nothing", arguments: WriterKind.allCases)
    func readOnly(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        _ = try makeWriter(kind, directory)
        var configuration = Configuration()
        configuration.readonly = true
        let reader = try kind.make(in: directory, configuration: configuration)
        let lines = Lines()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? -1 }
            .print(to: LinesStream(lines: lines))
            .start(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "read-only")), onError: { _ in }, onChange: { _ in })
        #expect(lines.wait { $0.contains("value: 0") })
        usleep(100_000)
        #expect(lines.all == ["start", "fetch", "value: 0"])
        cancellable.cancel()
    }

    @Test("a shared observation fetches once per change for all its subscribers", arguments: WriterKind.allCases)
    func shared(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let fetches = Lines()
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? -1 }
            .handleEvents(willFetch: { fetches.append("fetch") })
            .shared(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
        let a = Lines()
        let b = Lines()
        // A pool notifies its first value twice (see WriterKind.initialValueCount).
        let starts = kind.initialValueCount
        var first: AnyDatabaseCancellable? = shared.start(onError: { _ in }, onChange: { a.append("\($0)") })
        #expect(a.wait { $0 == Array(repeating: "0", count: starts) })
        // The second subscriber gets the last value, without a fetch.
        let second = shared.start(onError: { _ in }, onChange: { b.append("\($0)") })
        #expect(b.wait { $0 == ["0"] })
        #expect(fetches.all.count == starts)
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(a.wait { $0.last == "1" } && b.wait { $0 == ["0", "1"] })
        #expect(fetches.all.count == starts + 1)
        // One subscriber leaving does not stop the others.
        first?.cancel()
        first = nil
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('b')") }
        #expect(b.wait { $0 == ["0", "1", "2"] })
        #expect(a.all == Array(repeating: "0", count: starts) + ["1"])
        // The last one leaving stops it; the next one starts it again.
        second.cancel()
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('c')") }
        #expect(fetches.all.count == starts + 2)
        let c = Lines()
        let third = shared.start(onError: { _ in }, onChange: { c.append("\($0)") })
        #expect(c.wait { $0 == Array(repeating: "3", count: starts) })
        third.cancel()
    }

    @Test("a shared observation is an async sequence too", arguments: WriterKind.allCases)
    func sharedValues(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? -1 }
            .shared(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
        var iterator = shared.values().makeAsyncIterator()
        for _ in 0..<kind.initialValueCount { #expect(try await iterator.next() == 0) }
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(try await iterator.next() == 1)
    }
}
