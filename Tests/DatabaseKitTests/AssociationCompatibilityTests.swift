import DatabaseKit
import Foundation
import Testing

/// Associations as GRDB's own code uses them beyond record types: tables
/// that name their associations, functions of aggregates, an association
/// used twice in one request, views, the region an observation tracks, and
/// what a row with prefetched rows equals. The SQL texts are GRDB 7.10's for
/// the same requests.
@Suite("Associations: tables, refinements, regions")
struct AssociationCompatibilityTests {
    typealias Team = AssociationTests.Team
    typealias Player = AssociationTests.Player

    func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    @Test("a Table declares and joins associations as a record type does, to tables or to record types")
    func tableAssociations() throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let teams = Table("team")
            let players = Table("player")
            #expect(
                try sql(db, players.including(required: players.belongsTo(teams)).order(Column("name")))
                    == #"SELECT "player".*, "team".* FROM "player" JOIN "team" ON "team"."id" = "player"."teamId" ORDER BY "player"."name""#
            )
            #expect(
                try sql(db, Player.including(optional: Player.belongsTo(Table("team"))))
                    == #"SELECT "player".*, "team".* FROM "player" LEFT JOIN "team" ON "team"."id" = "player"."teamId""#)
            #expect(
                try sql(db, players.joining(required: players.belongsTo(Team.self).filter(Column("name") == "Reds")))
                    == #"SELECT "player".* FROM "player" JOIN "team" ON ("team"."id" = "player"."teamId") AND ("team"."name" = ?)"#)
            let roster = teams.hasMany(players)
            #expect(
                try sql(db, teams.annotated(with: roster.count).having(roster.isEmpty == false))
                    == #"SELECT "team".*, COUNT(DISTINCT "player"."id") AS "playerCount" FROM "team" LEFT JOIN "player" ON "player"."teamId" = "team"."id" GROUP BY "team"."id" HAVING COUNT(DISTINCT "player"."id") > 0"#
            )
            // The prefetch decodes under the table's plural name.
            let rows = try teams.including(all: roster.order(Column("id"))).order(Column("id")).fetchAll(db)
            #expect(rows.map { $0.prefetchedRows["players"]?.count } == [2, 1, 0])
            let names = rows[0].prefetchedRows["players"]?.map { $0["name"] as String }
            #expect(names == ["Ann", "Bob"])
        }
    }

    @Test("abs, length and cast of an aggregate; cast keeps its key; nil === an aggregate tests it for NULL")
    func aggregateFunctions() throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let join = #"FROM "team" LEFT JOIN "player" ON "player"."teamId" = "team"."id" GROUP BY "team"."id""#
            #expect(
                try sql(db, Team.annotated(with: abs(Team.players.sum(Column("score")))))
                    == #"SELECT "team".*, ABS(SUM("player"."score")) "# + join)
            #expect(
                try sql(db, Team.annotated(with: length(Team.players.min(Column("name")))))
                    == #"SELECT "team".*, LENGTH(MIN("player"."name")) "# + join)
            #expect(
                try sql(db, Team.annotated(with: cast(Team.players.count, as: .text)))
                    == #"SELECT "team".*, CAST(COUNT(DISTINCT "player"."id") AS TEXT) AS "playerCount" "# + join)
            #expect(
                try sql(db, Team.having(nil === Team.players.max(Column("score"))))
                    == #"SELECT "team".* "# + join + #" HAVING MAX("player"."score") IS NULL"#)
            let counts = try Team.annotated(with: cast(Team.players.count, as: .text)).order(Column("id")).asRequest(of: Row.self)
                .fetchAll(db).map { $0["playerCount"] as String }
            #expect(counts == ["2", "1", "0"])
        }
    }

    @Test("an association used twice: the later selection replaces the earlier unless it selects nothing, the later ordering wins")
    func refinedTwice() throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let both = #"SELECT "player".*, "team".* FROM "player" JOIN "team" ON "team"."id" = "player"."teamId""#
            #expect(try sql(db, Player.including(required: Player.team.select(Column("id"))).including(required: Player.team)) == both)
            #expect(try sql(db, Player.including(required: Player.team).joining(required: Player.team.select(Column("name")))) == both)
            let joined = #"SELECT "player".* FROM "player" JOIN "team" ON "team"."id" = "player"."teamId""#
            #expect(
                try sql(
                    db, Player.joining(required: Player.team.order(Column("name"))).joining(required: Player.team.order(Column("id").desc)))
                    == joined + #" ORDER BY "team"."id" DESC"#)
            #expect(
                try sql(db, Player.joining(required: Player.team.order(Column("name"))).joining(required: Player.team))
                    == joined + #" ORDER BY "team"."name""#)
        }
    }

    @Test("TableAlias.exists on a view without a primary key tests every column")
    func viewExistence() throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE VIEW teamView AS SELECT id, name FROM team")
            let alias = TableAlias()
            let teamView = Player.belongsTo(Table("teamView"), using: ForeignKey(["teamId"], to: ["id"]))
            let request = Player.joining(optional: teamView.aliased(alias)).filter(!alias.exists)
            #expect(
                try sql(db, request)
                    == #"SELECT "player".* FROM "player" LEFT JOIN "teamView" ON "teamView"."id" = "player"."teamId" WHERE ("teamView"."id" IS NULL) AND ("teamView"."name" IS NULL)"#
            )
            #expect(try request.fetchAll(db).map(\.name) == ["Dee"])
        }
    }

    @Test("the region of a prefetching request includes the prefetch, unless a part is none(); an observation with no row still tracks it")
    func prefetchRegions() async throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try await dbQueue.read { (db: Database) throws in
            #expect(
                try Team.including(all: Team.players).databaseRegion(db).description
                    == "player(id,name,score,teamId),team(cityCode,id,name)")
            #expect(try Team.none().including(all: Team.players).databaseRegion(db).description == "empty")
            #expect(try Team.including(all: Team.players.none()).databaseRegion(db).description == "team(cityCode,id,name)")
            // What a fetch that found no team records for an observation:
            // the team it looked for, and every player.
            var region = DatabaseRegion()
            _ = try db.recordingSelection(&region) {
                try Team.filter(Column("id") == 99).including(all: Team.players).fetchOne(db)
            }
            #expect(region.description == "player(id,name,score,teamId),team(cityCode,id,name)[99]")
        }
        // The statements of the application, not the schema's: introspection
        // runs PRAGMA statements, which a trace of SELECTs leaves out.
        let selects = AssociationTests.Collected()
        try await dbQueue.read { (db: Database) throws in
            db.trace { event in
                let text = event.description
                if text.contains("SELECT") { selects.append(text) }
            }
            _ = try Team.including(all: Team.players).fetchAll(db)
            db.trace(options: [], nil)
        }
        #expect(selects.values.count == 2 && !selects.values.contains { $0.contains("pragma_") }, "\(selects.values)")
    }

    @Test("prefetched rows count in a row's equality; unscoped drops them; they are never nil and decode as values")
    func prefetchedRows() throws {
        let dbQueue = try AssociationTests.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let rows = try Row.fetchAll(db, Team.including(all: Team.players).order(Column("id")))
            let greens = rows[2]
            #expect(greens.prefetchedRows["players"] == [])
            #expect(greens != greens.unscoped)
            #expect(greens.unscoped == ["id": 3, "name": "Greens", "cityCode": nil])
            #expect(greens.unscoped.prefetchedRows.isEmpty)
            #expect(rows[0] != rows[1] && rows[0] == rows[0].copy())

            struct Scores: Decodable, FetchableRecord {
                var team: Team
                var players: [Int]
                enum CodingKeys: CodingKey { case team, players }
                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    team = try container.decode(Team.self, forKey: .team)
                    // An empty prefetch is an empty array, not nil.
                    players = try container.decodeNil(forKey: .players) ? [-1] : try container.decode([Int].self, forKey: .players)
                }
            }
            let scores = try Team.including(all: Team.players.select(Column("score")).order(Column("score"))).order(Column("id"))
                .asRequest(of: Scores.self).fetchAll(db)
            #expect(scores.map(\.players) == [[10, 30], [20], []])
        }
    }
}
