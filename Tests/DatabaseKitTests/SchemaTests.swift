import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Schema definition and introspection")
struct SchemaTests {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "team") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull().collate(.nocase)
            }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("score", .integer).notNull().defaults(to: 0).check(sql: "score >= 0")
                t.column("teamId", .text).references("team", onDelete: .cascade).indexed()
                t.column("bonus", .double).defaults(to: -1.5)
                t.column("doubled", .integer).generatedAs(sql: "score * 2")
            }
            try db.create(table: "membership", options: [.withoutRowID]) { t in
                t.column("playerId", .integer).notNull()
                t.column("teamId", .text).notNull()
                t.column("role")
                t.primaryKey(["playerId", "teamId"])
                t.foreignKey(["playerId"], references: "player", onDelete: .cascade)
                t.foreignKey(["teamId"], references: "team", columns: ["id"], deferred: true)
            }
            try db.create(index: "player_on_score", on: "player", columns: ["score"])
            try db.create(indexOn: "player", columns: ["name", "score"], options: [.unique, .ifNotExists])
            try db.create(index: "partial", on: "team", columns: ["name"], options: .unique, condition: SQL("id <> ''"))
            try db.execute(sql: "CREATE VIEW ranking AS SELECT name, score FROM player ORDER BY score DESC")
            try db.execute(sql: "CREATE TRIGGER t AFTER INSERT ON player BEGIN SELECT 1; END")
        }
        return dbQueue
    }

    @Test("create(table:) writes the SQL of each option, quoted")
    func createTableSQL() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player'")
            #expect(
                sql == """
                    CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL UNIQUE, \
                    "score" INTEGER NOT NULL CHECK (score >= 0) DEFAULT 0, "teamId" TEXT REFERENCES "team"("id") ON DELETE CASCADE, \
                    "bonus" DOUBLE DEFAULT -1.5, "doubled" INTEGER GENERATED ALWAYS AS (score * 2) VIRTUAL)
                    """)
            #expect(try db.indexExists("player_on_teamId"))
            #expect(try db.table("membership", hasUniqueKey: ["playerId", "teamId"]))
        }
    }

    @Test("existence of tables, views, triggers and indexes, case-insensitive")
    func existence() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            #expect(try db.tableExists("player"))
            #expect(try db.tableExists("PLAYER"))
            #expect(try !db.tableExists("ranking"))
            #expect(try db.viewExists("ranking"))
            #expect(try db.triggerExists("t"))
            #expect(try !db.tableExists("nothing"))
            #expect(try db.tableExists("player", in: "main"))
            #expect(try !db.tableExists("player", in: "temp"))
        }
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "scratch", options: [.temporary, .ifNotExists]) { t in t.column("x") }
            try db.create(table: "scratch", options: [.temporary, .ifNotExists]) { t in t.column("x") }
            #expect(try db.tableExists("scratch"))
            #expect(try db.tableExists("scratch", in: "temp"))
        }
    }

    @Test("columns(in:) reports name, type, not null, default and primary key position")
    func columns() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let columns = try db.columns(in: "player")
            #expect(columns.map(\.name) == ["id", "name", "score", "teamId", "bonus", "doubled"])
            #expect(columns[0].primaryKeyIndex == 1 && columns[0].columnType == .integer)
            #expect(columns[1].isNotNull && columns[1].type == "TEXT")
            #expect(columns[2].defaultValueSQL == "0")
            #expect(columns[4].defaultValueSQL == "-1.5")
            #expect(columns[3].defaultValueSQL == nil && !columns[3].isNotNull)
            #expect(try db.columns(in: "membership").map(\.primaryKeyIndex) == [1, 2, 0])
            #expect(try db.columns(in: "membership")[2].columnType == nil)
            #expect(try db.columns(in: "ranking").map(\.name) == ["name", "score"])
            do {
                _ = try db.columns(in: "nothing")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.message == "no such table: nothing")
            }
        }
    }

    @Test("primaryKey: rowid alias, hidden rowid, composite, text, WITHOUT ROWID integer")
    func primaryKeys() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE plain (a); CREATE TABLE wr (id INTEGER PRIMARY KEY) WITHOUT ROWID")
            let player = try db.primaryKey("player")
            #expect(player.columns == ["id"] && player.rowIDColumn == "id" && player.isRowID)
            let plain = try db.primaryKey("plain")
            #expect(plain.columns == ["rowid"] && plain.rowIDColumn == nil && plain.isRowID)
            #expect(try db.primaryKey("membership").columns == ["playerId", "teamId"])
            let team = try db.primaryKey("team")
            #expect(team.columns == ["id"] && team.rowIDColumn == nil && !team.isRowID)
            let withoutRowID = try db.primaryKey("wr")
            #expect(withoutRowID.columns == ["id"] && withoutRowID.rowIDColumn == nil && !withoutRowID.isRowID)
        }
    }

    @Test("indexes(on:) lists created, unique and primary key indexes")
    func indexes() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let indexes = try db.indexes(on: "player")
            let byName = Dictionary(uniqueKeysWithValues: indexes.map { ($0.name, $0) })
            #expect(byName["player_on_score"]?.columns == ["score"])
            #expect(byName["player_on_score"]?.isUnique == false)
            #expect(byName["player_on_score"]?.origin == .createIndex)
            #expect(byName["index_player_on_name_score"]?.isUnique == true)
            #expect(indexes.contains { $0.origin == .uniqueConstraint && $0.columns == ["name"] })
            #expect(try db.indexes(on: "membership").contains { $0.origin == .primaryKeyConstraint })
            #expect(try db.indexes(on: "team").first { $0.name == "partial" }?.isPartial == true)
            #expect(throws: DatabaseError.self) { try db.indexes(on: "nothing") }
        }
    }

    @Test("table(_:hasUniqueKey:) accepts keys and their supersets, not partial indexes")
    func uniqueKeys() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            #expect(try db.table("player", hasUniqueKey: ["id"]))
            #expect(try db.table("player", hasUniqueKey: ["rowid"]))
            #expect(try db.table("player", hasUniqueKey: ["NAME"]))
            #expect(try db.table("player", hasUniqueKey: ["name", "score"]))
            #expect(try !db.table("player", hasUniqueKey: ["score"]))
            #expect(try !db.table("team", hasUniqueKey: ["name"]))  // only a partial unique index
            #expect(try !db.table("membership", hasUniqueKey: ["playerId"]))
        }
    }

    @Test("foreignKeys(on:) resolves implicit destination columns")
    func foreignKeys() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let player = try db.foreignKeys(on: "player")
            #expect(player.count == 1)
            #expect(player[0].destinationTable == "team")
            #expect(player[0].originColumns == ["teamId"])
            #expect(player[0].destinationColumns == ["id"])
            #expect(player[0].onDelete == "CASCADE")
            let membership = try db.foreignKeys(on: "membership")
            #expect(Set(membership.map(\.destinationTable)) == ["player", "team"])
            #expect(
                membership.flatMap { $0.mapping.map { "\($0.origin)->\($0.destination)" } }.sorted() == [
                    "playerId->id", "teamId->id",
                ])
            #expect(try db.foreignKeys(on: "team").isEmpty)
            #expect(throws: DatabaseError.self) { try db.foreignKeys(on: "nothing") }
        }
    }

    @Test("a foreign key to a table that does not exist is reported, with unknown destination columns")
    func danglingForeignKey() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE orphan (id INTEGER PRIMARY KEY, parentId REFERENCES ghost, otherId REFERENCES ghost2(code))")
            let keys = try db.foreignKeys(on: "orphan")
            #expect(keys.map(\.destinationTable).sorted() == ["ghost", "ghost2"])
            #expect(keys.first { $0.destinationTable == "ghost" }?.destinationColumns == [])
            #expect(keys.first { $0.destinationTable == "ghost2" }?.destinationColumns == ["code"])
        }
    }

    @Test("foreign key violations are listed and thrown")
    func foreignKeyViolations() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let dbQueue = DatabaseQueue(configuration: configuration)
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "team") { t in t.primaryKey("id", .text) }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("teamId", .text).references("team")
            }
            try db.checkForeignKeys()
            try db.execute(sql: "INSERT INTO player (teamId) VALUES ('ghost'), (NULL)")
            let violations = try Array(db.foreignKeyViolations())
            #expect(violations.count == 1)
            #expect(violations[0].originTable == "player")
            #expect(violations[0].originRowID == 1)
            #expect(violations[0].destinationTable == "team")
            #expect(try Array(db.foreignKeyViolations(in: "team")).isEmpty)
            do {
                try db.checkForeignKeys()
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
                #expect(error.message == "FOREIGN KEY constraint violation - from player(teamId) to team(id), in [id:1 teamId:\"ghost\"]")
            }
            try db.checkForeignKeys(in: "team")
        }
    }

    @Test("schemaVersion grows with each change")
    func schemaVersion() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            let before = try db.schemaVersion()
            try db.create(table: "t") { t in t.column("a") }
            #expect(try db.schemaVersion() > before)
        }
    }

    @Test("alter(table:), rename and drop")
    func alterRenameDrop() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { (db: Database) throws in
            try db.alter(table: "team") { t in
                t.add(column: "city", .text).notNull().defaults(to: "Paris")
                t.add(column: "founded", .integer).indexed()
                t.rename(column: "name", to: "title")
                t.addColumn(sql: "motto TEXT")
            }
            #expect(try db.columns(in: "team").map(\.name) == ["id", "title", "city", "founded", "motto"])
            #expect(try db.indexExists("team_on_founded"))
            try db.alter(table: "team") { t in t.drop(column: "motto") }
            #expect(try db.columns(in: "team").map(\.name) == ["id", "title", "city", "founded"])
            try db.rename(table: "team", to: "club")
            #expect(try db.tableExists("club") && !db.tableExists("team"))
            try db.drop(index: "player_on_score")
            try db.drop(view: "ranking")
            try db.drop(table: "membership")
            #expect(try !db.tableExists("membership") && !db.viewExists("ranking") && !db.indexExists("player_on_score"))
        }
    }

    @Test("a failing alteration applies none of its changes")
    func atomicAlteration() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { (db: Database) throws in
            #expect(throws: DatabaseError.self) {
                try db.alter(table: "team") { t in
                    t.add(column: "city", .text)
                    t.drop(column: "nothing")
                }
            }
            #expect(try db.columns(in: "team").map(\.name) == ["id", "name"])
            #expect(throws: DatabaseError.self) {
                try db.create(table: "broken") { t in
                    t.column("a").indexed()
                    t.column("b")
                    t.column("c").references("team")
                    t.constraint(sql: "CHECK (")
                }
            }
            #expect(try !db.tableExists("broken"))
        }
    }

    @Test("identifiers are quoted, so odd names work")
    func quoting() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: #"my "odd" table"#) { t in
                t.column("select", .text).defaults(to: "it's")
                t.column("blob", .blob).defaults(to: Data([0, 255]))
            }
            try db.execute(sql: #"INSERT INTO "my ""odd"" table" DEFAULT VALUES"#)
            let row = try #require(try Row.fetchOne(db, sql: #"SELECT * FROM "my ""odd"" table""#))
            #expect(row["select"] as String == "it's")
            #expect(row["blob"] as Data == Data([0, 255]))
            #expect(#"a"b"#.quotedDatabaseIdentifier == #""a""b""#)
        }
    }

    @Test("schema dump: every object, grouped by table, internal tables excluded")
    func schemaDump() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "b") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("x").indexed()
            }
            try db.create(table: "a") { t in t.column("y") }
            try db.execute(sql: "INSERT INTO b (x) VALUES (1)")  // fills sqlite_sequence
            let text = SchemaText()
            try db.dumpSchema(to: text)
            #expect(
                text.value == """
                    sqlite_master
                    CREATE TABLE "a" ("y");
                    CREATE TABLE "b" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "x");
                    CREATE INDEX "b_on_x" ON "b"("x");

                    """)
        }
    }

    @Test("DatabaseValue.sqlLiteral writes values SQLite reads back")
    func sqlLiterals() throws {
        let dbQueue = DatabaseQueue()
        let values: [DatabaseValue] = [
            .null, 0.databaseValue, Int64.min.databaseValue, 1.5.databaseValue, 1e300.databaseValue,
            (-0.1).databaseValue, "O'Brien".databaseValue, Data([1, 2, 254]).databaseValue, "".databaseValue,
        ]
        try dbQueue.read { (db: Database) throws in
            for value in values {
                #expect(try DatabaseValue.fetchOne(db, sql: "SELECT \(value.sqlLiteral)") == value)
            }
            #expect(try Double.fetchOne(db, sql: "SELECT \(Double.infinity.databaseValue.sqlLiteral)") == .infinity)
        }
    }
}

/// What `dumpSchema(to:)` prints: a class, as the dump takes its stream by value.
private final class SchemaText: TextOutputStream {
    var value = ""
    func write(_ string: String) { value += string }
}
