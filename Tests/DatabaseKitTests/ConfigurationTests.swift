import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Configuration")
struct ConfigurationTests {
    @Test("defaults")
    func defaults() {
        let config = Configuration()
        #expect(config.foreignKeysEnabled)
        #expect(!config.readonly)
        #expect(config.label == nil)
        #expect(config.trace == nil)
        #expect(config.passphrase == nil)
        // Unset, transactions follow GRDB 7: IMMEDIATE for writes.
        #expect(config.defaultTransactionKind == .immediate)
        #expect(!config.allowsUnsafeTransactions)
        #expect(config.maximumReaderCount == 5)
        #expect(!config.publicStatementArguments)
        guard case .immediateError = config.busyMode else {
            Issue.record("busyMode should default to immediateError")
            return
        }
        guard case .default = config.journalMode else {
            Issue.record("journalMode should default to .default")
            return
        }
    }

    @Test("foreign keys are enforced by default, and can be disabled")
    func foreignKeys() throws {
        let schema = """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(parentId INTEGER REFERENCES parent(id));
            """
        let enforced = DatabaseQueue()
        try enforced.write { db in try db.execute(sql: schema) }
        expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) {
            try enforced.write { db in try db.execute(sql: "INSERT INTO child VALUES (1)") }
        }

        var config = Configuration()
        config.foreignKeysEnabled = false
        let relaxed = DatabaseQueue(configuration: config)
        try relaxed.write { db in
            try db.execute(sql: schema)
            try db.execute(sql: "INSERT INTO child VALUES (1)")
        }
    }

    @Test("readonly rejects writes with SQLITE_READONLY")
    func readonly() throws {
        let directory = TemporaryDirectory()
        try directory.makeQueue().write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        var config = Configuration()
        config.readonly = true
        let dbQueue = try directory.makeQueue(configuration: config)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
        let error = #expect(throws: DatabaseError.self) {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.resultCode == .SQLITE_READONLY)
    }

    @Test("trace receives every statement")
    func trace() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
        }
        #expect(traced.current.contains("CREATE TABLE t(a)"))
        #expect(traced.current.contains("INSERT INTO t VALUES (?)"))
        #expect(traced.current.contains("BEGIN IMMEDIATE TRANSACTION"))
    }

    @Test("Database.trace(options:) reports statements and profiles, and hides arguments by default")
    func databaseTrace() throws {
        let dbQueue = DatabaseQueue()
        var statements: [String] = []
        var expanded: [String] = []
        var profiles: [TimeInterval] = []
        try dbQueue.inDatabase { db in
            db.trace { event in
                statements.append(event.description)
                expanded.append(event.expandedDescription)
            }
            _ = try Int.fetchOne(db, sql: "SELECT ?", arguments: [42])
            db.trace(options: .profile) { event in
                if case let .profile(_, duration) = event { profiles.append(duration) }
            }
            _ = try Int.fetchOne(db, sql: "SELECT 1")
            db.trace(nil)
            _ = try Int.fetchOne(db, sql: "SELECT 2")
        }
        #expect(statements == ["SELECT ?"])
        #expect(expanded == ["SELECT 42"])
        #expect(profiles.count == 1)
        #expect(profiles.allSatisfy { $0 >= 0 })
    }

    @Test("publicStatementArguments shows arguments in traces and errors")
    func publicStatementArguments() throws {
        var config = Configuration()
        config.publicStatementArguments = true
        let dbQueue = DatabaseQueue(configuration: config)
        var statements: [String] = []
        let error = try dbQueue.inDatabase { db in
            db.trace { statements.append($0.description) }
            _ = try Int.fetchOne(db, sql: "SELECT ?", arguments: [42])
            try db.execute(sql: "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1)")
            return #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
            }
        }
        #expect(statements.first == "SELECT 42")
        #expect(error?.arguments == [1])
        #expect(error?.description.contains("with arguments [1]") == true)

        // By default, arguments stay private.
        let privateQueue = DatabaseQueue()
        let privateError = try privateQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES ('secret')")
            return #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
            }
        }
        // Kept in the error, as in GRDB, and hidden from its description.
        #expect(privateError?.arguments == ["secret"])
        #expect(privateError?.description.contains("secret") == false)
        #expect(privateError?.expandedDescription.contains("with arguments [\"secret\"]") == true)
    }

    @Test("defaultTransactionKind is used by write and beginTransaction")
    func defaultTransactionKind() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.defaultTransactionKind = .immediate
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { _ in }
        try dbQueue.inDatabase { db in
            try db.beginTransaction()
            try db.commit()
        }
        #expect(traced.current.filter { $0.hasPrefix("BEGIN") } == ["BEGIN IMMEDIATE TRANSACTION", "BEGIN IMMEDIATE TRANSACTION"])
    }

    /// A database with a table `t`, and the connection that holds its
    /// exclusive lock (in a transaction the test ends).
    private func exclusivelyLocked(_ directory: TemporaryDirectory) throws -> DatabaseQueue {
        try directory.makeQueue().write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let holder = try directory.makeQueue(configuration: config)
        try holder.inDatabase { db in try db.beginTransaction(.exclusive) }
        return holder
    }

    @Test("busyMode immediateError fails at once; timeout waits for the lock")
    func busyMode() throws {
        let directory = TemporaryDirectory()
        let holder = try exclusivelyLocked(directory)

        // immediateError: SQLITE_BUSY while the lock is held (no wait: a
        // waiting connection would hold this test until the lock is released).
        let immediate = try directory.makeQueue()
        expectDatabaseError(.SQLITE_BUSY) {
            try immediate.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }

        // timeout: a write that starts while the lock is held waits, and
        // succeeds once the lock is released. The release waits for the
        // writer's signal, so the write never starts after it: without
        // waiting, it would fail with SQLITE_BUSY (as above). No clock is read.
        var waitingConfig = Configuration()
        waitingConfig.busyMode = .timeout(60)
        let waiting = try directory.makeQueue(configuration: waitingConfig)
        let writerStarts = DispatchSemaphore(value: 0)
        let written = Locked(false)
        let writer = Thread {
            writerStarts.signal()
            recordingErrors { try waiting.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
            written.withLock { $0 = true }
        }
        writer.start()
        writerStarts.wait()
        Thread.sleep(forTimeInterval: 0.2)  // lets the writer reach the lock; correctness does not depend on it
        #expect(!written.current, "the write could not complete while the lock was held")
        try holder.inDatabase { db in try db.commit() }
        while !written.current { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try waiting.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)

        // timeout: fails with SQLITE_BUSY after the timeout.
        try holder.inDatabase { db in try db.beginTransaction(.exclusive) }
        var shortConfig = Configuration()
        shortConfig.busyMode = .timeout(0.2)
        let short = try directory.makeQueue(configuration: shortConfig)
        expectDatabaseError(.SQLITE_BUSY) {
            try short.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        try holder.inDatabase { db in try db.rollback() }
    }

    @Test("opening a database another connection locks does not wait for the lock; the first access does")
    func openingDoesNotWait() throws {
        let directory = TemporaryDirectory()
        let holder = try exclusivelyLocked(directory)
        var waitingConfig = Configuration()
        waitingConfig.busyMode = .timeout(60)
        let start = Date()
        let waiting = try directory.makeQueue(configuration: waitingConfig)
        // Half the busy timeout: only a wait for the lock can take that long.
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(try waiting.read { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") } == 60_000, "the timeout is back")
        try holder.inDatabase { db in try db.rollback() }
        #expect(try waiting.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test("a busy timeout set by prepareDatabase stays in effect after the opening")
    func prepareDatabaseBusyTimeout() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA busy_timeout = 1234") }
        let dbQueue = try directory.makeQueue(configuration: config)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") } == 1234)
    }

    @Test("busyMode callback decides whether to retry")
    func busyCallback() throws {
        let directory = TemporaryDirectory()
        let holder = try exclusivelyLocked(directory)

        let tries = Locked(0)
        var callbackConfig = Configuration()
        callbackConfig.busyMode = .callback { numberOfTries in
            tries.withLock { $0 = numberOfTries + 1 }
            return numberOfTries < 3
        }
        let dbQueue = try directory.makeQueue(configuration: callbackConfig)
        expectDatabaseError(.SQLITE_BUSY) {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(tries.current == 4)
        try holder.inDatabase { db in try db.rollback() }
    }

    @Test("journalMode .wal sets the WAL mode")
    func journalModeWAL() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.journalMode = .wal
        let dbQueue = try directory.makeQueue(configuration: config)
        #expect(try dbQueue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        let defaultQueue = try directory.makeQueue("other.sqlite")
        #expect(try defaultQueue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "delete")
    }

    @Test("prepareDatabase runs on every new connection, and its errors fail the opening")
    func prepareDatabase() throws {
        struct SetupFailure: Error {}
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA user_version = 7") }
        let dbQueue = try directory.makeQueue(configuration: config)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 7)

        var failing = Configuration()
        failing.prepareDatabase { _ in throw SetupFailure() }
        #expect(throws: SetupFailure.self) { try directory.makeQueue(configuration: failing) }
    }

    @Test("a passphrase fails clearly: the system SQLite has no encryption")
    func passphrase() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.passphrase = "secret"
        let error = #expect(throws: DatabaseError.self) { try directory.makeQueue(configuration: config) }
        #expect(error?.message?.contains("no encryption") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        // The non-throwing in-memory initializer reports it on every access.
        let inMemory = DatabaseQueue(configuration: config)
        let accessError = #expect(throws: DatabaseError.self) { try inMemory.read { _ in } }
        #expect(accessError?.message?.contains("no encryption") == true)
    }
}
