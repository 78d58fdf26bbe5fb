import DatabaseKit
import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// LTX files both ways with the real Litestream 0.5.17 (`make s3-deps`
/// installs it): what Litestream replicates, our decoder and applier
/// rebuild page for page; what our encoder writes, `litestream restore`
/// restores, at the latest transaction and at an earlier one.
@Suite("LTX files of the real Litestream", .serialized)
struct LitestreamInteropTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let litestream = ProcessInfo.processInfo.environment["DBTOOL_LITESTREAM"] ?? packageRoot + "/.build/s3-venv/bin/litestream"

    /// Runs Litestream to its end; its output, and throws unless it exits 0.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: litestream), "no \(litestream): run `make s3-deps` first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: litestream)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_CA_BUNDLE"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LitestreamFailure(message: "litestream \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

    /// Litestream exited with an error: its command line and output.
    struct LitestreamFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Stops Litestream with SIGTERM (it syncs, then exits), SIGKILL after
    /// 10 s: a process the test starts never outlives it.
    static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        if !wait(seconds: 10, for: { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits up to `seconds` for `condition`.
    static func wait(seconds: Double, for condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try condition()
    }

    /// The LTX files of `level` in a file replica, by transaction.
    static func files(in replica: String, level: Int) -> [LTXFileName] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(replica)/ltx/\(level)")) ?? []
        return names.compactMap { LTXFileName(level: level, fileName: $0) }.sorted()
    }

    /// A source reading `path` whole, in pieces.
    static func source(_ path: String) throws -> LTXDecoder.Source {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        return { buffer in
            let count = try descriptor.read(into: buffer)
            if count == 0 { descriptor.close() }
            return count
        }
    }

    /// Builds a database from LTX files into `output`: the last transaction
    /// applied, the checksum the files record, and the one the file built has.
    static func apply(_ paths: [String], into output: String) throws -> (txid: UInt64, recorded: LTXChecksum, computed: LTXChecksum) {
        let database = try FileDescriptor.open(output, .readWrite, options: [.exclusiveCreate, .noFollow])
        defer { database.close() }
        var applier = LTXApplier(database: database)
        for path in paths { try applier.apply(from: try source(path), name: path) }
        return (applier.txid, applier.checksum, try applier.computedChecksum())
    }

    /// A WAL database at `path` with a table `t` of `rows` rows, whose `v`
    /// is the SQL `value` (of the row number `x`).
    static func makeDatabase(_ path: String, rows: Int, value: String) throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            try db.execute(
                sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows)) INSERT INTO t(v) SELECT \(value) FROM c")
        }
        return dbQueue
    }

    /// The rows of `t` in a database file.
    static func rows(_ path: String) throws -> [String] {
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok", "\(path)")
            return try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id")
        }
    }

    @Test("Litestream's replica: its snapshot and every level-0 file decode, chain, and rebuild the database page for page")
    func readLitestream() throws {
        let directory = TemporaryDirectory()
        let databasePath = directory.file("app.db")
        let replica = directory.file("replica")
        let dbQueue = try Self.makeDatabase(databasePath, rows: 2000, value: "hex(randomblob(60))")
        let config = directory.file("litestream.yml")
        try "dbs:\n  - path: \(databasePath)\n    replicas:\n      - type: file\n        path: \(replica)\n        sync-interval: 100ms\n"
            .write(toFile: config, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.litestream)
        process.arguments = ["replicate", "-config", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { Self.stop(process) }
        #expect(Self.wait(seconds: 20) { !Self.files(in: replica, level: 0).isEmpty }, "Litestream wrote no file")
        let before = Self.files(in: replica, level: 0).last?.maxTXID ?? 0
        for round in 1...5 {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: ["round \(round)"]) }
            Thread.sleep(forTimeInterval: 0.3)
        }
        // A TXID of Litestream counts its syncs, not the transactions in
        // them: wait for a sync after the writes, then for a quiet moment.
        var last = before
        var quietSince = Date()
        #expect(
            Self.wait(seconds: 30) {
                let now = Self.files(in: replica, level: 0).last?.maxTXID ?? 0
                if now != last { (last, quietSince) = (now, Date()) }
                return last > before && Date().timeIntervalSince(quietSince) > 1.5
            }, "\(Self.files(in: replica, level: 0))")
        Self.stop(process)
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let sourceRows = try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        try dbQueue.close()

        let levelZero = Self.files(in: replica, level: 0)
        try #require(levelZero.first?.minTXID == 1)
        let built = directory.file("built.db")
        let applied = try Self.apply(levelZero.map { "\(replica)/\($0.path)" }, into: built)
        #expect(applied.txid == levelZero.last?.maxTXID)
        #expect(try Self.rows(built) == sourceRows)
        #expect(FileManager.default.contents(atPath: built) == FileManager.default.contents(atPath: databasePath), "not the same pages")

        for snapshot in Self.files(in: replica, level: LTXFileName.snapshotLevel) {
            let applied = try Self.apply(["\(replica)/\(snapshot.path)"], into: directory.file("snapshot-\(snapshot.maxTXID).db"))
            #expect(applied.txid == snapshot.maxTXID)
        }
    }

    /// The pages of a database file whose WAL is checkpointed.
    static func pages(of path: String) throws -> (pageSize: UInt32, pages: [[UInt8]]) {
        let dbQueue = try DatabaseQueue(path: path)
        let pageSize = try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return try Int.fetchOne(db, sql: "PRAGMA page_size")!
        }
        try dbQueue.close()
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let pages = stride(from: 0, to: bytes.count, by: pageSize).map { Array(bytes[$0..<($0 + pageSize)]) }
        return (UInt32(pageSize), pages)
    }

    @Test(
        "our files: Litestream restores a snapshot and the file after it, at the latest and at an earlier transaction; files that track a database checksum it refuses",
        arguments: [true, false])
    func litestreamReadsOurs(tracksChecksum: Bool) throws {
        let directory = TemporaryDirectory()
        let databasePath = directory.file("app.db")
        let replica = directory.file("replica")
        let dbQueue = try Self.makeDatabase(databasePath, rows: 3000, value: "'first ' || x")
        try dbQueue.close()
        let first = try Self.pages(of: databasePath)
        let firstRows = try Self.rows(databasePath)
        let dbQueue2 = try DatabaseQueue(path: databasePath)
        try dbQueue2.write { db in
            try db.execute(sql: "UPDATE t SET v = 'second' WHERE id <= 10")
            try db.execute(sql: "INSERT INTO t(v) SELECT 'more' FROM t LIMIT 500")
        }
        try dbQueue2.close()
        let second = try Self.pages(of: databasePath)
        let secondRows = try Self.rows(databasePath)
        try #require(first.pageSize == second.pageSize && second.pages.count >= first.pages.count)

        func write(_ name: LTXFileName, _ header: LTXHeader, pages: [(UInt32, [UInt8])], post: LTXChecksum) throws {
            try FileManager.default.createDirectory(atPath: "\(replica)/ltx/\(name.level)", withIntermediateDirectories: true)
            var bytes = [UInt8]()
            var encoder = try LTXEncoder(header: header) { bytes.append(contentsOf: $0) }
            for (number, data) in pages { try data.withUnsafeBytes { try encoder.add(page: number, data: $0) } }
            _ = try encoder.finish(postApplyChecksum: post)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(replica)/\(name.path)"))
        }
        func checksum(_ pages: [[UInt8]]) -> LTXChecksum {
            pages.enumerated().reduce(LTXChecksum.zero) { sum, page in
                page.element.withUnsafeBytes { sum.toggling(.page(UInt32(page.offset + 1), $0)) }
            }
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var snapshot = LTXHeader(pageSize: first.pageSize, commit: UInt32(first.pages.count), minTXID: 1, maxTXID: 1, timestamp: now - 5000)
        if !tracksChecksum { snapshot.flags = LTXHeader.noChecksumFlag }
        try write(
            LTXFileName(level: 0, minTXID: 1, maxTXID: 1), snapshot,
            pages: first.pages.enumerated().map { (UInt32($0.offset + 1), $0.element) },
            post: tracksChecksum ? checksum(first.pages) : .zero)
        var next = LTXHeader(pageSize: first.pageSize, commit: UInt32(second.pages.count), minTXID: 2, maxTXID: 2, timestamp: now)
        if tracksChecksum { next.preApplyChecksum = checksum(first.pages) } else { next.flags = LTXHeader.noChecksumFlag }
        let changed = second.pages.enumerated().filter { $0.offset >= first.pages.count || first.pages[$0.offset] != $0.element }
        #expect(!changed.isEmpty && changed.count < second.pages.count)
        try write(
            LTXFileName(level: 0, minTXID: 2, maxTXID: 2), next, pages: changed.map { (UInt32($0.offset + 1), $0.element) },
            post: tracksChecksum ? checksum(second.pages) : .zero)

        let latest = directory.file("latest.db")
        if tracksChecksum {
            // Litestream 0.5.17 writes files that track no database checksum,
            // and its restore refuses files that do ("post-apply checksum not
            // allowed"): a replica for Litestream must be written without.
            let refusal = #expect(throws: LitestreamFailure.self) { try Self.run(["restore", "-o", latest, "file://\(replica)"]) }
            #expect(refusal?.message.contains("post-apply checksum not allowed") == true, "\(String(describing: refusal))")
        } else {
            try Self.run(["restore", "-o", latest, "file://\(replica)"])
            #expect(try Self.rows(latest) == secondRows)
            #expect(FileManager.default.contents(atPath: latest) == Data(second.pages.joined()), "not the same pages")
            let earlier = directory.file("earlier.db")
            try Self.run(["restore", "-o", earlier, "-txid", LTXFileName.hex(1), "file://\(replica)"])
            #expect(try Self.rows(earlier) == firstRows)
        }

        // Our applier reads back what we wrote, checksums verified.
        let built = try Self.apply(
            ([1, 2] as [UInt64]).map { "\(replica)/\(LTXFileName(level: 0, minTXID: $0, maxTXID: $0).path)" },
            into: directory.file("built.db"))
        #expect(built.txid == 2)
        #expect(built.recorded == (tracksChecksum ? checksum(second.pages) : .zero))
        #expect(built.computed == checksum(second.pages))
    }
}
