import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Backup")
struct BackupTests {
    struct Cancelled: Error {}

    private func fill(_ writer: some DatabaseWriter, rows: Int = 2000) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?)")
            for i in 0..<rows {
                try insert.execute(arguments: [i, String(repeating: "x", count: 200)])
            }
        }
    }

    private func count(_ reader: some DatabaseReader) throws -> Int? {
        try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
    }

    @Test(
        "backs up between every pair of queue, pool, in-memory and file databases",
        arguments: [
            ("queue", "queue"), ("queue", "pool"), ("pool", "queue"), ("pool", "pool"),
            ("memory", "queue"), ("queue", "memory"), ("memory", "pool"), ("pool", "memory"),
        ])
    func pairs(source: String, destination: String) throws {
        let directory = TemporaryDirectory()
        func make(_ kind: String, _ name: String) throws -> any DatabaseWriter {
            switch kind {
            case "queue": return try DatabaseQueue(path: directory.file(name))
            case "pool": return try DatabasePool(path: directory.file(name))
            default: return DatabaseQueue()
            }
        }
        let sourceDb = try make(source, "source.sqlite")
        let destinationDb = try make(destination, "destination.sqlite")
        try fill(sourceDb)
        try destinationDb.write { db in try db.execute(sql: "CREATE TABLE old(x)") }
        try sourceDb.backup(to: destinationDb)
        #expect(try count(destinationDb) == 2000)
        let oldExists = try destinationDb.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'old'")
        }
        #expect(oldExists == 0)
        #expect(try destinationDb.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test("progress is reported step by step, ending completed")
    func progress() throws {
        let directory = TemporaryDirectory()
        let source = try directory.makeQueue("source.sqlite")
        let destination = try directory.makeQueue("destination.sqlite")
        try fill(source)
        var reports: [DatabaseBackupProgress] = []
        try source.backup(to: destination, pagesPerStep: 10) { reports.append($0) }
        #expect(reports.count > 2)
        #expect(reports.last?.isCompleted == true)
        #expect(reports.last?.remainingPageCount == 0)
        #expect(reports.dropLast().allSatisfy { !$0.isCompleted })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedPageCount <= $1.completedPageCount })
        #expect(reports.last?.completedPageCount == reports.last?.totalPageCount)
        #expect(try count(destination) == 2000)
    }

    @Test("throwing from progress cancels, and leaves the destination as it was")
    func cancellation() throws {
        let directory = TemporaryDirectory()
        let source = try directory.makeQueue("source.sqlite")
        let destination = try directory.makeQueue("destination.sqlite")
        try fill(source)
        try destination.write { db in try db.execute(sql: "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 2)") }
        var steps = 0
        #expect(throws: Cancelled.self) {
            try source.backup(to: destination, pagesPerStep: 5) { _ in
                steps += 1
                if steps == 3 { throw Cancelled() }
            }
        }
        #expect(try count(destination) == 1)
        #expect(try destination.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        // The source is untouched, and can be backed up again.
        try source.backup(to: destination)
        #expect(try count(destination) == 2000)
    }

    @Test("a busy destination: the backup retries, and fails cleanly past the timeout")
    func busyDestination() throws {
        let directory = TemporaryDirectory()
        let source = try directory.makeQueue("source.sqlite")
        try fill(source, rows: 10)
        var lockerConfig = Configuration()
        lockerConfig.allowsUnsafeTransactions = true
        let locker = try directory.makeQueue("destination.sqlite", configuration: lockerConfig)
        try locker.write { db in try db.execute(sql: "CREATE TABLE keep(x); INSERT INTO keep VALUES (1)") }
        try locker.inDatabase { db in
            try db.beginTransaction(.exclusive)
            try db.execute(sql: "INSERT INTO keep VALUES (2)")
        }

        // Past the timeout: SQLITE_BUSY, and the destination is as it was.
        var shortConfig = Configuration()
        shortConfig.busyMode = .timeout(0.3)
        let destination = try directory.makeQueue("destination.sqlite", configuration: shortConfig)
        expectDatabaseError(.SQLITE_BUSY) { try source.backup(to: destination) }
        try locker.inDatabase { db in try db.rollback() }
        #expect(try destination.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keep") } == 1)

        // Released within the timeout: the retried backup succeeds.
        try locker.inDatabase { db in try db.beginTransaction(.exclusive) }
        var longConfig = Configuration()
        longConfig.busyMode = .timeout(10)
        let patient = try directory.makeQueue("destination.sqlite", configuration: longConfig)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            recordingErrors { try locker.inDatabase { db in try db.rollback() } }
        }
        try source.backup(to: patient)
        #expect(try count(patient) == 10)
    }

    @Test("a backup taken while another connection writes holds one committed state")
    func consistentUnderWrites() throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INT NOT NULL)")
            for id in 1...50 { try db.execute(sql: "INSERT INTO account VALUES (?, 1000)", arguments: [id]) }
            try db.execute(sql: "CREATE TABLE filler(x)")
            for _ in 0..<500 { try db.execute(sql: "INSERT INTO filler VALUES (randomblob(500))") }
        }
        let stop = Locked(false)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            var i = 0
            while !stop.current {
                recordingErrors { try dbPool.write { db in
                    try db.execute(sql: "UPDATE account SET balance = balance - 3 WHERE id = ?", arguments: [i % 50 + 1])
                    try db.execute(sql: "UPDATE account SET balance = balance + 3 WHERE id = ?", arguments: [(i + 7) % 50 + 1])
                } }
                i += 1
            }
        }
        for step in [-1, 7] {
            let copy = DatabaseQueue()
            try dbPool.backup(to: copy, pagesPerStep: CInt(step))
            #expect(try copy.read { db in try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") } == 50_000)
            #expect(try copy.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        }
        stop.withLock { $0 = true }
        group.wait()
    }
}
