import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Requests, SQL interpolation, statements, errors, conversions and
/// connection-level API, as GRDB documents them.
@Suite("SQL layer: requests, interpolation, statements, errors, conversions")
struct SQLLayerTests {
    struct Player: Codable, FetchableRecord, PersistableRecord, Hashable {
        var id: Int64
        var name: String
        var score: Int
        enum Columns {
            static let name = Column(CodingKeys.name)
            static let score = Column(CodingKeys.score)
        }
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
            for (id, name, score) in [(1, "Arthur", 100), (2, "Barbara", 200), (3, "Craig", 150)] {
                try Player(id: Int64(id), name: name, score: score).insert(db)
            }
        }
        return dbQueue
    }

    // MARK: Requests

    @Test("an untyped SQLRequest fetches rows; typed ones fetch values and records; fetchCount counts")
    func requests() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let rows = SQLRequest(sql: "SELECT * FROM player ORDER BY id")
            #expect(try rows.fetchAll(db).count == 3)
            #expect(try rows.fetchCount(db) == 3)
            let names: SQLRequest<String> = "SELECT name FROM player ORDER BY id"
            #expect(try names.fetchAll(db) == ["Arthur", "Barbara", "Craig"])
            let best = SQLRequest<Player>(literal: "SELECT * FROM player WHERE score > \(120) ORDER BY score DESC")
            #expect(try best.fetchOne(db)?.name == "Barbara")
            #expect(try best.fetchSet(db).count == 2)
            #expect(try Array(best.fetchCursor(db)).count == 2)
            let erased = AnyFetchRequest(best)
            #expect(try erased.fetchCount(db) == 2)
            // The same SQL, decoded differently: the first column as a string.
            #expect(try erased.asRequest(of: String.self).fetchAll(db) == ["2", "3"])
            let adapted = SQLRequest<Row>(sql: "SELECT 0 AS junk, name FROM player ORDER BY id").adapted(SuffixRowAdapter(fromIndex: 1))
            #expect(try adapted.fetchOne(db) == ["name": "Arthur"])
            let cached = SQLRequest<Int>(sql: "SELECT COUNT(*) FROM player", cached: true)
            #expect(try cached.fetchOne(db) == 3)
            #expect(try Player.fetchAll(db, best) == best.fetchAll(db))
            #expect(try Row.fetchOne(db, SQLRequest<Row>(sql: "SELECT 1 AS one")) == ["one": 1])
        }
    }

    @Test("every fetch method has a literal: variant")
    func literalFetches() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let minimum = 120
            #expect(try Row.fetchAll(db, literal: "SELECT * FROM player WHERE score > \(minimum)").count == 2)
            #expect(try Int.fetchOne(db, literal: "SELECT COUNT(*) FROM player WHERE score > \(minimum)") == 2)
            #expect(try String.fetchSet(db, literal: "SELECT name FROM player WHERE id IN \([1, 2])") == ["Arthur", "Barbara"])
            #expect(try Player.fetchCursor(db, literal: "SELECT * FROM player WHERE name = \("Craig")").next()?.id == 3)
            #expect(try Player.fetchOne(db, literal: "SELECT * FROM \(Player.self) WHERE \(Player.Columns.name) = \("Arthur")")?.score == 100)
            #expect(try DatabaseValue.fetchAll(db, literal: "SELECT \(nil as Int?)") == [.null])
        }
    }

    @Test("interpolation of identifiers, columns, orderings, selections, lists, tables and subqueries")
    func interpolations() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let column = "name"
            let query: SQL = """
                SELECT \(identifier: column), \(Player.Columns.score.forKey("points")) FROM \(Player.self) \
                ORDER BY \(Player.Columns.score.desc)
                """
            let (sql, arguments) = try query.build(db)
            #expect(sql == #"SELECT "name", "score" AS "points" FROM "player" ORDER BY "score" DESC"#)
            #expect(arguments.isEmpty)
            #expect(try Row.fetchOne(db, literal: query) == ["name": "Barbara", "points": 200])

            #expect(try SQL("SELECT \(columnsOf: Player.self) FROM player").build(db).sql == #"SELECT "player".* FROM player"#)
            #expect(try SQL("SELECT \(columnsOf: Player.self, tableAlias: "p") FROM player p").build(db).sql == #"SELECT "p".* FROM player p"#)
            let player = Player(id: 1, name: "Arthur", score: 100)
            #expect(try SQL("DELETE FROM \(tableOf: player)").build(db).sql == #"DELETE FROM "player""#)
            #expect(try SQL("\(Player.Columns.name.asc), \(Player.Columns.score.ascNullsLast), \(Player.Columns.score.descNullsFirst)").build(db).sql
                == #""name" ASC, "score" ASC NULLS LAST, "score" DESC NULLS FIRST"#)
            #expect(try SQL("WHERE id IN \([Int]())").build(db).sql == "WHERE id IN (SELECT NULL WHERE NULL)")
            let list = try SQL("WHERE id IN \([1, 2, 3])").build(db)
            #expect(list.sql == "WHERE id IN (?,?,?)" && list.arguments == [1, 2, 3])
            let subquery = SQLRequest<Int>(literal: "SELECT MAX(score) FROM player")
            // As in GRDB, the parentheses of a subquery are written around it.
            #expect(try Int.fetchOne(db, literal: "SELECT id FROM player WHERE score = (\(subquery))") == 2)
            #expect(try String.fetchOne(db, literal: "SELECT \(sql: "'raw'")") == "raw")
            let nested: SQL = "score > \(150)"
            #expect(try String.fetchAll(db, literal: "SELECT name FROM player WHERE \(literal: nested)") == ["Barbara"])
            var composed: SQL = "SELECT name FROM player"
            composed += " WHERE id = \(3)"
            #expect(try String.fetchOne(db, literal: composed) == "Craig")
            #expect(try String.fetchOne(db, literal: ["SELECT", "'joined'"].joined(separator: " ")) == "joined")
            #expect(try String.fetchAll(db, literal: "SELECT name FROM player ORDER BY name COLLATE \(Database.CollationName.nocase) DESC").first == "Craig")
        }
    }

    // MARK: Statements

    @Test("Statement.sql is trimmed of spaces and semicolons; arguments are settable and checked at execution")
    func statements() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let statement = try db.makeStatement(sql: "  SELECT name FROM player WHERE id = ? ; \n")
            #expect(statement.sql == "SELECT name FROM player WHERE id = ?")
            statement.arguments = [2]
            #expect(try String.fetchOne(statement) == "Barbara")
            statement.arguments = [1, 2]
            let error = expectDatabaseError(.SQLITE_MISUSE) { try String.fetchOne(statement) }
            #expect(error?.message == "wrong number of statement arguments: 2")
            let named = try db.makeStatement(sql: "SELECT :a + :b")
            let missing = expectDatabaseError(.SQLITE_MISUSE) { try Int.fetchOne(named, arguments: ["a": 1]) }
            #expect(missing?.message == "missing statement argument: b")
            #expect(try Int.fetchOne(named, arguments: ["a": 1, "b": 2, "unused": 3]) == 3)
            let multiple = expectDatabaseError(.SQLITE_MISUSE) { try db.makeStatement(sql: "SELECT 1; SELECT 2") }
            #expect(
                multiple?.message
                    == "Multiple statements found. To execute multiple statements, use Database.execute(sql:) or Database.allStatements(sql:) instead.")
            let traced = Locked<[String]>([])
            db.trace { event in traced.withLock { $0.append("\(event)") } }
            try db.execute(sql: "UPDATE player SET score = score;  ")
            db.trace(options: [], nil)
            #expect(traced.current == ["UPDATE player SET score = score"])
        }
    }

    // MARK: Errors

    @Test("errors: codes, messages, expanded descriptions, SQLite limits and versions")
    func errors() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let error = expectDatabaseError(.SQLITE_CONSTRAINT) {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (?, ?)", arguments: [1, "dup"])
            }
            #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            #expect(error?.message == "UNIQUE constraint failed: player.id")
            #expect(error?.sql == "INSERT INTO player (id, name) VALUES (?, ?)")
            #expect(
                error?.expandedDescription
                    == #"SQLite error 19: UNIQUE constraint failed: player.id - while executing `INSERT INTO player (id, name) VALUES (?, ?)` with arguments [1, "dup"]"#)
            #expect(error?.description.contains("dup") == false)
            #expect(error?.isInterruptionError == false)
            #expect(db.lastErrorCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            #expect(db.lastErrorMessage == "UNIQUE constraint failed: player.id")
            #expect(db.maximumStatementArgumentCount >= 999)
            #expect(Database.sqliteLibVersionNumber >= 3_035_000)
            #expect(DatabaseError(resultCode: .SQLITE_INTERRUPT).isInterruptionError)
            #expect(DatabaseError(resultCode: .SQLITE_ABORT).isInterruptionError)
        }
    }

    @Test("Configuration.acceptsDoubleQuotedStringLiterals: refused by default, as GRDB")
    func doubleQuotedStrings() throws {
        let dbQueue = DatabaseQueue()
        expectDatabaseError(.SQLITE_ERROR) { try dbQueue.read { db in try String.fetchOne(db, sql: #"SELECT "text""#) } }
        var config = Configuration()
        config.acceptsDoubleQuotedStringLiterals = true
        let permissive = DatabaseQueue(configuration: config)
        #expect(try permissive.read { db in try String.fetchOne(db, sql: #"SELECT "text""#) } == "text")
    }

    @Test("Database.logError receives SQLite's error log")
    func logError() throws {
        // The log is process-wide: a message of this test is recognized by its text.
        let marker = "dbkit_log_probe_\(UUID().uuidString.prefix(8))"
        let log = Locked<[String]>([])
        Database.logError = { _, message in
            if message.contains(marker) { log.withLock { $0.append(message) } }
        }
        defer { Database.logError = nil }
        let dbQueue = DatabaseQueue()
        _ = try? dbQueue.read { db in try db.execute(sql: "SELECT * FROM \(marker)") }
        #expect(log.current.contains { $0.contains("no such table: \(marker)") })
    }

    // MARK: Conversions

    @Test("conversions follow SQLite's rules as GRDB does: strings from numbers, booleans from text")
    func conversions() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT 42") == "42")
            #expect(try String.fetchOne(db, sql: "SELECT 1.5") == "1.5")
            #expect(try Bool.fetchOne(db, sql: "SELECT 'true'") == false)  // SQLite: 'true' is 0
            #expect(try Bool.fetchOne(db, sql: "SELECT '1'") == true)
            #expect(try Int.fetchOne(db, sql: "SELECT 2.9") == 2)
            #expect(try Row.fetchOne(db, sql: "SELECT NULL AS a, 2 AS b, 3 AS c")?.coalesce(["a", "b", "c"]) == 2 as Int?)
            #expect(try Row.fetchOne(db, sql: "SELECT NULL AS a")?.coalesce([Column("a")]) == nil as Int?)
        }
        #expect(DatabaseValue(value: NSNull()) == .null)
        #expect(DatabaseValue(value: "x" as NSString) == "x".databaseValue)
        #expect(StatementArguments([1 as Any, "a" as Any]) == [1, "a"])
        #expect(StatementArguments(["a": 1 as Any] as [AnyHashable: Any]) == ["a": 1])
        #expect(StatementArguments([Date() as Any, NSObject() as Any]) == nil)
    }

    // MARK: Collations

    @Test("collations: the built-ins, a custom one, removal")
    func collations() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE word (w TEXT); INSERT INTO word VALUES ('b'), ('A'), ('a'), ('B')")
            db.add(collation: .caseInsensitiveCompare)
            let sorted = try String.fetchAll(db, literal: "SELECT w FROM word ORDER BY w COLLATE \(DatabaseCollation.caseInsensitiveCompare), w")
            #expect(sorted == ["A", "a", "B", "b"])
            let byLength = DatabaseCollation("byLength") { lhs, rhs in
                lhs.count == rhs.count ? .orderedSame : (lhs.count < rhs.count ? .orderedAscending : .orderedDescending)
            }
            db.add(collation: byLength)
            try db.execute(sql: "INSERT INTO word VALUES ('ccc'), ('dd')")
            #expect(try String.fetchAll(db, sql: "SELECT w FROM word ORDER BY w COLLATE byLength DESC, w LIMIT 2") == ["ccc", "dd"])
            db.remove(collation: byLength)
            expectDatabaseError(.SQLITE_ERROR) { try db.execute(sql: "SELECT w FROM word ORDER BY w COLLATE byLength") }
            for collation in [
                DatabaseCollation.unicodeCompare, .caseInsensitiveCompare, .localizedCaseInsensitiveCompare, .localizedCompare,
                .localizedStandardCompare,
            ] {
                #expect(try Int.fetchOne(db, literal: "SELECT 'a' = 'a' COLLATE \(collation)") == 1, "\(collation.name)")
            }
        }
    }

    // MARK: Introspection

    @Test("introspection finds tables of attached databases, temp first, main shadowing attached; unknown schemas are errors")
    func attachedIntrospection() throws {
        let directory = TemporaryDirectory()
        let other = try DatabaseQueue(path: directory.file("other.sqlite"))
        try other.write { db in try db.execute(sql: "CREATE TABLE remote (id INTEGER PRIMARY KEY, x); CREATE TABLE shared (a)") }
        try other.close()
        let dbQueue = try directory.makeQueue()
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE shared (b, c)")
            try db.execute(sql: "ATTACH DATABASE ? AS other", arguments: [directory.file("other.sqlite")])
            #expect(try db.tableExists("remote"))
            #expect(try db.primaryKey("remote").columns == ["id"])
            #expect(try db.columns(in: "shared").map(\.name) == ["b", "c"])
            #expect(try db.columns(in: "shared", in: "other").map(\.name) == ["a"])
            let error = expectDatabaseError(.SQLITE_ERROR) { try db.columns(in: "shared", in: "nowhere") }
            #expect(error?.message == "no such schema: nowhere")
            try db.execute(sql: "CREATE TEMP TABLE shared (temp)")
            #expect(try db.columns(in: "shared").map(\.name) == ["temp"])
        }
    }

    @Test("views have no primary key unless a schema source gives one; expression indexes are not unique keys")
    func viewsAndExpressionIndexes() throws {
        struct ViewKeys: DatabaseSchemaSource {
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
                view.name == "hero" ? ["id"] : nil
            }
        }
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE VIEW hero AS SELECT * FROM player WHERE score > 120; CREATE UNIQUE INDEX lower_name ON player(lower(name))")
            let error = expectDatabaseError(.SQLITE_ERROR) { try db.primaryKey("hero") }
            #expect(error?.message == "database view hero has no primary key")
            #expect(try db.indexes(on: "player").allSatisfy { $0.name != "lower_name" })
            #expect(try !db.table("player", hasUniqueKey: ["name"]))
            try db.withSchemaSource(ViewKeys()) { () throws in
                #expect(try db.primaryKey("hero").columns == ["id"])
                #expect(try Player.fetchOne(db, literal: "SELECT * FROM hero WHERE id = \(2)")?.name == "Barbara")
            }
        }
    }
}
