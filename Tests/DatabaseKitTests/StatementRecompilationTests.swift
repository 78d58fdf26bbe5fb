import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Statements a connection keeps (the statement caches, a prepared statement)
/// while another connection changes the schema: SQLite recompiles them when
/// they run again, and their rows must then have the new columns, never a
/// mix of the old names and the new count (which trapped), nor the old
/// columns read at the new positions.
@Suite("Statements recompiled after another connection's schema change")
struct StatementRecompilationTests {
    struct Item: Decodable, FetchableRecord, TableRecord, Equatable {
        static let databaseTableName = "item"
        var id: Int64
        var name: String?
        var level: Int?
    }

    /// Two connections to one database file, the second one having run `schema`.
    private static func connections(in directory: TemporaryDirectory, schema: String) throws -> (DatabaseQueue, DatabaseQueue) {
        let dbQueue = try directory.makeQueue()
        let other = try directory.makeQueue()
        try other.write { db in try db.execute(sql: schema) }
        return (dbQueue, other)
    }

    /// What each way of fetching reads from `SELECT * FROM item`, row by row.
    private static func everything(_ db: Database, _ prepared: Statement) throws -> [[String: DatabaseValue]] {
        func described(_ row: Row) -> [String: DatabaseValue] {
            Dictionary(uniqueKeysWithValues: zip(row.columnNames, row.databaseValues))
        }
        var all: [[String: DatabaseValue]] = []
        all += try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id").map(described)
        all += try [Row.fetchOne(db, sql: "SELECT * FROM item WHERE id = ?", arguments: [1])].compactMap { $0 }.map(described)
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM item ORDER BY id")
        while let row = try cursor.next() { all.append(described(row)) }
        all += try Row.fetchAll(prepared).map(described)
        return all
    }

    @Test("columns added, dropped and renamed by another connection are read by the next fetches")
    func otherConnection() throws {
        let directory = TemporaryDirectory()
        let (dbQueue, other) = try Self.connections(
            in: directory,
            schema: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, size INTEGER); INSERT INTO item VALUES (1, 'a', 10), (2, 'b', 20)")
        try dbQueue.inDatabase { db in
            let prepared = try db.makeStatement(sql: "SELECT * FROM item ORDER BY id")
            let before = try Self.everything(db, prepared)
            #expect(before.allSatisfy { $0.keys.sorted() == ["id", "name", "size"] })
            #expect(try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id") == [
                Item(id: 1, name: "a", level: nil), Item(id: 2, name: "b", level: nil),
            ])

            try other.write { db in try db.execute(sql: "ALTER TABLE item ADD COLUMN level INTEGER NOT NULL DEFAULT 7") }
            let added = try Self.everything(db, prepared)
            #expect(added.count == before.count)
            #expect(added.allSatisfy { $0.keys.sorted() == ["id", "level", "name", "size"] && $0["level"] == 7.databaseValue })
            #expect(try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id") == [
                Item(id: 1, name: "a", level: 7), Item(id: 2, name: "b", level: 7),
            ])
            do {
                // Left on its first row, then dropped: its statement is reset.
                let cursor = try Item.fetchCursor(db, sql: "SELECT * FROM item ORDER BY id")
                #expect(try cursor.next()?.level == 7)
            }

            // A column in the middle goes: the old positions no longer hold
            // the old columns.
            try other.write { db in try db.execute(sql: "ALTER TABLE item DROP COLUMN name") }
            let dropped = try Self.everything(db, prepared)
            #expect(dropped.allSatisfy { $0.keys.sorted() == ["id", "level", "size"] })
            #expect(dropped.allSatisfy { $0["size"] == 10.databaseValue || $0["size"] == 20.databaseValue })
            #expect(try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id") == [
                Item(id: 1, name: nil, level: 7), Item(id: 2, name: nil, level: 7),
            ])

            try other.write { db in try db.execute(sql: "ALTER TABLE item RENAME COLUMN level TO name") }
            let renamed = try Self.everything(db, prepared)
            #expect(renamed.allSatisfy { $0.keys.sorted() == ["id", "name", "size"] && $0["name"] == 7.databaseValue })
            // The row decoder of the statement looked the old names up.
            let items = try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
            #expect(items.map(\.level) == [nil, nil])
        }
    }

    @Test("a record fetched by key reads the columns another connection added")
    func lookupByKey() throws {
        let directory = TemporaryDirectory()
        let (dbQueue, other) = try Self.connections(
            in: directory, schema: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'a')")
        try dbQueue.inDatabase { db in
            #expect(try Item.fetchOne(db, key: 1) == Item(id: 1, name: "a", level: nil))
            try other.write { db in try db.execute(sql: "ALTER TABLE item ADD COLUMN level INTEGER NOT NULL DEFAULT 3") }
            // Read in the same access: the schema cache has not looked again.
            #expect(try Item.fetchOne(db, key: 1) == Item(id: 1, name: "a", level: 3))
        }
    }
}
