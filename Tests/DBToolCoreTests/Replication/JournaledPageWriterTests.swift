import DatabaseKit
import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// A follower's update is one transaction of SQLite's rollback journal: an
/// update that stops half-way leaves a journal SQLite itself rolls back, so
/// the copy's next reader sees the state before, never half of the update.
@Suite("Follower: pages written in place under SQLite's journal")
struct JournaledPageWriterTests {
    /// A rollback-journal database of `rows` rows, and its rows.
    private func makeDatabase(_ path: String, rows: Int) throws {
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            try db.execute(
                sql:
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows)) INSERT INTO t(v) SELECT hex(randomblob(60)) FROM c"
            )
        }
        try dbQueue.close()
    }

    private func contents(_ path: String) throws -> (rows: [String], check: String) {
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in
            (try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id"), try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "")
        }
    }

    /// `newer`: a copy of the database `copy`, then changed by `change` (in
    /// WAL mode with `wal`, as a replicated primary is).
    private func makeNewer(from copy: String, at newer: String, wal: Bool = false, _ change: (Database) throws -> Void) throws {
        try FileManager.default.copyItem(atPath: copy, toPath: newer)
        let writer = try DatabaseQueue(path: newer)
        if wal { _ = try writer.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") } }
        try writer.write(change)
        try writer.close()
    }

    /// The pages of `newer` that differ from `older`'s (or all of them: a
    /// snapshot), read from `newer`; reads fail once `limit` pages were written.
    private func update(from older: String, to newer: String, failingAfter limit: Int = .max, everyPage: Bool = false) throws
        -> JournaledPageWriter.Update
    {
        let old = try Data(contentsOf: URL(fileURLWithPath: older))
        let new = try Data(contentsOf: URL(fileURLWithPath: newer))
        let pageSize = 4096
        let pages = (1...(new.count / pageSize)).filter { number in
            let range = (number - 1) * pageSize..<number * pageSize
            return everyPage || range.upperBound > old.count || old[range] != new[range]
        }.map { UInt32($0) }
        // The writer reads each page the update overwrites once before it
        // writes anything (to compare it with the copy's): those reads pass.
        let compared = pages.filter { Int($0) <= old.count / pageSize }.count
        var served = 0
        return JournaledPageWriter.Update(
            pages: pages,
            read: { number, buffer in
                served += 1
                // A disk that fails in the middle of writing the update.
                if served - compared > limit { throw DBToolError(.ioError, "the disk went away after \(limit) pages") }
                let start = Int(number - 1) * pageSize
                new[start..<start + pageSize].withUnsafeBytes { buffer.copyMemory(from: $0) }
            },
            commit: UInt32(new.count / pageSize))
    }

    @Test("an update that stops half-way leaves a hot journal SQLite rolls back; a whole one gives the new state")
    func halfAnUpdate() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("db.sqlite")
        let newer = directory.file("newer.sqlite")
        try makeDatabase(copy, rows: 2_000)
        try makeNewer(from: copy, at: newer) { db in
            try db.execute(sql: "UPDATE t SET v = 'changed ' || id WHERE id % 7 = 0")
            try db.execute(sql: "INSERT INTO t(v) SELECT hex(randomblob(60)) FROM t LIMIT 500")
        }
        let before = try contents(copy)
        let after = try contents(newer)
        #expect(before.rows != after.rows)

        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        do {
            let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
            let broken = try update(from: copy, to: newer, failingAfter: 5)
            #expect(broken.pages.count > 10, "the update changes \(broken.pages.count) pages")
            #expect(throws: DBToolError.self) { _ = try pageWriter.apply(broken) }
        }
        // Half the pages are new: the journal, written with SQLite's smallest sector, brings the old ones back.
        let journal = try Data(contentsOf: URL(fileURLWithPath: directory.file("db.sqlite-journal")))
        #expect(journal.count > JournaledPageWriter.sectorSize && (journal.count - JournaledPageWriter.sectorSize) % 4104 == 0)
        #expect(try contents(copy) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-journal")))

        let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
        #expect(try pageWriter.apply(try update(from: copy, to: newer)) != nil)
        #expect(try contents(copy) == after)
        #expect(after.check == "ok")
    }

    @Test("an update of every page (a rebuild from a snapshot) journals and writes only the pages that differ from the copy's")
    func unchangedPagesSkipped() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("db.sqlite")
        let newer = directory.file("newer.sqlite")
        try makeDatabase(copy, rows: 2_000)
        try makeNewer(from: copy, at: newer) { db in try db.execute(sql: "UPDATE t SET v = 'changed' WHERE id IN (10, 1500)") }
        let before = try contents(copy)
        let changed = try update(from: copy, to: newer).pages.filter { $0 != 1 }
        let snapshot = try update(from: copy, to: newer, everyPage: true)
        #expect(changed.count == 2 && snapshot.pages.count > 50, "\(changed.count) of \(snapshot.pages.count) pages differ")

        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        do {
            // Stopped once it began writing: the journal shows what it would write.
            let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
            let stopping = try update(from: copy, to: newer, failingAfter: 0, everyPage: true)
            #expect(throws: DBToolError.self) { _ = try pageWriter.apply(stopping) }
        }
        #expect(try journaledPages(directory.file("db.sqlite-journal")) == changed)
        #expect(try contents(copy) == before)
        let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
        #expect(try pageWriter.apply(snapshot) != nil)
        #expect(try contents(copy) == contents(newer))
    }

    /// The page numbers of the records of a journal left behind.
    private func journaledPages(_ path: String) throws -> [UInt32] {
        let journal = try Data(contentsOf: URL(fileURLWithPath: path))
        return stride(from: JournaledPageWriter.sectorSize, to: journal.count, by: 4104).map { offset in
            journal[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    @Test(
        "page 1 goes into the journal only when more than its counters change; stopped right after page 1, the copy still rolls back",
        arguments: [false, true])
    func pageOne(changesSchema: Bool) throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("db.sqlite")
        let newer = directory.file("newer.sqlite")
        try makeDatabase(copy, rows: 2_000)
        // The primary's page 1 says WAL mode, the copy's rollback journal.
        try makeNewer(from: copy, at: newer, wal: true) { db in
            try db.execute(sql: "INSERT INTO t(v) SELECT hex(randomblob(60)) FROM t LIMIT 300")
            if changesSchema { try db.execute(sql: "CREATE TABLE extra(x)") }
        }
        let before = try contents(copy)
        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        do {
            // Page 1 is read to compare it, then written first: the second read fails.
            let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
            let broken = try update(from: copy, to: newer, failingAfter: changesSchema ? 1 : 2)
            #expect(broken.pages.first == 1)
            #expect(throws: DBToolError.self) { _ = try pageWriter.apply(broken) }
        }
        let journaled = try journaledPages(directory.file("db.sqlite-journal"))
        #expect(journaled.contains(1) == changesSchema, "journaled pages: \(journaled)")
        #expect(!journaled.isEmpty)
        #expect(try contents(copy) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-journal")))
        let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
        #expect(try pageWriter.apply(try update(from: copy, to: newer)) != nil)
        let after = try contents(copy)
        #expect(after.check == "ok" && after.rows.count == 2_300)
        let tables = try DatabaseQueue(path: copy).read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master ORDER BY name")
        }
        #expect(tables == (changesSchema ? ["extra", "t"] : ["t"]))
    }

    @Test("pages an update takes from the copy's freelist stay out of the journal; stopped half-way, the copy still rolls back")
    func freePages() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("db.sqlite")
        let newer = directory.file("newer.sqlite")
        try makeDatabase(copy, rows: 3_000)
        let deleting = try DatabaseQueue(path: copy)
        try deleting.write { db in try db.execute(sql: "DELETE FROM t WHERE id > 1000") }
        #expect(try deleting.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 } > 20)
        try deleting.close()
        try makeNewer(from: copy, at: newer) { db in try db.execute(sql: "INSERT INTO t(v) SELECT hex(randomblob(60)) FROM t LIMIT 800") }
        let before = try contents(copy)
        let full = try update(from: copy, to: newer)
        let initialPages = UInt32((try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int ?? 0) / 4096)
        let overwritten = full.pages.filter { $0 <= initialPages }
        #expect(overwritten.count > 20, "the update overwrites \(overwritten.count) pages")

        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        do {
            let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
            #expect(throws: DBToolError.self) { _ = try pageWriter.apply(try update(from: copy, to: newer, failingAfter: 12)) }
        }
        let journaled = try journaledPages(directory.file("db.sqlite-journal"))
        #expect(journaled.count < overwritten.count / 2, "journaled \(journaled.count) of \(overwritten.count) overwritten pages")
        #expect(try contents(copy) == before)
        let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
        #expect(try pageWriter.apply(try update(from: copy, to: newer)) != nil)
        #expect(try contents(copy) == contents(newer))
        #expect(try contents(copy).check == "ok")
    }
    @Test("an update that leaves page 1 out rewrites its header alone, and a reader that kept its connection sees the new rows")
    func headerOnly() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("db.sqlite")
        let newer = directory.file("newer.sqlite")
        try makeDatabase(copy, rows: 2_000)
        // Same-size values: only a leaf page and page 1's counters change.
        try makeNewer(from: copy, at: newer) { db in try db.execute(sql: "UPDATE t SET v = lower(v) WHERE id = 1500") }
        var changes = try update(from: copy, to: newer)
        #expect(changes.pages.first == 1 && changes.pages.count == 2, "pages: \(changes.pages)")
        changes.pages.removeAll { $0 == 1 }
        let pageOneBefore = try Data(contentsOf: URL(fileURLWithPath: copy))[0..<4096]

        // The reader's cache holds the leaf before the update.
        let reader = try DatabaseQueue(path: copy)
        defer { try? reader.close() }
        let value = { try reader.read { db in try String.fetchOne(db, sql: "SELECT v FROM t WHERE id = 1500") } }
        let old = try value()
        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        let pageWriter = try JournaledPageWriter(folder: folder, name: "db.sqlite", pageSize: 4096)
        #expect(try pageWriter.apply(changes) != nil)
        #expect(try value() == old?.lowercased() && old != old?.lowercased())

        let pageOneAfter = try Data(contentsOf: URL(fileURLWithPath: copy))[0..<4096]
        let counter = { (page: Data) in page[24..<28].reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(counter(pageOneAfter) == counter(pageOneBefore) &+ 1)
        #expect(pageOneAfter[JournaledPageWriter.headerSize...] == pageOneBefore[JournaledPageWriter.headerSize...])
        #expect(try contents(copy) == contents(newer))
    }
}
