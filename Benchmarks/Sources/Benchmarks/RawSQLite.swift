import BenchSQLite
import Foundation

// A thin layer over the C API for the baseline and the fixtures. Every result
// code is checked; nothing here adds work to the timed loops but the checks a
// careful C programmer writes.

final class RawConnection {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw BenchmarkError(description: "open \(path): \(code)")
        }
        self.handle = handle
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        return RawStatement(handle: statement!, connection: self)
    }

    @inline(__always)
    func check(_ code: CInt) throws {
        guard code == SQLITE_OK else {
            throw BenchmarkError(description: "SQLite error \(code): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}

final class RawStatement {
    let handle: OpaquePointer
    let connection: RawConnection

    init(handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps once: true on a row, false when done; throws on error.
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw BenchmarkError(description: "step: \(code) \(String(cString: sqlite3_errmsg(connection.handle)))")
    }

    @inline(__always)
    func reset() throws {
        try connection.check(sqlite3_reset(handle))
    }

    @inline(__always)
    func bind(_ value: Int64, at index: CInt) throws {
        try connection.check(sqlite3_bind_int64(handle, index, value))
    }

    @inline(__always)
    func bind(_ value: Double, at index: CInt) throws {
        try connection.check(sqlite3_bind_double(handle, index, value))
    }

    @inline(__always)
    func bind(_ value: String, at index: CInt) throws {
        var value = value
        let code = value.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return bench_bind_text(handle, index, "", 0) }
                return bench_bind_text(handle, index, base, CInt(chars.count))
            }
        }
        try connection.check(code)
    }

    @inline(__always)
    func bindNull(at index: CInt) throws {
        try connection.check(sqlite3_bind_null(handle, index))
    }

    /// Runs a statement that returns no row.
    @inline(__always)
    func run() throws {
        guard try !step() else { throw BenchmarkError(description: "unexpected row") }
        try reset()
    }

    func columnIndex(_ name: String) -> CInt {
        for index in 0..<sqlite3_column_count(handle) where String(cString: sqlite3_column_name(handle, index)) == name {
            return index
        }
        fatalError("no column \(name)")
    }
}

/// Files shared by the fetch workloads, generated once per process.
struct Fixtures: Sendable {
    let directory: String
    var fetchPath: String { directory + "/fetch.sqlite" }
    var pointPath: String { directory + "/point.sqlite" }
    var bigPath: String { directory + "/big.sqlite" }
    var playerPath: String { directory + "/player.sqlite" }

    static let insertRowCount = 50_000
    static let fetchRowCount = 200_000
    static let transactionCount = 5_000
    static let pointRowCount = 10_000
    static let pointQueryCount = 20_000
    static let poolReaderCount = 2
    static let bigRowCount = 1_000_000

    /// The ids queried by the point-query workloads.
    /// The rows or records each floor workload handles (see CodableFloors.swift).
    static let rowsPerRun: [String: Int] = [
        "fetch-decodable": fetchRowCount, "record-insert-codable": insertRowCount, "record-fetch-codable": pointQueryCount,
        "insert-positional": insertRowCount,
    ]
    static let pointIds: [Int] = (0..<pointQueryCount).map { $0 * 7919 % pointRowCount + 1 }

    /// A fresh directory for a run that writes.
    func scratchPath(_ name: String) -> String {
        let path = directory + "/scratch-\(name)-\(UUID().uuidString).sqlite"
        return path
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// Creates the fixtures in `directory`, or reuses them.
    static func prepare(in directory: String) throws -> Fixtures {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fixtures = Fixtures(directory: directory)
        let marker = directory + "/ready-2"  // bumped when a fixture is added
        if FileManager.default.fileExists(atPath: marker) { return fixtures }

        log("Generating fixtures in \(directory)")
        // Files of an older fixture version are regenerated from scratch.
        for path in [fixtures.fetchPath, fixtures.pointPath, fixtures.bigPath, fixtures.playerPath] {
            Fixtures.removeDatabase(path)
        }
        do {
            let db = try RawConnection(path: fixtures.fetchPath)
            try db.execute(
                "CREATE TABLE item (i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)"
            )
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for row in 0..<fetchRowCount {
                for column in 0..<10 { try insert.bind(Int64(row + column), at: CInt(column + 1)) }
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        do {
            let db = try RawConnection(path: fixtures.pointPath)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("CREATE TABLE point (id INTEGER PRIMARY KEY, v INTEGER NOT NULL); CREATE TABLE w (v INTEGER)")
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO point VALUES (?, ?)")
            for id in 1...pointRowCount {
                try insert.bind(Int64(id), at: 1)
                try insert.bind(Int64(id * 3), at: 2)
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        do {
            let db = try RawConnection(path: fixtures.bigPath)
            try db.execute("CREATE TABLE big (v INTEGER, s TEXT)")
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO big VALUES (?, printf('%064d', ?))")
            for row in 0..<bigRowCount {
                try insert.bind(Int64(row), at: 1)
                try insert.bind(Int64(row), at: 2)
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        do {
            let db = try RawConnection(path: fixtures.playerPath)
            try db.execute(RawWorkloads.createPlayer)
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO player VALUES (?, ?, ?, ?)")
            for id in 1...pointRowCount {
                try insert.bind(Int64(id), at: 1)
                try insert.bind(playerName(id), at: 2)
                try insert.bind(Int64(id * 3), at: 3)
                try insert.bind(Double(id) / 4, at: 4)
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        return fixtures
    }

    // Expected checksums, computed from the generation formulas.

    /// Sum of every inserted value: row * 10 + column.
    static var insertChecksum: Int64 {
        let n = Int64(insertRowCount)
        return 10 * 10 * (n * (n - 1) / 2) + n * 45
    }

    /// Sum of every fetched value: row + column.
    static var fetchChecksum: Int64 {
        let n = Int64(fetchRowCount)
        return 10 * (n * (n - 1) / 2) + n * 45
    }

    static var transactionChecksum: Int64 {
        let n = Int64(transactionCount)
        return n * (n - 1) / 2
    }

    /// Sum of the ids given by didInsert and of the scores of the inserted records.
    static var recordInsertChecksum: Int64 {
        let n = Int64(insertRowCount)
        return n * (n + 1) / 2 + n * (n - 1) / 2
    }

    static var pointChecksum: Int64 {
        pointIds.reduce(0) { $0 + Int64($1 * 3) }
    }

    static var bigChecksum: Int64 {
        let n = Int64(bigRowCount)
        return n * (n - 1) / 2
    }
}

/// The name of player `id`, the same in every implementation.
func playerName(_ id: Int) -> String { "player \(id)" }
