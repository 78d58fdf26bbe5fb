import DatabaseKit
import Foundation
import Testing

/// Shapes of real GRDB application code that must behave as with GRDB:
/// schema definitions whose indexes later migrations name, raw SQL joins
/// split per record, partial indexes written with `!= nil`.
@Suite("Real GRDB code: schema definitions and raw joins behave as with GRDB")
struct RealCodeShapesTests {
    @Test("a column both unique and indexed stays unique: a duplicate is refused")
    func uniqueIndexed() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "account") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("email", .text).notNull().unique().indexed()
                t.column("handle", .text).indexed().unique()
            }
            try db.execute(sql: "INSERT INTO account (email, handle) VALUES ('a@example.com', 'a')")
            #expect {
                try db.execute(sql: "INSERT INTO account (email, handle) VALUES ('a@example.com', 'b')")
            } throws: { error in
                (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO account (email, handle) VALUES ('b@example.com', 'a')") }
            // The UNIQUE constraint is the index: no second one.
            #expect(try db.indexes(on: "account").map(\.name).sorted() == ["sqlite_autoindex_account_1", "sqlite_autoindex_account_2"])
        }
    }

    @Test("indexes of indexed columns and of foreign keys have GRDB's names, which later migrations drop")
    func indexNames() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "team") { t in t.primaryKey("id", .text) }
            try db.create(table: "country") { t in
                t.column("code", .text)
                t.column("region", .text)
                t.primaryKey(["code", "region"])
            }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).indexed()
                t.belongsTo("team")
                t.belongsTo("country")
            }
            try db.create(indexOn: "player", columns: ["name", "teamId"])
            let names = try db.indexes(on: "player").map(\.name).sorted()
            #expect(names == ["index_player_on_countryCode_countryRegion", "index_player_on_name_teamId", "player_on_name", "player_on_teamId"])
            try db.alter(table: "player") { t in t.add(column: "nickname", .text).indexed() }
            #expect(try db.indexExists("player_on_nickname"))
            // What a later migration of a GRDB app does.
            try db.drop(index: "player_on_name")
            try db.drop(index: "player_on_teamId")
        }
    }

    @Test("numberOfSelectedColumns splits the rows of a raw SQL join per record")
    func splitJoin() throws {
        struct Book: FetchableRecord, TableRecord, Decodable {
            var id: Int64
            var title: String
            var authorId: Int64
        }
        struct Author: FetchableRecord, TableRecord, Decodable {
            var id: Int64
            var name: String
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, authorId INTEGER REFERENCES author(id));
                    INSERT INTO author VALUES (1, 'Ursula'), (2, 'Terry');
                    INSERT INTO book VALUES (10, 'Earthsea', 1), (11, 'Mort', 2);
                    """)
            #expect(try Book.numberOfSelectedColumns(db) == 3)
            #expect(try Author.numberOfSelectedColumns(db) == 2)
            let adapters = try splittingRowAdapters(columnCounts: [Book.numberOfSelectedColumns(db), Author.numberOfSelectedColumns(db)])
            let adapter = ScopeAdapter([
                "book": adapters[0],
                "author": adapters[1],
            ])
            let rows = try Row.fetchAll(
                db, sql: "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.id", adapter: adapter)
            let pairs = try rows.map { row in try (Book(row: row.scopes["book"]!).title, Author(row: row.scopes["author"]!).name) }
            #expect(pairs.map(\.0) == ["Earthsea", "Mort"])
            #expect(pairs.map(\.1) == ["Ursula", "Terry"])
        }
    }

    @Test("a partial index written `Column(\"x\") != nil` is `WHERE \"x\" IS NOT NULL`, not `WHERE 1`")
    func partialIndex() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "message") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("remoteId", .text)
            }
            try db.create(index: "message_remoteId", on: "message", columns: ["remoteId"], options: .unique, condition: Column("remoteId") != nil)
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'message_remoteId'")
            #expect(sql == #"CREATE UNIQUE INDEX "message_remoteId" ON "message"("remoteId") WHERE "remoteId" IS NOT NULL"#)
            // Several NULLs are allowed; a duplicate value is not.
            try db.execute(sql: "INSERT INTO message (remoteId) VALUES (NULL), (NULL), ('a')")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO message (remoteId) VALUES ('a')") }
        }
    }

    @Test("defaults are written as GRDB writes them: DEFAULT -1, DEFAULT CURRENT_TIMESTAMP")
    func defaults() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "t") { t in
                t.column("a", .integer).defaults(to: -1)
                t.column("b", .double).defaults(to: -1.5)
                t.column("c", .text).defaults(to: "it's")
                t.column("d", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
            }
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 't'")
            #expect(
                sql == #"CREATE TABLE "t" ("a" INTEGER DEFAULT -1, "b" DOUBLE DEFAULT -1.5, "c" TEXT DEFAULT 'it''s', "d" DATETIME DEFAULT CURRENT_TIMESTAMP)"#)
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            let row = try Row.fetchOne(db, sql: "SELECT a, b, c FROM t")
            #expect(row == ["a": -1, "b": -1.5, "c": "it's"])
        }
    }
}
