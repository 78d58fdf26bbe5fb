import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The DatabaseReader and DatabaseWriter protocols and the members GRDB
/// gives every reader and writer, on queues and pools.
@Suite("Readers and writers: protocols, erase, vacuum, copies, interrupt, async accesses")
struct ReaderWriterTests {
    private func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory, configuration: Configuration = Configuration())
        throws -> any DatabaseWriter
    {
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2)")
        }
        return writer
    }

    /// Code written against the protocols, as applications do.
    private func count(_ reader: some DatabaseReader) throws -> Int {
        try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1 }
    }

    @Test("AnyDatabaseReader and AnyDatabaseWriter forward to their base", arguments: WriterKind.allCases)
    func typeErasure(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = AnyDatabaseWriter(try makeWriter(kind, directory))
        try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try count(writer) == 3)
        let reader = AnyDatabaseReader(writer)
        #expect(try count(reader) == 3)
        #expect(try await reader.read { db in try Int.fetchOne(db, sql: "SELECT MAX(a) FROM t") } == 3)
        #expect(reader.path == directory.file("db.sqlite"))
        try await writer.write { db in try db.execute(sql: "DELETE FROM t WHERE a = 3") }
        #expect(try count(writer) == 2)
    }

    @Test("erase() leaves an empty database; vacuum and vacuum(into:) keep the content", arguments: WriterKind.allCases)
    func eraseAndVacuum(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try writer.vacuum()
        try writer.vacuum(into: directory.file("copy.sqlite"))
        let copy = try DatabaseQueue(path: directory.file("copy.sqlite"))
        #expect(try count(copy) == 2)
        expectDatabaseError(.SQLITE_ERROR) { try writer.vacuum(into: directory.file("copy.sqlite")) }
        try writer.erase()
        #expect(try writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") } == [])
        try writer.write { db in try db.execute(sql: "CREATE TABLE t (a INT)") }
        #expect(try count(writer) == 0)
    }

    @Test("the async erase and vacuum", arguments: WriterKind.allCases)
    func asyncEraseAndVacuum(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try await writer.vacuum()
        try await writer.vacuum(into: directory.file("copy.sqlite"))
        try await writer.erase()
        #expect(try await writer.read { db in try db.tableExists("t") } == false)
        #expect(try count(DatabaseQueue(path: directory.file("copy.sqlite"))) == 2)
    }

    @Test("inMemoryCopy and temporaryCopy copy a file without changing it")
    func copies() throws {
        let directory = TemporaryDirectory()
        let source = try makeWriter(.queue, directory)
        try (source as? DatabaseQueue)?.close()
        let memory = try DatabaseQueue.inMemoryCopy(fromPath: directory.file("db.sqlite"))
        #expect(try count(memory) == 2)
        try memory.write { db in try db.execute(sql: "DELETE FROM t") }
        let temporary = try DatabaseQueue.temporaryCopy(fromPath: directory.file("db.sqlite"))
        #expect(try count(temporary) == 2)
        #expect(temporary.path != directory.file("db.sqlite"))
        try temporary.write { db in try db.execute(sql: "DELETE FROM t") }
        #expect(try count(DatabaseQueue(path: directory.file("db.sqlite"))) == 2)
        #expect(throws: DatabaseError.self) { try DatabaseQueue.inMemoryCopy(fromPath: directory.file("missing.sqlite")) }
    }

    @Test("interrupt() stops a running statement with SQLITE_INTERRUPT; the connection stays usable", arguments: WriterKind.allCases)
    func interrupt(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.wait()
            Thread.sleep(forTimeInterval: 0.1)
            writer.interrupt()
        }
        let error = expectDatabaseError(.SQLITE_INTERRUPT) {
            try writer.write { db in
                started.signal()
                try db.execute(sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT COUNT(*) FROM c")
            }
        }
        #expect(error?.isInterruptionError == true)
        #expect(try count(writer) == 2)
    }

    @Test("async accesses see the task-locals of their task", arguments: WriterKind.allCases)
    func taskLocals(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let seen = try await Probe.$value.withValue("local") {
            let read = try await writer.read { _ in Probe.value }
            let written = try await writer.write { _ in Probe.value }
            return [read, written]
        }
        #expect(seen == ["local", "local"])
    }

    enum Probe {
        @TaskLocal static var value = "none"
    }

    @Test("an async access of a cancelled task throws CancellationError and changes nothing", arguments: WriterKind.allCases)
    func cancellation(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (9)") }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try count(writer) == 2)
    }

    @Test("cancelling a task during a long statement interrupts it: CancellationError, the write rolled back", arguments: WriterKind.allCases)
    func cancellationDuringStatement(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let task = Task {
            try await writer.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (9)")
                try db.execute(sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT COUNT(*) FROM c")
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try count(writer) == 2)
    }

    @Test("asyncWriteWithoutTransaction, asyncRead, spawnConcurrentRead and unsafeReentrantWrite", arguments: WriterKind.allCases)
    func asyncMembers(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        await withCheckedContinuation { continuation in
            writer.asyncWriteWithoutTransaction { db in
                try? db.execute(sql: "INSERT INTO t VALUES (3)")
                continuation.resume()
            }
        }
        let read: Int = try await withCheckedThrowingContinuation { continuation in
            writer.asyncRead { dbResult in
                continuation.resume(with: dbResult.flatMap { db in Result { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1 } })
            }
        }
        #expect(read == 3)
        #expect(spawnedCount(writer) == 3)
        // Outside of a write access, the misuse is reported to the closure.
        let misuse: (any Error)? = await withCheckedContinuation { continuation in
            writer.spawnConcurrentRead { dbResult in
                if case .failure(let error) = dbResult { continuation.resume(returning: error) } else { continuation.resume(returning: nil) }
            }
        }
        #expect((misuse as? DatabaseError)?.resultCode == .SQLITE_MISUSE)
        try writer.unsafeReentrantWrite { db in
            try writer.unsafeReentrantWrite { db in try db.execute(sql: "INSERT INTO t VALUES (4)") }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 4)
        }
    }

    /// The count of `t` read by a concurrent read spawned from a write access.
    private func spawnedCount(_ writer: some DatabaseWriter) -> Int? {
        let spawned = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        writer.writeWithoutTransaction { _ in
            writer.spawnConcurrentRead { dbResult in
                spawned.withLock { $0 = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM t") }
                done.signal()
            }
        }
        done.wait()
        return spawned.current
    }

    @Test("a pool's concurrent read sees the database as it was when the write access let it start")
    func asyncConcurrentRead() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (a INT); INSERT INTO t VALUES (1)") }
        let future = try pool.writeWithoutTransaction { db -> DatabaseFuture<Int> in
            let future = pool.concurrentRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1 }
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return future
        }
        #expect(try future.wait() == 1)
        let value = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        try pool.writeWithoutTransaction { db in
            pool.asyncConcurrentRead { dbResult in
                value.withLock { $0 = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM t") }
                done.signal()
            }
            try db.execute(sql: "INSERT INTO t VALUES (3)")
        }
        done.wait()
        #expect(value.current == 2)
    }

    @Test("a pool in WAL mode as GRDB sets it up: synchronous NORMAL, a non-empty -wal, WAL persisted")
    func walSetUp() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        #expect(try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 1)
        #expect(try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.file("db.sqlite-wal"))[.size] as? Int
        #expect((walSize ?? 0) > 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("db.sqlite-shm")))
        try pool.close()
        // Closing checkpoints and removes the -wal; the mode stays.
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-wal")))
        let queue = try DatabaseQueue(path: directory.file("db.sqlite"))
        #expect(try queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("invalidateReadOnlyConnections closes idle readers: the next read opens a new one")
    func invalidateReaders() throws {
        let directory = TemporaryDirectory()
        let closed = Locked(0)
        var config = Configuration()
        config.onConnectionWillClose { _ in closed.withLock { $0 += 1 } }
        let pool = try DatabasePool(path: directory.file("db.sqlite"), configuration: config)
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        pool.invalidateReadOnlyConnections()
        #expect(closed.current == 1)
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test("close() with a statement still alive throws SQLITE_BUSY and keeps the connection open")
    func closeWithLiveStatement() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        let statement = try dbQueue.read { db in try db.makeStatement(sql: "SELECT 1") }
        expectDatabaseError(.SQLITE_BUSY) { try dbQueue.close() }
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
        withExtendedLifetime(statement) {}
    }

    @Test("backup(to:) copies into any writer; a throwing progress abandons and leaves the destination as it was")
    func backup() throws {
        let directory = TemporaryDirectory()
        let source = try makeWriter(.pool, directory)
        let destination = try DatabaseQueue(path: directory.file("copy.sqlite"))
        try destination.write { db in try db.execute(sql: "CREATE TABLE other (b)") }
        struct Stop: Error {}
        try source.write { db in
            try db.execute(sql: "CREATE TABLE big (x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT randomblob(500) FROM c")
        }
        #expect(throws: Stop.self) {
            try source.backup(to: destination, pagesPerStep: 1) { _ in throw Stop() }
        }
        #expect(try destination.read { db in try db.tableExists("other") })
        var steps = 0
        try source.backup(to: destination, pagesPerStep: 100) { progress in
            steps += 1
            #expect(progress.completedPageCount <= progress.totalPageCount)
        }
        #expect(steps > 1)
        #expect(try count(destination) == 2)
        #expect(try destination.read { db in try db.tableExists("other") } == false)
    }

    // Serialized: the notifications are process-wide, so the queue's case
    // and the pool's, run in parallel, suspended each other's writer.
    @Test(
        "observesSuspensionNotifications: writes fail with SQLITE_ABORT while suspended, WAL reads go on, resume restores",
        .serialized, arguments: WriterKind.allCases)
    func suspension(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.observesSuspensionNotifications = true
        config.journalMode = .wal
        let writer = try makeWriter(kind, directory, configuration: config)
        let otherDirectory = TemporaryDirectory()
        let ignoring = try makeWriter(kind, otherDirectory)
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
        defer { NotificationCenter.default.post(name: Database.resumeNotification, object: nil) }
        let error = expectDatabaseError(.SQLITE_ABORT) {
            try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        }
        #expect(error?.message == "Database is suspended")
        #expect(try count(writer) == 2)
        // A writer that does not observe the notifications is not suspended.
        try ignoring.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
        try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try count(writer) == 3)
    }

    @Test("labels as GRDB names them, and targetQueue runs the accesses")
    func labelsAndTargetQueue() throws {
        let directory = TemporaryDirectory()
        let target = DispatchQueue(label: "target")
        var config = Configuration()
        config.targetQueue = target
        let pool = try DatabasePool(path: directory.file("db.sqlite"), configuration: config)
        #expect(try pool.write { db in db.description } == "GRDB.DatabasePool.writer")
        #expect(try pool.read { db in db.description }.hasPrefix("GRDB.DatabasePool.reader."))
        #expect(DatabaseQueue().inDatabase { $0.description } == "GRDB.DatabaseQueue")
        try pool.write { _ in dispatchPrecondition(condition: .onQueue(target)) }
    }
}
