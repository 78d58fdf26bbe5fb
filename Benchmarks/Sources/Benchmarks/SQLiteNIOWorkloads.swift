import BenchSQLite
import Foundation
import SQLiteNIO

// vapor/sqlite-nio 1.13.2 through its public async API, as its documentation
// shows: `SQLiteConnection.open(storage:)` on NIO's singletons, then
// `query(_:_:)` (all rows) or `query(_:_:_:)` (a closure per row). Each query
// prepares its statement and runs on NIO's thread pool: SQLiteNIO has no
// statement cache, no named parameters and no row decoder (SQLiteKit adds
// one), so it runs the workloads where it has an API.
//
// SQLiteNIO compiles its own SQLite (3.53 with its own options, among them
// SQLITE_SECURE_DELETE) instead of the system library the other three share:
// its figures include that difference.

enum SQLiteNIOWorkloads {
    static func insert(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("nio-insert")
        defer { Fixtures.removeDatabase(path) }
        return try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await connection.query(RawWorkloads.createItem)
            let (_, seconds) = try await measuredAsyncRegion {
                _ = try await connection.query("BEGIN")
                for row in 0..<Fixtures.insertRowCount {
                    let base = row * 10
                    _ = try await connection.query(
                        "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (base..<base + 10).map { .integer($0) })
                }
                _ = try await connection.query("COMMIT")
            }
            let sum = try await connection.query("SELECT SUM(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9) AS s FROM item")
            try await connection.close()
            return Outcome(seconds: seconds, checksum: Int64(sum.first?.column("s")?.integer ?? 0))
        }
    }

    static func fetch(byName: Bool, _ fixtures: Fixtures) throws -> Outcome {
        try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: fixtures.fetchPath))
            let sum = Accumulator()
            let (_, seconds) = try await measuredAsyncRegion {
                if byName {
                    try await connection.query("SELECT * FROM item", []) { row in
                        var total = 0
                        for name in ["i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9"] {
                            total += row.column(name)?.integer ?? 0
                        }
                        sum.value &+= Int64(total)
                    }
                } else {
                    try await connection.query("SELECT * FROM item", []) { row in
                        let columns = row.columns
                        var total = 0
                        for index in 0..<10 { total += columns[index].data.integer ?? 0 }
                        sum.value &+= Int64(total)
                    }
                }
            }
            try await connection.close()
            return Outcome(seconds: seconds, checksum: sum.value)
        }
    }

    static func fetchStructs(_ fixtures: Fixtures) throws -> Outcome {
        try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: fixtures.fetchPath))
            let (items, seconds) = try await measuredAsyncRegion {
                try await connection.query("SELECT * FROM item").map { row in
                    Item(
                        i0: row.column("i0")?.integer ?? 0, i1: row.column("i1")?.integer ?? 0,
                        i2: row.column("i2")?.integer ?? 0, i3: row.column("i3")?.integer ?? 0,
                        i4: row.column("i4")?.integer ?? 0, i5: row.column("i5")?.integer ?? 0,
                        i6: row.column("i6")?.integer ?? 0, i7: row.column("i7")?.integer ?? 0,
                        i8: row.column("i8")?.integer ?? 0, i9: row.column("i9")?.integer ?? 0)
                }
            }
            try await connection.close()
            return Outcome(seconds: seconds, checksum: Item.checksum(items))
        }
    }

    static func smallTransactions(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("nio-transactions")
        defer { Fixtures.removeDatabase(path) }
        return try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
            _ = try await connection.query("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
            let (_, seconds) = try await measuredAsyncRegion {
                for i in 0..<Fixtures.transactionCount {
                    _ = try await connection.query("BEGIN")
                    _ = try await connection.query("INSERT INTO t (v) VALUES (?)", [.integer(i)])
                    _ = try await connection.query("COMMIT")
                }
            }
            let sum = try await connection.query("SELECT SUM(v) AS s FROM t")
            try await connection.close()
            return Outcome(seconds: seconds, checksum: Int64(sum.first?.column("s")?.integer ?? 0))
        }
    }

    static func pointQueries(_ fixtures: Fixtures) throws -> Outcome {
        try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: fixtures.pointPath))
            let ids = Fixtures.pointIds
            let (sum, seconds) = try await measuredAsyncRegion { () async throws -> Int64 in
                var sum: Int64 = 0
                for id in ids {
                    let rows = try await connection.query("SELECT v FROM point WHERE id = ?", [.integer(id)])
                    sum &+= Int64(rows.first?.column("v")?.integer ?? 0)
                }
                return sum
            }
            try await connection.close()
            return Outcome(seconds: seconds, checksum: sum)
        }
    }

    /// One connection per reader task and one for the writer: SQLiteNIO has
    /// no pool of its own (Vapor's comes from async-kit). The readers are
    /// concurrent tasks, as in a server; the writer commits until they are done.
    static func poolReads(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.pointPath
        return try blocking {
            var readers: [SQLiteConnection] = []
            for _ in 0..<Fixtures.poolReaderCount {
                readers.append(try await SQLiteConnection.open(storage: .file(path: path)))
            }
            let writer = try await SQLiteConnection.open(storage: .file(path: path))
            for connection in readers + [writer] { _ = try await connection.query("PRAGMA busy_timeout = 5000") }
            // As DatabasePool's and GRDB's writers: no fsync per commit in WAL.
            _ = try await writer.query("PRAGMA synchronous = NORMAL")
            let stop = Mutex(false)
            let writing = Task {
                while !stop.withLock({ $0 }) {
                    _ = try await writer.query("BEGIN IMMEDIATE")
                    _ = try await writer.query("INSERT INTO w (v) VALUES (1)")
                    _ = try await writer.query("COMMIT")
                }
            }
            let ids = Fixtures.pointIds
            let (sum, seconds) = try await measuredAsyncRegion {
                try await withThrowingTaskGroup(of: Int64.self) { group in
                    for connection in readers {
                        group.addTask {
                            var sum: Int64 = 0
                            for id in ids {
                                let rows = try await connection.query("SELECT v FROM point WHERE id = ?", [.integer(id)])
                                sum &+= Int64(rows.first?.column("v")?.integer ?? 0)
                            }
                            return sum
                        }
                    }
                    return try await group.reduce(0, &+)
                }
            }
            stop.withLock { $0 = true }
            try await writing.value
            for connection in readers + [writer] { try await connection.close() }
            return Outcome(seconds: seconds, checksum: sum)
        }
    }

    static func cursorMemory(_ fixtures: Fixtures) throws -> Outcome {
        try blocking {
            let connection = try await SQLiteConnection.open(storage: .file(path: fixtures.bigPath))
            let state = CursorState()
            let (_, seconds) = try await measuredAsyncRegion {
                state.start = currentRSSMiB()
                try await connection.query("SELECT v, s FROM big", []) { row in
                    let columns = row.columns
                    state.sum &+= Int64(columns[0].data.integer ?? 0)
                    state.count += (columns[1].data.string?.utf8.count ?? 0) > 0 ? 1 : 0
                    if state.count % 50_000 == 0 { state.growth = max(state.growth, currentRSSMiB() - state.start) }
                }
            }
            try await connection.close()
            return Outcome(seconds: seconds, checksum: state.sum, rssGrowthMiB: state.growth)
        }
    }
}

/// What a row closure adds up. SQLiteNIO calls the closure of one query on
/// one thread of its pool, one row after the other, and the query's caller
/// reads the result only after the query returned: no two threads touch it
/// at once.
private final class Accumulator: @unchecked Sendable {
    var value: Int64 = 0
}

/// The cursor-memory workload's running figures (see `Accumulator`).
private final class CursorState: @unchecked Sendable {
    var start = 0.0
    var growth = 0.0
    var sum: Int64 = 0
    var count = 0
}

/// `measuredRegion` for async work.
func measuredAsyncRegion<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    bench_instrumentation_start()
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try await body()
    let end = DispatchTime.now().uptimeNanoseconds
    bench_instrumentation_stop()
    return (result, Double(end - start) / 1e9)
}

/// Runs async work from the synchronous harness, waiting for its result.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
