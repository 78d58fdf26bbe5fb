import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Transaction observation as GRDB documents it, on queues and pools.
@Suite("Transaction observers and database regions")
struct TransactionObserverTests {
    /// Records what it is told; observes the tables it is given.
    final class Recorder: TransactionObserver, @unchecked Sendable {
        // Safe: every callback runs on the writer's queue, and tests read the
        // log after the accesses returned.
        let tables: Set<String>
        var events: [String] = []
        var commits = 0
        var rollbacks = 0
        var willCommitError: (any Error)?
        var stopsAfterFirstChange = false

        init(tables: Set<String> = ["player"]) { self.tables = tables }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            tables.contains(eventKind.tableName)
        }

        func databaseDidChange(with event: DatabaseEvent) {
            events.append("\(event.kind) \(event.tableName) \(event.rowID)")
            if stopsAfterFirstChange { stopObservingDatabaseChangesUntilNextTransaction() }
        }

        func databaseDidChange() { events.append("changed") }

        func databaseWillCommit() throws {
            if let willCommitError { throw willCommitError }
        }

        func databaseDidCommit(_ db: Database) { commits += 1 }
        func databaseDidRollback(_ db: Database) { rollbacks += 1 }
    }

    struct Refused: Error {}

    private func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT); CREATE TABLE team (id INTEGER PRIMARY KEY)")
        }
        return writer
    }

    @Test("insertions, updates and deletions of observed tables are notified, then the commit", arguments: WriterKind.allCases)
    func events(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let recorder = Recorder()
        writer.add(transactionObserver: recorder)
        try writer.write { db in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'a'), (2, 'b')")
            try db.execute(sql: "UPDATE player SET score = 1 WHERE id = 2")
            try db.execute(sql: "DELETE FROM player WHERE id = 1")
            try db.execute(sql: "INSERT INTO team DEFAULT VALUES")  // not observed
        }
        #expect(recorder.events == ["insert player 1", "insert player 2", "update player 2", "delete player 1"])
        #expect(recorder.commits == 1 && recorder.rollbacks == 0)
        // A read-only access is no transaction to notify.
        try writer.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
        #expect(recorder.commits == 1)
    }

    @Test("a willCommit error rolls the transaction back and is thrown", arguments: WriterKind.allCases)
    func willCommitThrows(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let recorder = Recorder()
        recorder.willCommitError = Refused()
        writer.add(transactionObserver: recorder)
        #expect(throws: Refused.self) {
            try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        }
        #expect(recorder.rollbacks == 1 && recorder.commits == 0)
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") } == 0)
        recorder.willCommitError = nil
        try writer.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        #expect(recorder.commits == 1)
    }

    @Test("changes of a rolled back savepoint are not notified; those of a released one are")
    func savepoints() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)") }
        let recorder = Recorder()
        dbQueue.add(transactionObserver: recorder)
        try dbQueue.write { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO player (id) VALUES (1)")
                return .rollback
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO player (id) VALUES (2)")
                return .commit
            }
        }
        #expect(recorder.events == ["insert player 2"])
        #expect(recorder.commits == 1)
    }

    @Test("stopObservingDatabaseChangesUntilNextTransaction silences changes until the next transaction")
    func stopObserving() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)") }
        let recorder = Recorder()
        recorder.stopsAfterFirstChange = true
        dbQueue.add(transactionObserver: recorder)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (1), (2), (3)") }
        #expect(recorder.events == ["insert player 1"])
        #expect(recorder.commits == 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (4), (5)") }
        #expect(recorder.events == ["insert player 1", "insert player 4"])
    }

    @Test("extents: observerLifetime holds weakly, nextTransaction ends after one transaction, remove stops")
    func extents() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)") }
        weak var released: Recorder?
        do {
            let recorder = Recorder()
            released = recorder
            dbQueue.add(transactionObserver: recorder)
        }
        #expect(released == nil)

        let once = Recorder()
        dbQueue.add(transactionObserver: once, extent: .nextTransaction)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (1)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (2)") }
        #expect(once.events == ["insert player 1"] && once.commits == 1)

        weak var kept: Recorder?
        do {
            let recorder = Recorder()
            kept = recorder
            dbQueue.add(transactionObserver: recorder, extent: .databaseLifetime)
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (3)") }
        #expect(kept?.events == ["insert player 3"])

        let removed = Recorder()
        dbQueue.add(transactionObserver: removed)
        dbQueue.remove(transactionObserver: removed)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (4)") }
        #expect(removed.events.isEmpty && removed.commits == 0)
    }

    @Test("afterNextTransaction calls onCommit or onRollback once")
    func afterNextTransaction() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)") }
        let log = Locked<[String]>([])
        try dbQueue.write { db in
            db.afterNextTransaction { _ in log.withLock { $0.append("commit") } } onRollback: { _ in log.withLock { $0.append("rollback") } }
            try db.execute(sql: "INSERT INTO player (id) VALUES (1)")
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id) VALUES (2)") }
        #expect(log.current == ["commit"])
        try? dbQueue.write { db in
            db.afterNextTransaction { _ in log.withLock { $0.append("commit") } } onRollback: { _ in log.withLock { $0.append("rollback") } }
            throw Refused()
        }
        #expect(log.current == ["commit", "rollback"])
    }

    @Test("a DELETE without WHERE notifies each deleted row when deletions are observed")
    func truncateOptimizationDisabled() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
            try db.execute(sql: "INSERT INTO player (id) VALUES (1), (2)")
        }
        let recorder = Recorder()
        dbQueue.add(transactionObserver: recorder)
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        #expect(Set(recorder.events) == ["delete player 1", "delete player 2"])
    }

    @Test("notifyChanges(in:) calls databaseDidChange() of the observers of the region")
    func notifyChanges() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT); CREATE TABLE team (id)") }
        let players = Recorder(tables: ["player"])
        dbQueue.add(transactionObserver: players)
        try dbQueue.write { db in
            try db.notifyChanges(in: DatabaseRegion.fullDatabase)
            try db.execute(sql: "INSERT INTO team VALUES (1)")
        }
        #expect(players.events == ["changed"])
    }

    @Test("pre-update events carry the values before and after the change, when SQLite has the hook")
    func preUpdateEvents() throws {
        final class PreUpdate: TransactionObserver, @unchecked Sendable {
            var values: [[DatabaseValue]?] = []
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) {}
            func databaseWillChange(with event: DatabasePreUpdateEvent) {
                values.append(event.initialDatabaseValues)
                values.append(event.finalDatabaseValues)
            }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO player VALUES (1, 'a')")
        }
        let observer = PreUpdate()
        dbQueue.add(transactionObserver: observer)
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'b'") }
        // The hook needs SQLITE_ENABLE_PREUPDATE_HOOK; without it nothing is reported.
        let hasHook = try dbQueue.read { db in
            try String.fetchAll(db, sql: "PRAGMA compile_options").contains("ENABLE_PREUPDATE_HOOK")
        }
        if hasHook {
            #expect(observer.values == [[1.databaseValue, "a".databaseValue], [1.databaseValue, "b".databaseValue]])
        } else {
            #expect(observer.values.isEmpty)
        }
    }

    // MARK: Regions

    @Test("a statement's region: the tables and columns it reads; events it is modified by")
    func statementRegion() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT); CREATE TABLE team (id INTEGER PRIMARY KEY, name)")
            let statement = try db.makeStatement(sql: "SELECT name FROM player WHERE score > 0")
            let region = statement.databaseRegion
            #expect(region.description == "player(name,score)")
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "player")))
            #expect(region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["score"])))
            #expect(!region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["id"])))
            #expect(!region.isModified(byEventsOfKind: .delete(tableName: "team")))
            // Table names in any case, as SQLite compares them; a prefix or an extension is another table.
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "PLAYER")))
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "Player")))
            #expect(!region.isModified(byEventsOfKind: .insert(tableName: "playe")))
            #expect(!region.isModified(byEventsOfKind: .insert(tableName: "players")))
            #expect(!region.isModified(byEventsOfKind: .insert(tableName: "plAyer_")))
            let wide = try ["a", "b", "c", "d", "e", "Café"].reduce(DatabaseRegion()) { $0.union(try Table($1).databaseRegion(db)) }
            #expect(wide.isModified(byEventsOfKind: .insert(tableName: "E")) && wide.isModified(byEventsOfKind: .insert(tableName: "CAFÉ")))
            #expect(!wide.isModified(byEventsOfKind: .insert(tableName: "f")))
            let few = try ["Café", "b"].reduce(DatabaseRegion()) { $0.union(try Table($1).databaseRegion(db)) }
            #expect(few.isModified(byEventsOfKind: .insert(tableName: "café")) && !few.isModified(byEventsOfKind: .insert(tableName: "cafe")))
            let count = try db.makeStatement(sql: "SELECT COUNT(*) FROM team")
            #expect(count.databaseRegion.description == "team(*)")
            #expect(region.union(count.databaseRegion).description == "player(name,score),team(*)")
            #expect(DatabaseRegion().isEmpty && DatabaseRegion().description == "empty")
            #expect(DatabaseRegion.fullDatabase.isFullDatabase && DatabaseRegion.fullDatabase.description == "full database")
            #expect(try db.makeStatement(sql: "INSERT INTO team DEFAULT VALUES").databaseRegion.isEmpty)
            let request = SQLRequest<Row>(sql: "SELECT name FROM team")
            #expect(try request.databaseRegion(db).description == "team(name)")
        }
    }
}
