import DatabaseKit
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// ValueObservation and DatabaseRegionObservation on real queues and pools,
/// with real writers.
@Suite("Value and region observation")
struct ValueObservationTests {
    private func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT);
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE account (id INTEGER PRIMARY KEY, balance INT NOT NULL);
                    INSERT INTO account (id, balance) VALUES (1, 100), (2, 0);
                    """)
        }
        return writer
    }

    /// Values and errors an observation notified, for tests that start it
    /// with callbacks.
    final class Log<Value: Sendable>: Sendable {
        private let storage = Locked<(values: [Value], errors: [String])>(([], []))
        var values: [Value] { storage.withLock { $0.values } }
        var errors: [String] { storage.withLock { $0.errors } }
        func append(_ value: Value) { storage.withLock { $0.values.append(value) } }
        func fail(_ error: any Error) { storage.withLock { $0.errors.append("\(error)") } }

        /// Waits until `count` values came (or 10 s).
        func wait(forCount count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while values.count < count {
                if Date() > deadline { return false }
                usleep(1000)
            }
            return true
        }
    }

    @Test("the first value, then one after each commit that changes what it read", arguments: WriterKind.allCases)
    func valuesFollowCommits(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? -1 }
        var values = observation.values(in: writer).makeAsyncIterator()
        for _ in 0..<kind.initialValueCount { #expect(try await values.next() == 0) }
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(try await values.next() == 1)
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('b'), ('c')") }
        #expect(try await values.next() == 3)
        try await writer.write { db in try db.execute(sql: "DELETE FROM player WHERE name = 'a'") }
        #expect(try await values.next() == 2)
    }

    @Test("a write outside the observed region fetches nothing; a rollback notifies nothing", arguments: WriterKind.allCases)
    func regionIsRespected(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let fetches = Atomic(0)
        let log = Log<[String]>()
        let observation = ValueObservation.tracking { db in
            fetches.add(1, ordering: .relaxed)
            return try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
        }
        let cancellable = observation.start(
            in: writer, scheduling: .async(onQueue: DispatchQueue(label: "test")), onError: log.fail, onChange: log.append)
        #expect(log.wait(forCount: kind.initialValueCount))
        try writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('red')") }
        try? writer.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('ghost')")
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "abandoned")
        }
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(log.wait(forCount: kind.initialValueCount + 1))
        usleep(100_000)
        #expect(log.values == Array(repeating: [], count: kind.initialValueCount) + [["a"]])
        #expect(fetches.load(ordering: .relaxed) == kind.initialValueCount + 1, "the team insert or the rollback caused a fetch")
        #expect(log.errors.isEmpty)
        cancellable.cancel()
    }

    @Test("on a pool, the first value is read while a write is open, then fetched again once it committed; the fetch may write")
    func poolStartsConcurrently() throws {
        let directory = TemporaryDirectory()
        let pool = try #require(try makeWriter(.pool, directory) as? DatabasePool)
        // A write that stays open until the observation notified a value.
        let notified = DispatchSemaphore(value: 0)
        let writing = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? pool.write { db in
                try db.execute(sql: "INSERT INTO player (name) VALUES ('slow')")
                writing.signal()
                _ = notified.wait(timeout: .now() + 10)
            }
            writeDone.signal()
        }
        writing.wait()
        let log = Log<Int>()
        let counting = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 }
        let cancellable = counting.start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "test")), onError: log.fail) {
            log.append($0)
            notified.signal()
        }
        // The first value came while the write was open: it does not see it.
        #expect(log.wait(forCount: 1))
        #expect(writeDone.wait(timeout: .now() + 10) == .success)
        // The writer's fetch, as it installed the observer, does.
        #expect(log.wait(forCount: 2))
        #expect(log.values == [0, 1])
        cancellable.cancel()

        // A fetch that writes through the pool (GRDB allows it: the first
        // fetch runs on a reader) neither stops the program nor deadlocks.
        let wrote = Atomic(false)
        let writing2 = ValueObservation.tracking { db -> Int in
            if !wrote.exchange(true, ordering: .relaxed) {
                try pool.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('from the fetch')") }
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
        }
        let log2 = Log<Int>()
        let second = writing2.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "test")), onError: log2.fail, onChange: log2.append)
        #expect(log2.wait(forCount: 2))
        #expect(log2.values.last == 2 && log2.errors.isEmpty, "\(log2.values) \(log2.errors)")
        second.cancel()
    }

    /// Cancels a task once the transaction it is told about committed.
    final class CancelAfterCommit: TransactionObserver, @unchecked Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { task.cancel() }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test("a task cancelled as its write commits: the write stands, and an observation fetches it without failing")
    func writerCancelledAfterCommit() async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(.queue, directory)
        let (go, start) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            for await _ in go {}
            try? await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        }
        // Added first: it cancels the task before the observation hears of the commit.
        writer.add(transactionObserver: CancelAfterCommit(task), extent: .databaseLifetime)
        var seen: [Int] = []
        for try await count in ValueObservation.tracking({ db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 })
            .values(in: writer)
        {
            seen.append(count)
            if count == 0 { start.finish() } else { break }
        }
        #expect(seen == [0, 1])
        await task.value
    }

    @Test(
        "immediate: the first value before start returns, on the main actor that started it; the next ones on the main actor too",
        arguments: WriterKind.allCases)
    @MainActor
    func immediateFirstValue(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('a', 10)") }
        // The callbacks are main-actor isolated (checked at run time by
        // MainActor.assumeIsolated); on Linux the main queue may run on
        // another thread than the process's first one.
        var values: [Int] = []
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT SUM(score) FROM player") ?? 0 }
            .start(in: writer, scheduling: .immediate, onError: { Issue.record($0) }) { value in
                values.append(value)
            }
        #expect(values == [10])
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('b', 5)") }
        let expected = Array(repeating: 10, count: kind.initialValueCount) + [15]
        let deadline = Date().addingTimeInterval(10)
        while values.count < expected.count && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(values == expected)
        cancellable.cancel()
    }

    @Test("async(onQueue:): every value on that queue, in the order of the commits", arguments: WriterKind.allCases)
    func valuesOnQueue(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let queue = DispatchQueue(label: "observer")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let log = Log<Int>()
        let offQueue = Atomic(0)
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 }
            .start(in: writer, scheduling: .async(onQueue: queue), onError: log.fail) { value in
                if DispatchQueue.getSpecific(key: key) != true { offQueue.add(1, ordering: .relaxed) }
                log.append(value)
            }
        #expect(log.wait(forCount: 1))
        for index in 1...20 {
            try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["p\(index)"]) }
        }
        #expect(waitUntilTrue { log.values.last == 20 })
        #expect(offQueue.load(ordering: .relaxed) == 0)
        #expect(log.values == log.values.sorted(), "values out of order: \(log.values)")
        cancellable.cancel()
    }

    @Test("removeDuplicates skips equal values; map transforms them", arguments: WriterKind.allCases)
    func removeDuplicatesAndMap(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT MAX(score) FROM player") ?? 0 }
            .removeDuplicates()
            .map { "best: \($0)" }
        var values = observation.values(in: writer).makeAsyncIterator()
        #expect(try await values.next() == "best: 0")
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('a', 5)") }
        #expect(try await values.next() == "best: 5")
        // Same maximum: removed. The next value is the next different one.
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('b', 3)") }
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('c', 8)") }
        #expect(try await values.next() == "best: 8")
    }

    @Test("a pool under concurrent writers: every value is a committed state, the last one the final state")
    func poolUnderConcurrentWriters() async throws {
        let directory = TemporaryDirectory()
        let pool = try makeWriter(.pool, directory)
        // Each transfer keeps the total at 100: a torn read would show another.
        let observation = ValueObservation.trackingConstantRegion { db in
            try Row.fetchAll(db, sql: "SELECT balance FROM account ORDER BY id").map { row -> Int in row[0] }
        }
        let log = Log<[Int]>()
        let cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "observer")), onError: log.fail, onChange: log.append)
        #expect(log.wait(forCount: 1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writerIndex in 0..<4 {
                group.addTask {
                    for step in 0..<25 {
                        let amount = (writerIndex + step) % 3 + 1
                        try await pool.write { db in
                            try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = 1", arguments: [amount])
                            try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = 2", arguments: [amount])
                        }
                    }
                }
            }
            // Readers of the pool meanwhile, as an application's screens.
            group.addTask {
                for _ in 0..<50 { _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") } }
            }
            try await group.waitForAll()
        }
        let final = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT balance FROM account ORDER BY id") }
        #expect(waitUntilTrue { log.values.last == final })
        #expect(log.values.allSatisfy { $0.reduce(0, +) == 100 }, "a value that is no committed state: \(log.values)")
        #expect(log.values.map { $0[1] } == log.values.map { $0[1] }.sorted(), "values went back in time")
        #expect(log.values.count > 1)
        #expect(log.errors.isEmpty)
        cancellable.cancel()
    }

    @Test("tracking(_:) follows a region that changes with what was read", arguments: WriterKind.allCases)
    func nonConstantRegion(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try await writer.write { db in
            try db.execute(sql: "CREATE TABLE choice (tableName TEXT); INSERT INTO choice VALUES ('player')")
        }
        let observation = ValueObservation.tracking { db -> Int in
            let table = try String.fetchOne(db, sql: "SELECT tableName FROM choice") ?? "player"
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
        var values = observation.values(in: writer).makeAsyncIterator()
        for _ in 0..<kind.initialValueCount { #expect(try await values.next() == 0) }
        try await writer.write { db in try db.execute(sql: "UPDATE choice SET tableName = 'team'") }
        #expect(try await values.next() == 0)
        // Now team is observed, player no more.
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        try await writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('t1'), ('t2')") }
        #expect(try await values.next() == 2)
    }

    @Test("tracking(region:) observes the given region, whatever the fetch reads", arguments: WriterKind.allCases)
    func explicitRegion(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observation = ValueObservation.tracking(region: Table("team")) { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
        }
        var values = observation.values(in: writer).makeAsyncIterator()
        for _ in 0..<kind.initialValueCount { #expect(try await values.next() == 0) }
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        try await writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('t')") }
        #expect(try await values.next() == 1)
    }

    @Test("cancel: no value after it; leaving the loop ends the observation", arguments: WriterKind.allCases)
    func cancellation(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let fetches = Atomic(0)
        let observation = ValueObservation.tracking { db in
            fetches.add(1, ordering: .relaxed)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
        }
        for try await count in observation.values(in: writer) {
            if count == 2 { break }
            try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        }
        let fetched = fetches.load(ordering: .relaxed)
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('after')") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(fetches.load(ordering: .relaxed) == fetched, "the observation fetched after its loop ended")

        let log = Log<Int>()
        let cancellable = observation.start(
            in: writer, scheduling: .async(onQueue: DispatchQueue(label: "test")), onError: log.fail, onChange: log.append)
        #expect(log.wait(forCount: 1))
        cancellable.cancel()
        let count = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 }
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('cancelled')") }
        try await Task.sleep(for: .milliseconds(100))
        // The first value (a pool's repeat of it may come before the cancel), never the cancelled insert.
        #expect(!log.values.isEmpty && log.values.allSatisfy { $0 == count } && log.values.count <= kind.initialValueCount, "\(log.values)")
    }

    @Test("a fetch error ends the observation: onError once, the sequence throws it", arguments: WriterKind.allCases)
    func errors(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observation = ValueObservation.tracking { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM missing_table")
        }
        await #expect(throws: DatabaseError.self) {
            for try await _ in observation.values(in: writer) {}
        }
        // An error after the first value.
        let failing = ValueObservation.tracking { db -> Int in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
            if count > 0 { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "too many players") }
            return count
        }
        let log = Log<Int>()
        let cancellable = failing.start(
            in: writer, scheduling: .async(onQueue: DispatchQueue(label: "test")), onError: log.fail, onChange: log.append)
        #expect(log.wait(forCount: kind.initialValueCount))
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        #expect(waitUntilTrue { !log.errors.isEmpty })
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('y')") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(log.values == Array(repeating: 0, count: kind.initialValueCount))
        #expect(log.errors.count == 1 && log.errors[0].contains("too many players"), "\(log.errors)")
        cancellable.cancel()
    }

    @Test("requiresWriteAccess: the fetch may write, in the writer's transaction", arguments: WriterKind.allCases)
    func writeAccess(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        var observation = ValueObservation.tracking { db -> Int in
            try db.execute(
                sql: "CREATE TEMP TABLE IF NOT EXISTS scratch (x); DELETE FROM scratch; INSERT INTO scratch SELECT id FROM player")
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scratch") ?? 0
        }
        observation.requiresWriteAccess = true
        var values = observation.values(in: writer).makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        #expect(try await values.next() == 1)
    }

    struct Player: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: Int64?
        var name: String
        var score: Int?
    }

    @Test(
        "GRDB's shapes: tracking(Player.fetchCount), a query interface request, removeDuplicates of records", arguments: WriterKind.allCases
    )
    func recordShapes(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        var counts = ValueObservation.tracking(Player.fetchCount).values(in: writer).makeAsyncIterator()
        var best = ValueObservation.tracking { db in
            try Player.filter(Column("score") > 10).order(Column("score").desc).fetchAll(db)
        }
        .removeDuplicates()
        .values(in: writer).makeAsyncIterator()
        for _ in 0..<kind.initialValueCount { #expect(try await counts.next() == 0) }
        #expect(try await best.next() == [])
        try await writer.write { db in
            try Player(id: 1, name: "a", score: 5).insert(db)
            try Player(id: 2, name: "b", score: 20).insert(db)
        }
        #expect(try await counts.next() == 2)
        #expect(try await best.next() == [Player(id: 2, name: "b", score: 20)])
        // A change that leaves the request's result as it was is removed.
        try await writer.write { db in try db.execute(sql: "UPDATE player SET score = 6 WHERE id = 1") }
        try await writer.write { db in try Player(id: 3, name: "c", score: 30).insert(db) }
        #expect(try await best.next() == [Player(id: 3, name: "c", score: 30), Player(id: 2, name: "b", score: 20)])
    }

    @Test("a snapshot's observation notifies its one value")
    func snapshotObservation() async throws {
        let directory = TemporaryDirectory()
        let pool = try #require(try makeWriter(.pool, directory) as? DatabasePool)
        try await pool.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }
        let snapshot = try pool.makeSnapshot()
        try await pool.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('y')") }
        var values = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 }
            .values(in: snapshot).makeAsyncIterator()
        #expect(try await values.next() == 1)
    }

    @Test("recordingSelection gives the tables and columns a block read")
    func recordingSelection() throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(.queue, directory)
        try writer.read { db in
            var region = DatabaseRegion()
            var inner = DatabaseRegion()
            _ = try db.recordingSelection(&region) {
                _ = try String.fetchAll(db, sql: "SELECT name FROM player")
                _ = try db.recordingSelection(&inner) { try Row.fetchAll(db, sql: "SELECT * FROM team") }
            }
            #expect(inner.description == "team(id,name)")
            #expect(region.description == "player(name),team(id,name)")
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "team")))
            #expect(!region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["score"])))
        }
    }

    @Test(
        "DatabaseRegionObservation: after each commit that touches the region, on the writer, until cancelled",
        arguments: WriterKind.allCases)
    func regionObservation(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let log = Log<Int>()
        let cancellable = DatabaseRegionObservation(tracking: Table("player"))
            .start(in: writer, onError: log.fail) { db in
                log.append((try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")) ?? -1)
            }
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        try writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('t')") }
        try? writer.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('rolled back')")
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "abandoned")
        }
        try writer.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('b')")
            try db.execute(sql: "INSERT INTO player (name) VALUES ('c')")
        }
        // Synchronous, on the writer, right after each commit.
        #expect(log.values == [1, 3])
        cancellable.cancel()
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('d')") }
        #expect(log.values == [1, 3])
        #expect(log.errors.isEmpty)
    }
}
