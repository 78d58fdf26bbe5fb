import DatabaseKit
import Foundation
import Testing

/// The schema definition calls GRDB documents: belongsTo, primary key
/// bodies, views, indexes on expressions, literal columns and constraints.
@Suite("Schema definition: belongsTo, primary key bodies, views, indexes")
struct SchemaDefinitionTests {
    private func sql(_ db: Database, _ name: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name])
    }

    @Test("belongsTo names columns after the referenced primary key, finds plural tables, and indexes them")
    func belongsTo() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "teams") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "country") { t in t.primaryKey("code", .text) }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team", onDelete: .cascade)
                t.belongsTo("country").notNull()
                t.belongsTo("captain", inTable: "player", onDelete: .setNull)
                t.belongsTo("mentor", inTable: "player", indexed: false)
            }
            #expect(try db.columns(in: "player").map(\.name) == ["id", "teamId", "countryCode", "captainId", "mentorId"])
            #expect(try db.columns(in: "player").map(\.type) == ["INTEGER", "INTEGER", "TEXT", "INTEGER", "INTEGER"])
            let foreignKeys = try db.foreignKeys(on: "player")
            #expect(Set(foreignKeys.map(\.destinationTable)) == ["teams", "country", "player"])
            #expect(foreignKeys.first { $0.destinationTable == "country" }?.destinationColumns == ["code"])
            #expect(try Set(db.indexes(on: "player").map(\.name)) == [
                "player_on_teamId", "player_on_countryCode", "player_on_captainId",
            ])
            let player = try #require(try sql(db, "player"))
            #expect(player.contains(#""countryCode" TEXT NOT NULL REFERENCES "country"("code")"#))
            #expect(player.contains(#""teamId" INTEGER REFERENCES "teams"("id") ON DELETE CASCADE"#))
            #expect(player.contains(#""captainId" INTEGER REFERENCES "player"("id") ON DELETE SET NULL"#))
            // The foreign keys work.
            try db.execute(sql: "INSERT INTO country VALUES ('FR')")
            expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) {
                try db.execute(sql: "INSERT INTO player (countryCode, teamId) VALUES ('FR', 42)")
            }
            expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "orphan") { t in t.belongsTo("nowhere") }
            }
        }
    }

    @Test("belongsTo a table with a composite primary key adds a table constraint and one index; unique() makes it unique")
    func belongsToCompositeKey() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "passport") { t in
                t.primaryKey {
                    t.column("citizenId", .integer)
                    t.column("countryCode", .text)
                }
                t.column("issueDate", .date)
            }
            #expect(try db.primaryKey("passport").columns == ["citizenId", "countryCode"])
            #expect(try db.columns(in: "passport").filter(\.isNotNull).map(\.name) == ["citizenId", "countryCode"])
            try db.create(table: "visa") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("passport").unique()
            }
            #expect(try db.columns(in: "visa").map(\.name) == ["id", "passportCitizenId", "passportCountryCode"])
            #expect(try db.foreignKeys(on: "visa").first?.mapping.map(\.origin) == ["passportCitizenId", "passportCountryCode"])
            let index = try #require(try db.indexes(on: "visa").first)
            #expect(index.isUnique && index.columns == ["passportCitizenId", "passportCountryCode"])
        }
    }

    @Test("primary key bodies accept belongsTo; a text primary key is NOT NULL; two primary keys are an error")
    func primaryKeys() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "country") { t in t.primaryKey("code", .text) }
            expectDatabaseError(.SQLITE_CONSTRAINT_NOTNULL) { try db.execute(sql: "INSERT INTO country VALUES (NULL)") }
            try db.create(table: "membership") { t in
                t.primaryKey {
                    t.belongsTo("country")
                    t.column("year", .integer)
                }
            }
            #expect(try db.primaryKey("membership").columns == ["countryCode", "year"])
            #expect(try db.indexes(on: "membership").allSatisfy { $0.name.hasPrefix("sqlite_autoindex") })
            let error = expectDatabaseError(.SQLITE_MISUSE) {
                try db.create(table: "twice") { t in
                    t.primaryKey(["a"])
                    t.column("a")
                    t.primaryKey(["a"])
                }
            }
            #expect(error?.message == "can't define several primary keys in table twice")
            #expect(try !db.tableExists("twice"))
        }
    }

    @Test("literal columns and constraints, check closures, generated expressions and JSON column types")
    func literalsAndExpressions() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "item") { t in
                t.column("name", .text).check { SQL("length(\($0)) > \(0)") }
                t.column(literal: "kind TEXT DEFAULT \("it's")")
                t.column("payload", .jsonText)
                t.column("binary", .jsonb)
                t.column("upper", .text).generatedAs(SQL("upper(name)"))
                t.check(SQL("kind <> \("")"))
                t.constraint(literal: "UNIQUE (name, kind)")
            }
            let item = try #require(try sql(db, "item"))
            #expect(item.contains(#"CHECK (length("name") > 0)"#))
            #expect(item.contains("kind TEXT DEFAULT 'it''s'"))
            #expect(item.contains(#""payload" TEXT"#) && item.contains(#""binary" BLOB"#))
            try db.execute(sql: "INSERT INTO item (name) VALUES ('a')")
            #expect(try Row.fetchOne(db, sql: "SELECT kind, upper FROM item") == ["kind": "it's", "upper": "A"])
            expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) { try db.execute(sql: "INSERT INTO item (name) VALUES ('')") }
            #expect(try Double.fetchOne(db, literal: "SELECT \(cast(SQL("'1.5'"), as: .real))") == 1.5)
            try db.alter(table: "item") { t in t.addColumn(literal: "extra INT DEFAULT \(7)") }
            #expect(try Int.fetchOne(db, sql: "SELECT extra FROM item") == 7)
        }
    }

    @Test("views from requests and literals, with column names and options; values are written as literals")
    func views() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT, score INT); INSERT INTO player VALUES ('a', 10), ('b', 200)")
            try db.create(view: "hero", as: SQLRequest<Row>(literal: "SELECT * FROM player WHERE score > \(100)"))
            #expect(try String.fetchAll(db, sql: "SELECT name FROM hero") == ["b"])
            try db.create(view: "named", options: .temporary, columns: ["n"], asLiteral: "SELECT name FROM player")
            #expect(try db.columns(in: "named").map(\.name) == ["n"])
            try db.create(view: "hero", options: .ifNotExists, asLiteral: "SELECT 1")
            expectDatabaseError(.SQLITE_ERROR) { try db.create(view: "hero", asLiteral: "SELECT 1") }
            try db.drop(view: "hero")
            #expect(try !db.viewExists("hero"))
        }
    }

    @Test("indexes on expressions, partial indexes, drop(indexOn:), reindex")
    func indexes() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT, email TEXT)")
            try db.create(index: "lower_name", on: "player", expressions: [SQL("lower(name)")], options: .unique)
            try db.execute(sql: "INSERT INTO player (name) VALUES ('A')")
            expectDatabaseError(.SQLITE_CONSTRAINT_UNIQUE) { try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
            try db.create(indexOn: "player", columns: ["email"], options: .unique, condition: SQL("email IS NOT NULL"))
            try db.execute(sql: "INSERT INTO player (name) VALUES ('b')")  // two NULL emails
            #expect(try db.indexes(on: "player").contains { $0.name == "index_player_on_email" })
            try db.drop(indexOn: "player", columns: ["email"])
            #expect(try !db.indexes(on: "player").contains { $0.name == "index_player_on_email" })
            try db.create(index: "by_name", on: "player", columns: ["name"], unique: false, ifNotExists: true)
            try db.reindex(collation: .nocase)
        }
    }
}
