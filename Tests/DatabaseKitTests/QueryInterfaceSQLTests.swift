import DatabaseKit
import Foundation
import Testing

/// The SQL of query interface requests, character for character: GRDB's
/// text for the same request, since applications log and compare it.
@Suite("Query interface: the SQL of requests")
struct QueryInterfaceSQLTests {
    struct Player: Codable, FetchableRecord, PersistableRecord, Identifiable, Hashable {
        var id: Int64
        var name: String
        var score: Int
        var teamId: String?

        enum Columns {
            static let id = Column(CodingKeys.id)
            static let name = Column(CodingKeys.name)
            static let score = Column(CodingKeys.score)
            static let teamId = Column(CodingKeys.teamId)
        }
    }

    struct Citizenship: TableRecord {
        static let databaseTableName = "citizenship"
    }

    static func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, teamId TEXT);
                    CREATE UNIQUE INDEX player_name ON player(name);
                    CREATE TABLE citizenship (citizenId INTEGER NOT NULL, countryCode TEXT NOT NULL, since INTEGER,
                                              PRIMARY KEY (citizenId, countryCode));
                    CREATE VIEW best AS SELECT * FROM player WHERE score > 100;
                    """)
        }
        return dbQueue
    }

    /// The statement's SQL and arguments, as a fetch of the request runs it.
    func sql(_ db: Database, _ request: some FetchRequest, single: Bool = false) throws -> String {
        let statement = try request.makePreparedRequest(db, forSingleResult: single).statement
        return statement.arguments.isEmpty ? statement.sql : "\(statement.sql) \(statement.arguments)"
    }

    /// The last SQL the connection ran, values inlined.
    func lastSQL(_ db: Database, _ run: () throws -> Void) throws -> String? {
        let collected = SQLCollector()
        db.trace { collected.append($0.expandedDescription) }
        defer { db.trace(options: [], nil) }
        try run()
        return collected.last
    }

    final class SQLCollector: @unchecked Sendable {
        private var statements: [String] = []
        func append(_ sql: String) { statements.append(sql) }
        var last: String? { statements.last }
    }

    @Test("select, filter, order, group, having, limit, distinct: the clauses in GRDB's words")
    func clauses() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            #expect(try sql(db, Player.all()) == #"SELECT * FROM "player""#)
            #expect(try sql(db, Table("player").all()) == #"SELECT * FROM "player""#)
            #expect(try sql(db, Player.select(Column("name"), Column("score"))) == #"SELECT "name", "score" FROM "player""#)
            #expect(try sql(db, Player.select(Column("name"), as: String.self)) == #"SELECT "name" FROM "player""#)
            #expect(try sql(db, Player.filter(Column("score") > 10)) == #"SELECT * FROM "player" WHERE "score" > ? [10]"#)
            #expect(
                try sql(db, Player.filter(Column("score") > 10).filter(Column("name") != "Arthur"))
                    == #"SELECT * FROM "player" WHERE ("score" > ?) AND ("name" <> ?) [10, "Arthur"]"#)
            #expect(
                try sql(db, Player.filter(Column("score") > 10 && Column("score") < 20 || Column("teamId") == nil))
                    == #"SELECT * FROM "player" WHERE (("score" > ?) AND ("score" < ?)) OR ("teamId" IS NULL) [10, 20]"#)
            #expect(try sql(db, Player.order(Column("score").desc, Column("name"))) == #"SELECT * FROM "player" ORDER BY "score" DESC, "name""#)
            #expect(try sql(db, Player.order(Column("score").desc).reversed()) == #"SELECT * FROM "player" ORDER BY "score" ASC"#)
            #expect(try sql(db, Player.order(Column("score").ascNullsLast).reversed()) == #"SELECT * FROM "player" ORDER BY "score" DESC NULLS FIRST"#)
            #expect(try sql(db, Player.order(Column("score")).order(Column("name"))) == #"SELECT * FROM "player" ORDER BY "name""#)
            #expect(try sql(db, Player.order(Column("score")).unordered()) == #"SELECT * FROM "player""#)
            #expect(try sql(db, Player.all().orderByPrimaryKey()) == #"SELECT * FROM "player" ORDER BY "id""#)
            #expect(try sql(db, Player.limit(10)) == #"SELECT * FROM "player" LIMIT 10"#)
            #expect(try sql(db, Player.limit(10, offset: 20)) == #"SELECT * FROM "player" LIMIT 10 OFFSET 20"#)
            #expect(try sql(db, Player.select(Column("teamId")).distinct()) == #"SELECT DISTINCT "teamId" FROM "player""#)
            #expect(
                try sql(db, Player.select(Column("teamId"), max(Column("score"))).group(Column("teamId")).having(count(Column("id")) > 1))
                    == #"SELECT "teamId", MAX("score") FROM "player" GROUP BY "teamId" HAVING COUNT("id") > ? [1]"#)
            #expect(
                try sql(db, Player.annotated(with: (Column("score") + 1).forKey("next")))
                    == #"SELECT *, "score" + ? AS "next" FROM "player" [1]"#)
            #expect(try sql(db, Player.filter(sql: "score > ?", arguments: [5])) == #"SELECT * FROM "player" WHERE score > ? [5]"#)
            #expect(try sql(db, Player.order(sql: "name")) == #"SELECT * FROM "player" ORDER BY name"#)
            #expect(try sql(db, Player.none()) == #"SELECT * FROM "player" WHERE ? [0]"#)
            #expect(try sql(db, Player.select(AllColumns(excluding: ["teamId"]))) == #"SELECT "id", "name", "score" FROM "player""#)
        }
    }

    @Test("operators and functions: parenthesized operands, IS NULL, NOT, IN, BETWEEN, LIKE, COLLATE")
    func operators() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            func whereClause(_ expression: some SQLSpecificExpressible) throws -> String {
                let full = try sql(db, Player.filter(expression))
                let prefix = #"SELECT * FROM "player" WHERE "#
                #expect(full.hasPrefix(prefix))
                return String(full.dropFirst(prefix.count))
            }
            let score = Column("score"), name = Column("name"), team = Column("teamId")
            #expect(try whereClause(team != nil) == #""teamId" IS NOT NULL"#)
            #expect(try whereClause(team == nil) == #""teamId" IS NULL"#)
            #expect(try whereClause(!(score == 1)) == #""score" <> ? [1]"#)
            #expect(try whereClause(team === "a") == #""teamId" IS ? ["a"]"#)
            #expect(try whereClause(team !== "a") == #""teamId" IS NOT ? ["a"]"#)
            #expect(try whereClause([1, 2, 3].contains(score)) == #""score" IN (?, ?, ?) [1, 2, 3]"#)
            #expect(try whereClause(![1, 2].contains(score)) == #""score" NOT IN (?, ?) [1, 2]"#)
            #expect(try whereClause([7].contains(score)) == #""score" = ? [7]"#)
            #expect(try whereClause([Int]().contains(score)) == #"? [0]"#)
            #expect(try whereClause((1...5).contains(score)) == #""score" BETWEEN ? AND ? [1, 5]"#)
            #expect(try whereClause(!(1...5).contains(score)) == #""score" NOT BETWEEN ? AND ? [1, 5]"#)
            #expect(try whereClause((1..<5).contains(score)) == #"("score" >= ?) AND ("score" < ?) [1, 5]"#)
            #expect(try whereClause(name.like("A%")) == #""name" LIKE ? ["A%"]"#)
            #expect(try whereClause(!name.like("A%")) == #""name" NOT LIKE ? ["A%"]"#)
            #expect(try whereClause(name.collating(.nocase) == "arthur") == #""name" = ? COLLATE NOCASE ["arthur"]"#)
            #expect(try whereClause(["a", "b"].contains(name.collating(.nocase))) == #"("name" COLLATE NOCASE) IN (?, ?) ["a", "b"]"#)
            #expect(try whereClause(score * 2 + 1 > score - 1) == #"(("score" * ?) + ?) > ("score" - ?) [2, 1, 1]"#)
            #expect(try whereClause(-score < 0) == #"(-"score") < ? [0]"#)
            #expect(try whereClause(score / 2 >= abs(score)) == #"("score" / ?) >= ABS("score") [2]"#)
            #expect(try whereClause(length(name) > 3) == #"LENGTH("name") > ? [3]"#)
            #expect(try whereClause((team ?? "none") == "none") == #"IFNULL("teamId", ?) = ? ["none", "none"]"#)
            #expect(try whereClause(coalesce([team, name]) != "x") == #"COALESCE("teamId", "name") <> ? ["x"]"#)
            #expect(try whereClause(score & 1 == 1) == #"("score" & ?) = ? [1, 1]"#)
            // `= 1` and `= 0` let SQLite use an index of the column.
            #expect(try whereClause(team == true) == #""teamId" = ? [1]"#)
            #expect(try whereClause(team == false) == #""teamId" = ? [0]"#)
            #expect(try whereClause(!team) == #"NOT "teamId""#)
            #expect(try whereClause([score, 1.databaseValue].joined(operator: .add) > 2) == #"("score" + ?) > ? [1, 2]"#)
            #expect(try whereClause(Player.select(Column("id")).filter(score > 100).contains(Column("id")))
                == #""id" IN (SELECT "id" FROM "player" WHERE "score" > ?) [100]"#)
            #expect(try whereClause(Player.filter(score > 100).exists()) == #"EXISTS (SELECT * FROM "player" WHERE "score" > ?) [100]"#)
            #expect(try whereClause(!Player.filter(score > 100).exists()) == #"NOT EXISTS (SELECT * FROM "player" WHERE "score" > ?) [100]"#)
        }
    }

    @Test("aggregates and functions in selections")
    func aggregates() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            let score = Column("score")
            #expect(try sql(db, Player.select(count(score), count(distinct: score), sum(score), total(score), average(score), min(score)))
                == #"SELECT COUNT("score"), COUNT(DISTINCT "score"), SUM("score"), TOTAL("score"), AVG("score"), MIN("score") FROM "player""#)
            #expect(try sql(db, Player.select(max(score, 10))) == #"SELECT MAX("score", ?) FROM "player" [10]"#)
            #expect(try sql(db, Player.select(sum(score, filter: score > 0))) == #"SELECT SUM("score") FILTER (WHERE "score" > ?) FROM "player" [0]"#)
            #expect(try sql(db, Player.select(cast(score, as: .text))) == #"SELECT CAST("score" AS TEXT) FROM "player""#)
            #expect(try sql(db, Player.select(Column("name").lowercased)) == #"SELECT swiftLowercaseString("name") FROM "player""#)
            #expect(try sql(db, Player.select(dateTime(Column("name"), .startOfDay))) == #"SELECT DATETIME("name", ?) FROM "player" ["start of day"]"#)
        }
    }

    @Test("keys: the primary key read from the schema, unique keys in their index's order, LIMIT 1 only when needed")
    func keys() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            #expect(try sql(db, Player.filter(id: 1)) == #"SELECT * FROM "player" WHERE "id" = ? [1]"#)
            #expect(try sql(db, Player.filter(key: 1)) == #"SELECT * FROM "player" WHERE "id" = ? [1]"#)
            #expect(try sql(db, Player.filter(ids: [1, 2, 3])) == #"SELECT * FROM "player" WHERE "id" IN (?, ?, ?) [1, 2, 3]"#)
            #expect(try sql(db, Player.filter(ids: [])) == #"SELECT * FROM "player" WHERE ? [0]"#)
            #expect(try sql(db, Player.filter(key: ["name": "Arthur"])) == #"SELECT * FROM "player" WHERE "name" = ? ["Arthur"]"#)
            #expect(
                try sql(db, Citizenship.filter(key: ["countryCode": "FR", "citizenId": 1]))
                    == #"SELECT * FROM "citizenship" WHERE ("citizenId" = ?) AND ("countryCode" = ?) [1, "FR"]"#)
            // fetchOne: no LIMIT 1 on a unique key, nor for an aggregate.
            #expect(try sql(db, Player.filter(id: 1), single: true) == #"SELECT * FROM "player" WHERE "id" = ? [1]"#)
            #expect(try sql(db, Player.filter(Column("name") == "Arthur"), single: true) == #"SELECT * FROM "player" WHERE "name" = ? ["Arthur"]"#)
            #expect(try sql(db, Player.filter(Column("score") == 1), single: true) == #"SELECT * FROM "player" WHERE "score" = ? LIMIT 1 [1]"#)
            #expect(try sql(db, Player.select(max(Column("score"))), single: true) == #"SELECT MAX("score") FROM "player""#)
            #expect(try sql(db, Table("best").filter(Column("id") == 1), single: true) == #"SELECT * FROM "best" WHERE "id" = ? LIMIT 1 [1]"#)
            #expect(try sql(db, Player.all(), single: true) == #"SELECT * FROM "player" LIMIT 1"#)
        }
    }

    @Test("counts: COUNT(*) where the selection allows it, COUNT(DISTINCT x), else a count of the whole request")
    func counts() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            func countSQL(_ request: some FetchRequest) throws -> String? {
                try lastSQL(db) { _ = try request.fetchCount(db) }
            }
            #expect(try countSQL(Player.all()) == #"SELECT COUNT(*) FROM "player""#)
            #expect(try countSQL(Player.filter(Column("score") > 1).order(Column("name"))) == #"SELECT COUNT(*) FROM "player" WHERE "score" > 1"#)
            #expect(try countSQL(Player.select(Column("name")).distinct()) == #"SELECT COUNT(DISTINCT "name") FROM "player""#)
            #expect(try countSQL(Player.select(Column("name"), Column("score"))) == #"SELECT COUNT(*) FROM "player""#)
            #expect(try countSQL(Player.all().distinct()) == #"SELECT COUNT(*) FROM (SELECT DISTINCT * FROM "player")"#)
            #expect(try countSQL(Player.limit(2)) == #"SELECT COUNT(*) FROM (SELECT * FROM "player" LIMIT 2)"#)
            #expect(
                try countSQL(Player.select(Column("teamId")).group(Column("teamId")))
                    == #"SELECT COUNT(*) FROM (SELECT "teamId" FROM "player" GROUP BY "teamId")"#)
            #expect(try lastSQL(db) { _ = try Player.all().isEmpty(db) } == #"SELECT EXISTS (SELECT * FROM "player")"#)
        }
    }

    @Test("deletes and updates: the request's filter, the assignments, the conflict resolution")
    func batches() throws {
        try Self.makeDatabase().write { (db: Database) throws in
            #expect(try lastSQL(db) { try Player.filter(Column("score") < 1).deleteAll(db) } == #"DELETE FROM "player" WHERE "score" < 1"#)
            #expect(
                try lastSQL(db) { try Player.filter(Column("teamId") == "red").updateAll(db, Column("score") += 1) }
                    == #"UPDATE "player" SET "score" = "score" + 1 WHERE "teamId" = 'red'"#)
            #expect(
                try lastSQL(db) { try Player.updateAll(db, onConflict: .ignore, Column("score").set(to: 0), Column("teamId").set(to: nil)) }
                    == #"UPDATE OR IGNORE "player" SET "score" = 0, "teamId" = NULL"#)
            #expect(try lastSQL(db) { try Player.updateAll(db) { $0.score.set(to: 2) } } == #"UPDATE "player" SET "score" = 2"#)
            #expect(try lastSQL(db) { try Player.updateAll(db, Column("score") *= 2) } == #"UPDATE "player" SET "score" = "score" * 2"#)
            #expect(try lastSQL(db) { try Player.updateAll(db, Column("score") |= 1) } == #"UPDATE "player" SET "score" = "score" | 1"#)
            #expect(try Player.updateAll(db, [Column("score").noOverwrite]) == 0)
        }
    }

    @Test("record columns in closures, key paths included")
    func closures() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            #expect(try sql(db, Player.filter { $0.score > 10 }) == #"SELECT * FROM "player" WHERE "score" > ? [10]"#)
            #expect(try sql(db, Player.order(\.score.desc)) == #"SELECT * FROM "player" ORDER BY "score" DESC"#)
            #expect(try sql(db, Player.select { [$0.id, $0.name] }) == #"SELECT "id", "name" FROM "player""#)
            #expect(try sql(db, Player.all().filter { $0.name != nil }.order { [$0.score, $0.name.desc] })
                == #"SELECT * FROM "player" WHERE "name" IS NOT NULL ORDER BY "score", "name" DESC"#)
        }
    }

    @Test("common table expressions and subqueries in SQL literals")
    func ctes() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
            #expect(
                try sql(db, Player.with(bestScore).filter(Column("score") == bestScore.all()))
                    == #"WITH "bestScore" AS (SELECT MAX("score") FROM "player") SELECT * FROM "player" WHERE "score" = (SELECT * FROM "bestScore")"#)
            let counter = CommonTableExpression(
                recursive: true, named: "counter", columns: ["n"], sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 3")
            #expect(try counter.all().with(counter).select(Column("n"), as: Int.self).fetchAll(db) == [1, 2, 3])
            // As in GRDB, the interpolated request brings no parentheses of its own.
            let request: SQLRequest<Player> = "SELECT * FROM player WHERE id IN (\(Player.select(Column("id")).filter(Column("score") > 5)))"
            #expect(try sql(db, request) == #"SELECT * FROM player WHERE id IN (SELECT "id" FROM "player" WHERE "score" > ?) [5]"#)
        }
    }
}
