import DatabaseKit
import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// The WAL reader against logs SQLite itself wrote: the database file plus
/// the pages read from the log is the database SQLite shows.
@Suite("SQLite's write-ahead log, read frame by frame")
struct WALFileTests {
    /// The bytes of `path`.
    static func bytes(_ path: String) throws -> [UInt8] { Array(try #require(FileManager.default.contents(atPath: path))) }

    /// Applies the transactions to a copy of the database's bytes.
    static func apply(_ transactions: WALTransactions, wal: FileDescriptor, pageSize: Int, to image: inout [UInt8]) throws {
        for (page, offset) in transactions.pages {
            let data = try wal.read(fromAbsoluteOffset: offset, count: pageSize)
            let start = Int(page - 1) * pageSize
            if image.count < start + pageSize { image += [UInt8](repeating: 0, count: start + pageSize - image.count) }
            image.replaceSubrange(start..<(start + pageSize), with: data)
        }
        image.removeSubrange(min(image.count, Int(transactions.commit) * pageSize)...)
    }

    @Test("committed transactions rebuild the database; a transaction being written and frames of an earlier life are not read")
    func rebuild() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
        }
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let base = try Self.bytes(path)
        for round in 0..<20 {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t(v) SELECT randomblob(300) FROM (SELECT 1 UNION SELECT 2 UNION SELECT 3)")
                if round % 5 == 4 { try db.execute(sql: "DELETE FROM t WHERE id % 3 = 0") }
            }
        }
        let wal = try FileDescriptor.open(path + "-wal", .readOnly)
        defer { wal.close() }
        let headerBytes = try wal.read(fromAbsoluteOffset: 0, count: WALHeader.size)
        let header = try #require(headerBytes.withUnsafeBytes { WALHeader($0) })
        let all = try header.transactions(in: wal, after: WALPosition(start: header))
        #expect(all.count == 20)
        var image = base
        try Self.apply(all, wal: wal, pageSize: Int(header.pageSize), to: &image)

        // Read in two steps from the position of the first: the same database.
        let size = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(all.end.offset == Int64(size))
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        #expect(try Self.bytes(path) == image, "the pages read are not SQLite's")
        #expect(try header.transactions(in: wal, after: all.end).isEmpty)
        try dbQueue.close()
    }

    @Test("a corrupt frame ends the read at the last commit before it; a restarted log has new salts")
    func corruptionAndRestart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(v)")
        }
        for value in 0..<3 { try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) } }
        let wal = try FileDescriptor.open(path + "-wal", .readWrite)
        defer { wal.close() }
        let header = try #require(try wal.read(fromAbsoluteOffset: 0, count: WALHeader.size).withUnsafeBytes { WALHeader($0) })
        let start = WALPosition(start: header)
        let before = try header.transactions(in: wal, after: start)
        #expect(before.count == 4)
        // Flip a byte of the last frame's page: the last transaction is dropped.
        let last = before.end.offset - header.frameSize + 24 + 100
        var byte = try wal.read(fromAbsoluteOffset: last, count: 1)
        byte[0] ^= 0xFF
        try wal.writeAll(toAbsoluteOffset: last, byte)
        let after = try header.transactions(in: wal, after: start)
        #expect(after.count == 3 && after.end.offset < before.end.offset)
        byte[0] ^= 0xFF
        try wal.writeAll(toAbsoluteOffset: last, byte)

        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(RESTART)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (99)") }
        let restarted = try #require(try wal.read(fromAbsoluteOffset: 0, count: WALHeader.size).withUnsafeBytes { WALHeader($0) })
        #expect(!start.belongs(to: restarted))
        // The old position's salts no longer match the frames there.
        #expect(try restarted.transactions(in: wal, after: WALPosition(start: restarted)).count == 1)
        #expect(try header.transactions(in: wal, after: before.end).isEmpty)
        try dbQueue.close()
        #expect(WALHeader(UnsafeRawBufferPointer(start: nil, count: 0)) == nil)
    }
}
