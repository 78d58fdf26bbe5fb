import DatabaseKit
import Foundation
import Testing
import TestSupport

/// GRDB's behaviour at the edges: barrier writes from Swift concurrency,
/// cursors after a failed step, fractional seconds, interrupts, pool read
/// isolation, closing a pool with a live statement, uncached requests,
/// argument counts, and the small API the SQL layer has.
@Suite("GRDB behaviours at the edges")
struct GRDBEdgeBehaviorTests {
    enum Probe {
        @TaskLocal static var value = "none"
    }

    private func writer(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2), (3)") }
        return writer
    }

    // MARK: Barrier writes from Swift concurrency

    @Test("async barrierWriteWithoutTransaction runs, sees task-locals, and returns", arguments: WriterKind.allCases)
    func asyncBarrier(_ kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try writer(kind, directory)
        let count = try await writer.barrierWriteWithoutTransaction { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1 }
        #expect(count == 3)
        let seen = try await Probe.$value.withValue("local") {
            try await writer.barrierWriteWithoutTransaction { _ in Probe.value }
        }
        #expect(seen == "local")
        // Many at once, with reads in between (a pool's barrier waits for them).
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1 }
                    }
                    return try await writer.barrierWriteWithoutTransaction { db in
                        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [index])
                        return 0
                    }
                }
            }
            for try await _ in group {}
        }
        let count13 = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
        #expect(count13 == 13)
    }

    @Test("a barrier write whose task is cancelled while a cursor iterates is interrupted; one that no longer reads succeeds", arguments: WriterKind.allCases)
    func asyncBarrierCancellation(_ kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try writer(kind, directory)
        let started = Locked(false)
        let task = Task {
            try await writer.barrierWriteWithoutTransaction { db in
                let cursor = try Int.fetchCursor(db, sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c")
                started.withLock { $0 = true }
                while try cursor.next() != nil {}
            }
        }
        while !started.current { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let error = await #expect(throws: (any Error).self) { try await task.value }
        #expect(error is CancellationError || (error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT, "\(String(describing: error))")

        let quiet = Task {
            try await writer.barrierWriteWithoutTransaction { _ -> Int in
                withUnsafeCurrentTask { $0?.cancel() }
                return 42
            }
        }
        let answer = try await quiet.value
        #expect(answer == 42)
        let count = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
        #expect(count == 3)
    }

    // MARK: Cursors after a failed step

    private func failingConnection() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            db.add(function: DatabaseFunction("fail", argumentCount: 1, pure: true) { _ in throw DatabaseError(message: "boom") })
            try db.execute(sql: "CREATE TABLE r(a INTEGER); INSERT INTO r VALUES (1), (2)")
        }
        return dbQueue
    }

    /// Checks that every `next()` after the first failure fails again, with GRDB's message.
    private func expectStaysFailed<C: Cursor>(_ cursor: C, _ what: String) {
        var errors: [DatabaseError] = []
        for _ in 0..<3 {
            do {
                let element = try cursor.next()
                Issue.record("\(what): next() returned \(String(describing: element)) after a failure")
                return
            } catch let error as DatabaseError {
                errors.append(error)
            } catch {
                Issue.record("\(what): \(error)")
                return
            }
        }
        #expect(errors.allSatisfy { $0.message == "boom" }, "\(what): \(errors.map(\.description))")
        #expect(errors.allSatisfy { $0.sql == "SELECT fail(a) AS x FROM r" }, "\(what)")
    }

    struct Record: FetchableRecord, Decodable {
        var x: Int
    }

    @Test("a cursor whose step failed fails again at every next(), for rows, values and records, with adapters, from SQL, statements and requests")
    func failedCursors() throws {
        let dbQueue = try failingConnection()
        let sql = "SELECT fail(a) AS x FROM r"
        try dbQueue.read { db in
            expectStaysFailed(try Row.fetchCursor(db, sql: sql), "Row")
            expectStaysFailed(try Row.fetchCursor(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 0)), "Row, adapter")
            expectStaysFailed(try Int.fetchCursor(db, sql: sql), "Int")
            expectStaysFailed(try Int?.fetchCursor(db, sql: sql), "Int?")
            expectStaysFailed(try String.fetchCursor(db, sql: sql), "String")
            expectStaysFailed(try DatabaseValue.fetchCursor(db, sql: sql), "DatabaseValue")
            expectStaysFailed(try Record.fetchCursor(db, sql: sql), "record")
            expectStaysFailed(try Record.fetchCursor(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 0)), "record, adapter")
            let statement = try db.makeStatement(sql: sql)
            expectStaysFailed(try Row.fetchCursor(statement), "Row, statement")
            expectStaysFailed(try Int.fetchCursor(statement), "Int, statement")
            expectStaysFailed(try Record.fetchCursor(statement), "record, statement")
            let request = SQLRequest<Int>(sql: sql)
            expectStaysFailed(try request.fetchCursor(db), "SQLRequest")
            let rowRequest = SQLRequest<Row>(sql: sql, adapter: SuffixRowAdapter(fromIndex: 0))
            expectStaysFailed(try rowRequest.fetchCursor(db), "SQLRequest, adapter")
        }
    }

    // MARK: Dates

    @Test("dates with more than three fractional digits keep their milliseconds, as a calendar builds them, with a space, a T, a Z and an offset")
    func fractionalDates() throws {
        let dbQueue = DatabaseQueue()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        // GRDB reads the first three digits of the fraction (more are
        // ignored), and builds the date with a calendar.
        let cases: [(text: String, hour: Int, minute: Int, day: Int, nanosecond: Int)] = [
            ("2015-07-22 01:02:03.00456", 1, 2, 22, 4_000_000),
            ("2015-07-22T01:02:03.00456", 1, 2, 22, 4_000_000),
            ("2015-07-22T01:02:03.00456Z", 1, 2, 22, 4_000_000),
            ("2015-07-22 01:02:03.00456+01:15", 23, 47, 21, 4_000_000),
            ("2015-07-22 01:02:03.123456789", 1, 2, 22, 123_000_000),
            ("2015-07-22 01:02:03.1", 1, 2, 22, 100_000_000),
            ("2015-07-22 01:02:03.999", 1, 2, 22, 999_000_000),
        ]
        try dbQueue.read { db in
            for test in cases {
                // GRDB's construction: a UTC calendar from the components.
                let expected = try #require(calendar.date(from: DateComponents(
                    year: 2015, month: 7, day: test.day, hour: test.hour, minute: test.minute, second: 3,
                    nanosecond: test.nanosecond)))
                let date = try #require(try Date.fetchOne(db, sql: "SELECT ?", arguments: [test.text]), "\(test.text)")
                let fromValue = try #require(Date.fromDatabaseValue(test.text.databaseValue))
                let nsDate = try #require(try NSDate.fetchOne(db, sql: "SELECT ?", arguments: [test.text]), "\(test.text)")
                for (label, decoded) in [("Date", date), ("fromDatabaseValue", fromValue), ("NSDate", nsDate as Date)] {
                    #expect(decoded == expected, "\(label) of \(test.text): \(decoded.timeIntervalSinceReferenceDate)")
                    let nanosecond = calendar.component(.nanosecond, from: decoded)
                    #expect(abs(nanosecond - test.nanosecond) < 1000, "\(label) of \(test.text): \(nanosecond) ns")
                }
            }
        }
    }

    // MARK: Interrupts

    @Test("an interrupt does not outlive the statement it interrupted: the next read succeeds", arguments: WriterKind.allCases)
    func interruptThenRead(_ kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try writer(kind, directory)
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.wait()
            Thread.sleep(forTimeInterval: 0.2)
            writer.interrupt()
        }
        #expect(throws: DatabaseError.self) {
            try writer.read { db in
                started.signal()
                _ = try Int.fetchOne(db, sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT COUNT(*) FROM c")
            }
        }
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 3)
        #expect(try writer.write { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 3)
    }

    @Test("interrupt() from inside a read aborts its transaction; the next read on that connection succeeds")
    func interruptTransaction() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        for _ in 0..<3 {
            #expect(throws: DatabaseError.self) {
                try pool.read { db in
                    _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
                    pool.interrupt()
                    _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
                }
            }
            #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
    }

    @Test("a read interrupted while a statement runs keeps its transaction state, and reads again in the same block",
          arguments: ["memory", "queue", "pool", "snapshot"])
    func interruptedReadReadsAgain(_ kind: String) throws {
        let directory = TemporaryDirectory()
        let reader: any DatabaseReader
        switch kind {
        case "memory": reader = DatabaseQueue()
        case "queue": reader = try DatabaseQueue(path: directory.file("db.sqlite"))
        case "pool": reader = try DatabasePool(path: directory.file("db.sqlite"))
        default: reader = try DatabasePool(path: directory.file("db.sqlite")).makeSnapshot()
        }
        let running = DispatchSemaphore(value: 0)
        let interrupted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            running.wait()
            reader.interrupt()
            interrupted.signal()
        }
        try reader.read { (db: Database) throws in
            db.add(function: DatabaseFunction("pause", argumentCount: 0, pure: false) { _ in
                running.signal()
                interrupted.wait()
                return nil
            })
            let wasInTransaction = db.isInsideTransaction
            let error = #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "SELECT pause()") }
            #expect(error?.resultCode == .SQLITE_INTERRUPT)
            #expect(db.isInsideTransaction == wasInTransaction)
            #expect(try Bool.fetchOne(db, sql: "SELECT 1") == true)
        }
        #expect(try reader.read { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2)
    }

    @Test("an interrupt while an FTS5 transaction rolls back or commits does not stick to the connection")
    func interruptedFTS5Transaction() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE documents USING fts5(content)")
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO documents(content) VALUES ('draft')")
                dbQueue.interrupt()
                return .rollback
            }
        }
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") } == 0)
        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO documents(content) VALUES ('draft')")
                dbQueue.interrupt()
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            // SQLite's FTS5 turns the interrupt into a failed commit.
        }
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") } == 0)
        #expect(try dbQueue.write { db in try db.execute(sql: "INSERT INTO documents(content) VALUES ('kept')"); return 1 } == 1)
    }

    // MARK: Pool read isolation

    @Test("a pool read that starts with a read sees one snapshot, whatever commits between its statements")
    func poolReadIsolation() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let counts = try pool.read { db -> [Int] in
            let first = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1
            // A commit from another connection, between two statements of the read.
            let other = try DatabaseQueue(path: directory.file("db.sqlite"))
            try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            try other.close()
            let second = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") ?? -1
            return [first, second]
        }
        #expect(counts == [1, 1])
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    // MARK: Closing a pool

    @Test("closing a pool while a reader holds a statement: SQLITE_BUSY naming it, then every access is SQLITE_MISUSE")
    func closeWithLiveReaderStatement() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let statement = try pool.read { db in try db.makeStatement(sql: "SELECT a FROM t") }
        try withExtendedLifetime(statement) {
            let error = #expect(throws: DatabaseError.self) { try pool.close() }
            #expect(error?.resultCode == .SQLITE_BUSY, "\(String(describing: error))")
            #expect(error?.message?.contains("SELECT a FROM t") == true, "\(String(describing: error?.message))")
            let read = #expect(throws: DatabaseError.self) { try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
            #expect(read?.resultCode == .SQLITE_MISUSE)
            let write = #expect(throws: DatabaseError.self) { try pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } }
            #expect(write?.resultCode == .SQLITE_MISUSE)
            // Closing again does nothing.
            try pool.close()
        }
        // The statement released, the reader's connection ends: nothing was
        // written, and the file opens again.
        let queue = try DatabaseQueue(path: directory.file("db.sqlite"))
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test("closing a pool while the writer holds a statement: SQLITE_BUSY, nothing closed, reads and writes go on")
    func closeWithLiveWriterStatement() throws {
        let directory = TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }  // opens a reader
        do {
            let statement = try pool.write { db in try db.makeStatement(sql: "SELECT a FROM t") }
            try withExtendedLifetime(statement) {
                let error = #expect(throws: DatabaseError.self) { try pool.close() }
                #expect(error?.resultCode == .SQLITE_BUSY, "\(String(describing: error))")
                try pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
                #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 2)
            }
        }
        try pool.close()
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-wal")), "the writer closed last")
    }

    // MARK: Requests and arguments

    @Test("SQLRequest(sql:cached:) takes its statement from the cache only when cached")
    func requestCaching() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            let sql = "SELECT a FROM t"
            let cached = try SQLRequest<Int>(sql: sql, cached: true).makePreparedRequest(db).statement
            let cachedAgain = try SQLRequest<Int>(sql: sql, cached: true).makePreparedRequest(db).statement
            let uncached = try SQLRequest<Int>(sql: sql, cached: false).makePreparedRequest(db).statement
            let uncachedAgain = try SQLRequest<Int>(sql: sql).makePreparedRequest(db).statement
            #expect(cached === cachedAgain)
            #expect(cached !== uncached)
            #expect(uncached !== uncachedAgain)
            #expect(try db.cachedStatement(sql: sql) === cached)
        }
    }

    @Test("a multi-statement execute with too few arguments says which statement ran out, as GRDB does")
    func tooFewArguments() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?, ?)", arguments: [1, 2])
            }
            #expect(error?.resultCode == .SQLITE_MISUSE)
            #expect(error?.message == "wrong number of statement arguments: 0", "\(String(describing: error?.message))")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 1)
        }
    }

    // MARK: Missing API

    @Test("CGFloat, databaseQuestionMarks(count:), splittingRowAdapters(columnCounts:)")
    func smallAPI() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { db in
            #expect(try CGFloat.fetchOne(db, sql: "SELECT 1.5") == 1.5)
            #expect(try Double.fetchOne(db, sql: "SELECT ?", arguments: [CGFloat(2.5)]) == 2.5)
            let values: [CGFloat] = [1, 2.5]
            #expect(try Double.fetchAll(db, sql: "SELECT ? UNION ALL SELECT ?", arguments: StatementArguments(values)) == [1, 2.5])
            #expect(databaseQuestionMarks(count: 3) == "?,?,?")
            #expect(databaseQuestionMarks(count: 0) == "")
            let adapters = splittingRowAdapters(columnCounts: [2, 1, 3])
            #expect(adapters.count == 4)
            let adapter = ScopeAdapter(["a": adapters[0], "b": adapters[1], "c": adapters[2], "d": adapters[3]])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 1, 2, 3, 4, 5, 6, 7", adapter: adapter))
            #expect(Array(try #require(row.scopes["a"]).databaseValues) == [1, 2].map(\.databaseValue))
            #expect(Array(try #require(row.scopes["b"]).databaseValues) == [3.databaseValue])
            #expect(Array(try #require(row.scopes["c"]).databaseValues) == [4, 5, 6].map(\.databaseValue))
            #expect(Array(try #require(row.scopes["d"]).databaseValues) == [7.databaseValue])
        }
    }
}

