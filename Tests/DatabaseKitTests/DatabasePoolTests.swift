import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("DatabasePool")
struct DatabasePoolTests {
    private func makePool(_ directory: TemporaryDirectory, configuration: Configuration = Configuration()) throws -> DatabasePool {
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"), configuration: configuration)
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(a); CREATE TABLE account(id INTEGER PRIMARY KEY, balance INT NOT NULL)")
            for id in 1...10 {
                try db.execute(sql: "INSERT INTO account VALUES (?, 100)", arguments: [id])
            }
        }
        return dbPool
    }

    @Test("opens the database in WAL mode, creating the file")
    func walMode() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        #expect(try dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        #expect(FileManager.default.fileExists(atPath: directory.file("db.sqlite-wal")))
        #expect(dbPool.path == directory.file("db.sqlite"))
    }

    @Test("connections opening a new file as pools at once all get it in WAL mode, within the busy timeout")
    func simultaneousOpenings() throws {
        // SQLite fails a journal mode switch with SQLITE_BUSY without calling
        // the busy handler when two connections switch at once.
        let directory = TemporaryDirectory()
        for round in 0..<20 {
            let path = directory.file("db\(round).sqlite")
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                var config = Configuration()
                config.busyMode = .timeout(10)
                do {
                    let dbPool = try DatabasePool(path: path, configuration: config)
                    let mode = try dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
                    if mode != "wal" { failures.withLock { $0.append("journal_mode \(mode ?? "nil")") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.current == [], "round \(round)")
        }
    }

    @Test("a read-only pool does not change the journal mode nor create the file")
    func readOnlyPool() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.readonly = true
        expectDatabaseError(.SQLITE_CANTOPEN) { try DatabasePool(path: directory.file("missing.sqlite"), configuration: config) }
        try directory.makeQueue().write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"), configuration: config)
        #expect(try dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "delete")
        expectDatabaseError(.SQLITE_READONLY) { try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
    }

    @Test("readers are read-only and never leave a transaction open")
    func readersAreReadOnly() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        expectDatabaseError(.SQLITE_READONLY) { try dbPool.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
        expectDatabaseError(.SQLITE_READONLY) { try dbPool.unsafeRead { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
        try dbPool.unsafeRead { db in #expect(!db.isInsideTransaction) }
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test("a reader that leaves a transaction open stops the program")
    func readerLeavingTransaction() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let path = NSTemporaryDirectory() + "pool-\(UUID().uuidString).sqlite"
            var config = Configuration()
            config.allowsUnsafeTransactions = true  // has no effect on readers
            let dbPool = try DatabasePool(path: path, configuration: config)
            try dbPool.unsafeRead { db in try db.beginTransaction() }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("A transaction has been left opened"))
    }

    @Test("two reads run at the same time")
    func readsOverlap() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let rendezvous = Rendezvous(count: 2)
        let met = Locked<[Bool]>([])
        runOnThreads(2) { _ in
            recordingErrors { try dbPool.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
                // Both reads are inside their access at the same moment.
                let arrived = rendezvous.arrive()
                met.withLock { $0.append(arrived) }
            } }
        }
        #expect(met.current == [true, true])
    }

    @Test("a read overlaps a write, and does not see it")
    func readOverlapsWrite() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let readStarted = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        let counts = Locked<[Int]>([])
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            recordingErrors { try dbPool.read { db in
                try counts.withLock { $0.append(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1) }
                readStarted.signal()
                // The write commits while this read is still running.
                #expect(writeDone.wait(timeout: .now() + 5) == .success)
                try counts.withLock { $0.append(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1) }
            } }
        }
        #expect(readStarted.wait(timeout: .now() + 5) == .success)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        writeDone.signal()
        group.wait()
        #expect(counts.current == [0, 0])
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test("snapshot isolation: many reads always see a constant total while a writer transfers")
    func snapshotIsolation() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let stop = Locked(false)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            var i = 0
            while !stop.current {
                recordingErrors { try dbPool.write { db in
                    let from = i % 10 + 1
                    let to = (i + 3) % 10 + 1
                    try db.execute(sql: "UPDATE account SET balance = balance - 7 WHERE id = ?", arguments: [from])
                    try db.execute(sql: "UPDATE account SET balance = balance + 7 WHERE id = ?", arguments: [to])
                } }
                i += 1
            }
        }
        let totals = Locked<Set<Int>>([])
        runOnThreads(4) { _ in
            for _ in 0..<200 {
                let total = recordingErrors {
                    try dbPool.read { db in
                        // Two statements of one read see the same snapshot.
                        let sum = try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account")
                        let again = try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account")
                        return sum == again ? sum ?? -2 : -1
                    }
                } ?? -3
                totals.withLock { _ = $0.insert(total) }
            }
        }
        stop.withLock { $0 = true }
        group.wait()
        #expect(totals.current == [1000])
    }

    @Test("writeInTransaction: readers see the block as a whole")
    func writeInTransaction() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        try dbPool.writeInTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            let inside = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
            #expect(inside == 0)
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .commit
        }
        try dbPool.writeInTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            return .rollback
        }
        #expect(try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") } == [1, 2])
    }

    /// Starts a read on another thread, in `group`, and returns once it runs;
    /// the read lasts `duration`, then appends `event`.
    private func startRead(
        _ dbPool: DatabasePool, lasting duration: TimeInterval, logging event: String, to events: Locked<[String]>,
        in group: DispatchGroup
    ) {
        let readStarted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) {
            recordingErrors { try dbPool.read { _ in
                readStarted.signal()
                Thread.sleep(forTimeInterval: duration)
                events.withLock { $0.append(event) }
            } }
        }
        readStarted.wait()
    }

    @Test("barrierWriteWithoutTransaction waits for running reads, and blocks new ones")
    func barrier() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let events = Locked<[String]>([])
        let group = DispatchGroup()
        startRead(dbPool, lasting: 0.3, logging: "read 1 ends", to: events, in: group)
        let barrierStarted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) {
            recordingErrors { try dbPool.barrierWriteWithoutTransaction { _ in
                events.withLock { $0.append("barrier starts") }
                barrierStarted.signal()
                Thread.sleep(forTimeInterval: 0.3)
                events.withLock { $0.append("barrier ends") }
            } }
        }
        barrierStarted.wait()
        try dbPool.read { _ in events.withLock { $0.append("read 2") } }
        group.wait()
        #expect(events.current == ["read 1 ends", "barrier starts", "barrier ends", "read 2"])
    }

    @Test("asyncBarrierWriteWithoutTransaction: after running reads, before the reads asked for once it returned; barriers never overlap")
    func asyncBarrier() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let events = Locked<[String]>([])
        let group = DispatchGroup()
        startRead(dbPool, lasting: 0.2, logging: "read 1 ends", to: events, in: group)
        for name in ["barrier A", "barrier B"] {
            group.enter()
            dbPool.asyncBarrierWriteWithoutTransaction { dbResult in
                events.withLock { $0.append("\(name) starts") }
                if case .failure(let error) = dbResult { events.withLock { $0.append("\(name): \(error)") } }
                Thread.sleep(forTimeInterval: 0.1)
                events.withLock { $0.append("\(name) ends") }
                group.leave()
            }
        }
        // Asked for after both calls returned: waits for both barriers.
        try dbPool.read { _ in events.withLock { $0.append("read 2") } }
        group.wait()
        #expect(
            events.current == [
                "read 1 ends", "barrier A starts", "barrier A ends", "barrier B starts", "barrier B ends", "read 2",
            ])
    }

    @Test("the reader limit is respected: reads wait for a free reader")
    func readerLimit() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.maximumReaderCount = 3
        let dbPool = try makePool(directory, configuration: config)
        let inside = Locked(0)
        let maxInside = Locked(0)
        let labels = Locked<Set<String>>([])
        runOnThreads(12) { _ in
            recordingErrors { try dbPool.read { db in
                let now = inside.withLock { value in
                    value += 1
                    return value
                }
                maxInside.withLock { $0 = max($0, now) }
                labels.withLock { _ = $0.insert(db.description) }
                Thread.sleep(forTimeInterval: 0.05)
                inside.withLock { $0 -= 1 }
            } }
        }
        #expect(maxInside.current == 3)
        #expect(labels.current.count <= 3)
        #expect(labels.current.allSatisfy { $0.hasPrefix("GRDB.DatabasePool.reader.") })
    }

    @Test("connection and dispatch queue labels: writer, readers, snapshots; with a custom label")
    func labels() throws {
        // Synchronous accesses run on the calling thread (see
        // SerializedDatabase): the connection carries the label; the queues
        // of asynchronous accesses carry it too.
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        #expect(try dbPool.write { db in db.description } == "GRDB.DatabasePool.writer")
        #expect(try dbPool.read { db in db.description } == "GRDB.DatabasePool.reader.1")
        #expect(
            asyncAccessQueueLabel { body in dbPool.asyncWriteWithoutTransaction { db in body(.success(db)) } }
                == "GRDB.DatabasePool.writer")
        #expect(asyncAccessQueueLabel { dbPool.asyncRead($0) } == "GRDB.DatabasePool.reader.1")
        let snapshot = try dbPool.makeSnapshot()
        #expect(snapshot.read { db in db.description } == "GRDB.DatabasePool.snapshot.1")
        let snapshot2 = try dbPool.makeSnapshot()
        #expect(snapshot2.read { db in db.description } == "GRDB.DatabasePool.snapshot.2")
        #expect(asyncAccessQueueLabel { snapshot2.asyncRead($0) } == "GRDB.DatabasePool.snapshot.2")

        var config = Configuration()
        config.label = "MyDatabase"
        let labeled = try DatabasePool(path: directory.file("other.sqlite"), configuration: config)
        try labeled.write { db in
            #expect(db.description == "MyDatabase.writer")
            #expect(db.configuration.label == "MyDatabase")
        }
        #expect(try labeled.read { db in db.description } == "MyDatabase.reader.1")
        #expect(asyncAccessQueueLabel { labeled.asyncRead($0) } == "MyDatabase.reader.1")
        #expect(try labeled.makeSnapshot().read { db in db.description } == "MyDatabase.snapshot.1")
    }

    @Test("concurrentRead starts from the writer's current state and runs alongside further writes")
    func concurrentRead() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let count = try dbPool.writeWithoutTransaction { db -> Int in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            let future = dbPool.concurrentRead { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
            }
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return try future.wait()
        }
        #expect(count == 1)
    }

    @Test("concurrentRead outside of a writer access, or inside a transaction, reports SQLITE_MISUSE")
    func concurrentReadMisuse() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let outside = dbPool.concurrentRead { _ in 1 }
        let error = try #require(throws: DatabaseError.self) { try outside.wait() }
        #expect(error.resultCode == .SQLITE_MISUSE)
        #expect(error.message?.contains("writer access") == true)
        try dbPool.write { _ in
            let inside = dbPool.concurrentRead { _ in 1 }
            let error = try #require(throws: DatabaseError.self) { try inside.wait() }
            #expect(error.message?.contains("transaction") == true)
        }
        // The pool is still usable afterwards.
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test("unsafeReentrantRead inside a read and inside a write uses that connection")
    func reentrantRead() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        try dbPool.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            // Inside the write: sees the uncommitted row.
            #expect(try dbPool.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
        try dbPool.read { (_: Database) throws in
            #expect(try dbPool.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
        #expect(try dbPool.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test("async read and write, asyncRead and asyncWrite")
    func asyncAccess() async throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        try await dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)

        let count: Int = try await withCheckedThrowingContinuation { continuation in
            dbPool.asyncRead { result in
                continuation.resume(with: Result { try Int.fetchOne(result.get(), sql: "SELECT COUNT(*) FROM t")! })
            }
        }
        #expect(count == 1)

        let inserted: Int64 = try await withCheckedThrowingContinuation { continuation in
            dbPool.asyncWrite(
                { db in
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                    return db.lastInsertedRowID
                }, completion: { _, result in continuation.resume(with: result) })
        }
        #expect(inserted == 2)
    }

    @Test("the writer never fails with SQLITE_BUSY because of the pool's own readers")
    func noBusyFromOwnReaders() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.busyMode = .immediateError
        config.maximumReaderCount = 4
        let dbPool = try makePool(directory, configuration: config)
        let stop = Locked(false)
        let readErrors = Locked<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                while !stop.current {
                    do {
                        _ = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") }
                        dbPool.releaseMemory()
                    } catch {
                        readErrors.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        var writeErrors: [String] = []
        for i in 0..<1500 {
            do {
                try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
                if i % 100 == 0 { _ = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) } }
            } catch {
                writeErrors.append("\(error)")
            }
        }
        stop.withLock { $0 = true }
        group.wait()
        #expect(writeErrors == [])
        #expect(readErrors.current == [])
    }

    @Test("close() closes the writer and every reader; afterwards every access throws")
    func close() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        _ = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        try dbPool.close()
        try dbPool.close()
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.read { _ in } }
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.unsafeRead { _ in } }
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.write { _ in } }
        // As in GRDB, the accesses without a transaction rethrow: the
        // statements run inside them throw.
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.writeWithoutTransaction { try $0.execute(sql: "SELECT 1") } }
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.barrierWriteWithoutTransaction { try $0.execute(sql: "SELECT 1") } }
        // Every connection is closed: the WAL is checkpointed and removed.
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-wal")))
    }

    @Test("close() throws while a statement created by the application is alive")
    func closeWithStatement() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        var statement: Statement? = try dbPool.writeWithoutTransaction { db in try db.makeStatement(sql: "SELECT 1") }
        expectDatabaseError(.SQLITE_BUSY) { try dbPool.close() }
        statement = nil
        _ = statement
        try dbPool.close()
    }

    @Test("releaseMemory keeps the pool usable")
    func releaseMemory() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        dbPool.releaseMemory()
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account") } == 10)
    }
}
