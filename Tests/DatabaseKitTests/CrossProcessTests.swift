import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Scenarios with real processes: the children are exit tests, each a process
/// of its own running the test binary.
@Suite("Cross-process")
struct CrossProcessTests {
    @Test("with a busy timeout, two processes writing the same file wait for each other", arguments: WriterKind.allCases)
    func twoWriters(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let setUp = try kind.make(in: directory)
        try await setUp.write { db in try db.execute(sql: "CREATE TABLE t(process INT, i INT)") }
        try setUp.close()

        async let first = #expect(processExitsWith: .success) { [path = path as String, kind = kind.rawValue as String] in
            try CrossProcessTests.writeMany(path: path, kind: kind, process: 1)
        }
        async let second = #expect(processExitsWith: .success) { [path = path as String, kind = kind.rawValue as String] in
            try CrossProcessTests.writeMany(path: path, kind: kind, process: 2)
        }
        _ = await (first, second)

        let dbQueue = try DatabaseQueue(path: path)
        #expect(try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 400)
        #expect(try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT process) FROM t") } == 2)
    }

    /// Writes 200 small transactions, each holding the lock a little.
    static func writeMany(path: String, kind: String, process: Int) throws {
        var config = Configuration()
        config.busyMode = .timeout(30)
        let writer: any DatabaseWriter =
            kind == "pool" ? try DatabasePool(path: path, configuration: config) : try DatabaseQueue(path: path, configuration: config)
        for i in 0..<200 {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [process, i])
                usleep(200)
            }
        }
    }
}
