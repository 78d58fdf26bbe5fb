import BenchSQLite
import Foundation

/// The baseline: the C API as a careful programmer uses it (NOMUTEX
/// connections, statements prepared once, names resolved once, every result
/// code checked).
enum RawWorkloads {
    static let createItem =
        "CREATE TABLE item (i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)"

    static func insert(named: Bool, _ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("raw-insert")
        defer { Fixtures.removeDatabase(path) }
        let db = try RawConnection(path: path)
        try db.execute(createItem)
        let sql =
            named
            ? "INSERT INTO item VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)"
            : "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let (_, seconds) = try measuredRegion {
            try db.execute("BEGIN")
            let insert = try db.prepare(sql)
            var indexes: [CInt] = Array(1...10)
            if named {
                indexes = (0..<10).map { sqlite3_bind_parameter_index(insert.handle, ":i\($0)") }
            }
            for row in 0..<Fixtures.insertRowCount {
                for column in 0..<10 {
                    try insert.bind(Int64(row * 10 + column), at: indexes[column])
                }
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        return Outcome(seconds: seconds, checksum: try sumOfItems(db))
    }

    static func sumOfItems(_ db: RawConnection) throws -> Int64 {
        let statement = try db.prepare("SELECT SUM(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9) FROM item")
        _ = try statement.step()
        return sqlite3_column_int64(statement.handle, 0)
    }

    static func fetch(byName: Bool, _ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.fetchPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            let statement = try db.prepare("SELECT * FROM item")
            var indexes: [CInt] = Array(0..<10)
            if byName {
                indexes = (0..<10).map { statement.columnIndex("i\($0)") }
            }
            var sum: Int64 = 0
            while try statement.step() {
                for column in 0..<10 {
                    sum &+= sqlite3_column_int64(statement.handle, indexes[column])
                }
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func fetchStructs(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.fetchPath)
        let (items, seconds) = try measuredRegion { () throws -> [Item] in
            let statement = try db.prepare("SELECT * FROM item")
            let i = (0..<10).map { statement.columnIndex("i\($0)") }
            let s = statement.handle
            var items: [Item] = []
            while try statement.step() {
                items.append(
                    Item(
                        i0: Int(sqlite3_column_int64(s, i[0])), i1: Int(sqlite3_column_int64(s, i[1])),
                        i2: Int(sqlite3_column_int64(s, i[2])), i3: Int(sqlite3_column_int64(s, i[3])),
                        i4: Int(sqlite3_column_int64(s, i[4])), i5: Int(sqlite3_column_int64(s, i[5])),
                        i6: Int(sqlite3_column_int64(s, i[6])), i7: Int(sqlite3_column_int64(s, i[7])),
                        i8: Int(sqlite3_column_int64(s, i[8])), i9: Int(sqlite3_column_int64(s, i[9]))))
            }
            return items
        }
        return Outcome(seconds: seconds, checksum: Item.checksum(items))
    }

    static func smallTransactions(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("raw-transactions")
        defer { Fixtures.removeDatabase(path) }
        let db = try RawConnection(path: path)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
        let (_, seconds) = try measuredRegion {
            let begin = try db.prepare("BEGIN")
            let commit = try db.prepare("COMMIT")
            let insert = try db.prepare("INSERT INTO t (v) VALUES (?)")
            for i in 0..<Fixtures.transactionCount {
                try begin.run()
                try insert.bind(Int64(i), at: 1)
                try insert.run()
                try commit.run()
            }
        }
        let sum = try db.prepare("SELECT SUM(v) FROM t")
        _ = try sum.step()
        return Outcome(seconds: seconds, checksum: sqlite3_column_int64(sum.handle, 0))
    }

    static func pointQueries(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.pointPath)
        let ids = Fixtures.pointIds
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            let query = try db.prepare("SELECT v FROM point WHERE id = ?")
            var sum: Int64 = 0
            for id in ids {
                try query.bind(Int64(id), at: 1)
                guard try query.step() else { throw BenchmarkError(description: "no row") }
                sum &+= sqlite3_column_int64(query.handle, 0)
                try query.reset()
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// Two reader threads, each with its own connection, while a writer commits.
    static func poolReads(_ fixtures: Fixtures) throws -> Outcome {
        try concurrentReads(fixtures) { _ in
            let db = try RawConnection(path: fixtures.pointPath)
            try db.check(sqlite3_busy_timeout(db.handle, 5000))
            let query = try db.prepare("SELECT v FROM point WHERE id = ?")
            return { id in
                try query.bind(Int64(id), at: 1)
                guard try query.step() else { throw BenchmarkError(description: "no row") }
                let value = sqlite3_column_int64(query.handle, 0)
                try query.reset()
                return value
            }
        } write: {
            let db = try RawConnection(path: fixtures.pointPath)
            try db.check(sqlite3_busy_timeout(db.handle, 5000))
            // As DatabasePool's and GRDB's writers: no fsync per commit in WAL.
            try db.execute("PRAGMA synchronous = NORMAL")
            let insert = try db.prepare("INSERT INTO w (v) VALUES (1)")
            return { try insert.run() }
        }
    }

    static func cursorMemory(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.bigPath)
        var growth = 0.0
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            let statement = try db.prepare("SELECT v, s FROM big")
            let start = currentRSSMiB()
            var sum: Int64 = 0
            var count = 0
            while try statement.step() {
                sum &+= sqlite3_column_int64(statement.handle, 0)
                _ = sqlite3_column_text(statement.handle, 1)
                count += 1
                if count % 50_000 == 0 { growth = max(growth, currentRSSMiB() - start) }
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum, rssGrowthMiB: growth)
    }
}

/// The struct fetched by the struct workloads.
struct Item: Sendable {
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int

    static func checksum(_ items: [Item]) -> Int64 {
        items.reduce(0) { sum, item in
            sum &+ Int64(item.i0 + item.i1 + item.i2 + item.i3 + item.i4 + item.i5 + item.i6 + item.i7 + item.i8 + item.i9)
        }
    }
}

/// Runs `Fixtures.poolReaderCount` reader threads of `Fixtures.pointQueryCount`
/// point queries each, while a writer thread commits small transactions until
/// they are done. The time is the wall time of the readers.
///
/// The connections of an implementation are released before this returns, on
/// this thread: the last connection to close checkpoints the WAL under an
/// exclusive lock, which must not overlap the next implementation's run.
func concurrentReads(
    _ fixtures: Fixtures,
    makeReader: @escaping @Sendable (Int) throws -> (Int) throws -> Int64,
    write makeWriter: @escaping @Sendable () throws -> () throws -> Void
) throws -> Outcome {
    let ids = Fixtures.pointIds
    let readers = Mutex<[((Int) throws -> Int64)?]>(try (0..<Fixtures.poolReaderCount).map { try makeReader($0) })
    let writer = Mutex<(() throws -> Void)?>(try makeWriter())
    let sums = Mutex<[Int64]>([])
    let failures = Mutex<[String]>([])
    let stopWriting = Mutex(false)
    let writerDone = DispatchSemaphore(value: 0)
    Thread {
        let write = writer.withLock { $0 }!
        while !stopWriting.withLock({ $0 }) {
            do { try write() } catch { failures.withLock { $0.append("writer: \(error)") } }
        }
        writerDone.signal()
    }.start()
    let (_, seconds) = measuredRegion {
        let group = DispatchGroup()
        for index in 0..<Fixtures.poolReaderCount {
            group.enter()
            Thread {
                let read = readers.withLock { $0[index] }!
                var sum: Int64 = 0
                do {
                    for id in ids { sum &+= try read(id) }
                } catch {
                    failures.withLock { $0.append("reader: \(error)") }
                }
                sums.withLock { $0.append(sum) }
                group.leave()
            }.start()
        }
        group.wait()
    }
    stopWriting.withLock { $0 = true }
    writerDone.wait()
    // Give the reader threads time to drop their references, then release the
    // connections here.
    Thread.sleep(forTimeInterval: 0.01)
    readers.withLock { $0 = [] }
    writer.withLock { $0 = nil }
    if let failure = failures.withLock({ $0.first }) { throw BenchmarkError(description: failure) }
    return Outcome(seconds: seconds, checksum: sums.withLock { $0.reduce(0, &+) })
}

/// A value handed to one other thread, which is then its only user.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A value behind a lock.
final class Mutex<Value>: @unchecked Sendable {
    // Safe: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
