import DatabaseKit
import Foundation
import Testing

/// Associations: the SQL of joined and prefetched requests (GRDB's text for
/// the same request), the records decoded from them, and the errors a wrong
/// declaration gets instead of a crash.
@Suite("Associations: joins, prefetches, aliases")
struct AssociationTests {
    struct Team: Codable, FetchableRecord, PersistableRecord, Hashable {
        var id: Int64
        var name: String
        var cityCode: String?
        static let players = hasMany(Player.self)
        static let city = belongsTo(City.self, using: ForeignKey(["cityCode"]))
        static let awards = hasMany(Award.self, through: players, using: Player.awards)
    }

    struct Player: Codable, FetchableRecord, PersistableRecord, Hashable {
        var id: Int64
        var teamId: Int64?
        var name: String
        var score: Int
        static let team = belongsTo(Team.self)
        static let awards = hasMany(Award.self)
        static let city = hasOne(City.self, through: team, using: Team.city)
    }

    struct Award: Codable, FetchableRecord, PersistableRecord, Hashable {
        var id: Int64
        var playerId: Int64
        var title: String
        static let player = belongsTo(Player.self)
    }

    struct City: Codable, FetchableRecord, PersistableRecord, Hashable {
        var code: String
        var name: String
    }

    struct Employee: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var managerId: Int64?
        static let manager = belongsTo(Employee.self, key: "manager", using: ForeignKey(["managerId"]))
        static let reports = hasMany(Employee.self, key: "reports", using: ForeignKey(["managerId"]))
    }

    struct Shelf: Codable, FetchableRecord, PersistableRecord {
        var room: Int
        var position: Int
        static let boxes = hasMany(Box.self)
    }

    struct Box: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var room: Int
        var position: Int
    }

    struct PlayerWithTeam: Decodable, FetchableRecord {
        var player: Player
        var team: Team?
    }

    struct TeamWithPlayers: Decodable, FetchableRecord {
        var team: Team
        var players: [Player]
    }

    static func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE city (code TEXT PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cityCode TEXT);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id), name TEXT NOT NULL, score INTEGER NOT NULL);
                    CREATE TABLE award (id INTEGER PRIMARY KEY, playerId INTEGER NOT NULL REFERENCES player(id), title TEXT NOT NULL);
                    CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER REFERENCES employee(id));
                    CREATE TABLE shelf (room INTEGER, position INTEGER, PRIMARY KEY (room, position));
                    CREATE TABLE box (id INTEGER PRIMARY KEY, room INTEGER, position INTEGER, FOREIGN KEY (room, position) REFERENCES shelf(room, position));
                    INSERT INTO city VALUES ('LYS', 'Lyon'), ('MRS', 'Marseille');
                    INSERT INTO team VALUES (1, 'Reds', 'LYS'), (2, 'Blues', 'MRS'), (3, 'Greens', NULL);
                    INSERT INTO player VALUES (1, 1, 'Ann', 10), (2, 1, 'Bob', 30), (3, 2, 'Cid', 20), (4, NULL, 'Dee', 5);
                    INSERT INTO award VALUES (1, 1, 'MVP'), (2, 3, 'Rookie'), (3, 1, 'Top scorer');
                    INSERT INTO employee VALUES (1, 'Boss', NULL), (2, 'Ann', 1), (3, 'Bob', 1);
                    INSERT INTO shelf VALUES (1, 1), (1, 2);
                    INSERT INTO box VALUES (1, 1, 1), (2, 1, 2), (3, 1, 2);
                    """)
        }
        return dbQueue
    }

    func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    /// The statements a block runs, in order, once the schema is known
    /// (the block runs twice).
    func statements(_ db: Database, _ run: () throws -> Void) throws -> [String] {
        try run()
        let collected = Collected()
        db.trace { event in
            let text = event.description
            if !text.hasPrefix("PRAGMA") { collected.append(text) }
        }
        defer { db.trace(options: [], nil) }
        try run()
        return collected.values
    }

    final class Collected: @unchecked Sendable {
        private(set) var values: [String] = []
        func append(_ value: String) { values.append(value) }
    }

    // MARK: Joins

    @Test("a required to-one join selects both tables, qualified, and decodes the joined record")
    func requiredJoin() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Player.including(required: Player.team).order(Column("name"))
            #expect(
                try sql(db, request)
                    == #"SELECT "player".*, "team".* FROM "player" JOIN "team" ON "team"."id" = "player"."teamId" ORDER BY "player"."name""#
            )
            let rows = try request.asRequest(of: PlayerWithTeam.self).fetchAll(db)
            #expect(rows.map(\.player.name) == ["Ann", "Bob", "Cid"])
            #expect(rows.map { $0.team?.name } == ["Reds", "Reds", "Blues"])
            #expect(try request.fetchCount(db) == 3)
        }
    }

    @Test("an optional join keeps the rows without a match, whose record decodes as nil")
    func optionalJoin() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Player.including(optional: Player.team).order(Column("id"))
            #expect(try sql(db, request).contains(#"LEFT JOIN "team" ON "team"."id" = "player"."teamId""#))
            let rows = try request.asRequest(of: PlayerWithTeam.self).fetchAll(db)
            #expect(rows.map { $0.team?.name } == ["Reds", "Reds", "Blues", nil])
            // The scope is in the row too.
            let row = try request.asRequest(of: Row.self).fetchOne(db)
            #expect(row?.scopes["team"]?["name"] == "Reds")
        }
    }

    @Test("joining filters on the associated table without selecting it; a TableAlias orders by it")
    func joiningAndAlias() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let lyon = Player.joining(required: Player.team.filter(Column("cityCode") == "LYS"))
            #expect(
                try sql(db, lyon)
                    == #"SELECT "player".* FROM "player" JOIN "team" ON ("team"."id" = "player"."teamId") AND ("team"."cityCode" = ?)"#)
            #expect(try lyon.fetchAll(db).map(\.name).sorted() == ["Ann", "Bob"])

            let teamAlias = TableAlias<Team>()
            let ordered = Player.joining(required: Player.team.aliased(teamAlias)).order(teamAlias[Column("name")], Column("score").desc)
            #expect(try ordered.fetchAll(db).map(\.name) == ["Cid", "Bob", "Ann"])

            let named = Player.aliased(TableAlias(name: "p")).filter(Column("score") > 10)
            #expect(try sql(db, named) == #"SELECT "p".* FROM "player" "p" WHERE "p"."score" > ?"#)
            #expect(try named.fetchCount(db) == 2)
        }
    }

    @Test("a table joined to itself gets numbered names, as GRDB writes them")
    func selfJoin() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Employee.including(optional: Employee.manager)
            #expect(
                try sql(db, request)
                    == #"SELECT "employee1".*, "employee2".* FROM "employee" "employee1" LEFT JOIN "employee" "employee2" ON "employee2"."id" = "employee1"."managerId""#
            )
            let managers = try request.asRequest(of: Row.self).fetchAll(db).map { ($0.scopes["manager"]?["name"] as String?) ?? "-" }
            #expect(managers == ["-", "Boss", "Boss"])
        }
    }

    @Test("a to-one association through another joins both tables")
    func hasOneThrough() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Player.including(optional: Player.city).order(Column("id"))
            #expect(
                try sql(db, request)
                    == #"SELECT "player".*, "city".* FROM "player" LEFT JOIN "team" ON "team"."id" = "player"."teamId" LEFT JOIN "city" ON "city"."code" = "team"."cityCode" ORDER BY "player"."id""#
            )
            // The city is joined through the team: a scope of its scope.
            let cities = try request.asRequest(of: Row.self).fetchAll(db).map { ($0.scopesTree["city"]?["name"] as String?) ?? "-" }
            #expect(cities == ["Lyon", "Lyon", "Marseille", "-"])
        }
    }

    @Test("annotated(withRequired:) adds the associated columns to the record's own")
    func annotation() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Player.annotated(withRequired: Player.team.select(Column("name").forKey("teamName"))).order(Column("id"))
            #expect(
                try sql(db, request)
                    == #"SELECT "player".*, "team"."name" AS "teamName" FROM "player" JOIN "team" ON "team"."id" = "player"."teamId" ORDER BY "player"."id""#
            )
            #expect(try request.asRequest(of: Row.self).fetchAll(db).map { $0["teamName"] as String } == ["Reds", "Reds", "Blues"])
        }
    }

    @Test("TableAlias.exists tells the rows an optional join found")
    func aliasExists() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let teamAlias = TableAlias<Team>()
            let free = Player.joining(optional: Player.team.aliased(teamAlias)).filter(!teamAlias.exists)
            #expect(try free.fetchAll(db).map(\.name) == ["Dee"])
        }
    }

    @Test("the ordering of a joined table follows the request: appended, reversed, removed, made stable")
    func joinedOrdering() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let request = Player.including(required: Player.team.order(Column("name"))).order(Column("score"))
            let join = #"SELECT "player".*, "team".* FROM "player" JOIN "team" ON "team"."id" = "player"."teamId""#
            #expect(try sql(db, request) == join + #" ORDER BY "player"."score", "team"."name""#)
            #expect(try sql(db, request.reversed()) == join + #" ORDER BY "player"."score" DESC, "team"."name" DESC"#)
            #expect(try sql(db, request.unordered()) == join)
            #expect(try sql(db, request.unordered().withStableOrder()) == join + #" ORDER BY "player"."id", "team"."id""#)
        }
    }

    @Test("a joined row describes its scopes and its prefetched rows")
    func rowDescription() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let joined = try #require(try Player.including(required: Player.team).asRequest(of: Row.self).fetchOne(db))
            #expect(joined.debugDescription.contains(#"- team: [id:1 name:"Reds" cityCode:"LYS"]"#))
            let prefetched = try #require(try Team.including(all: Team.players).asRequest(of: Row.self).fetchOne(db))
            #expect(prefetched.debugDescription.hasSuffix("+ players: 2 rows"))
        }
    }

    // MARK: Prefetches

    @Test("including(all:) runs one more query for all the rows, and decodes an array per record")
    func prefetch() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            var teams: [TeamWithPlayers] = []
            let ran = try statements(db) {
                teams = try Team.including(all: Team.players.order(Column("score").desc)).asRequest(of: TeamWithPlayers.self).fetchAll(db)
            }
            #expect(
                ran == [
                    #"SELECT * FROM "team""#,
                    #"SELECT *, "teamId" AS "grdb_teamId" FROM "player" WHERE "teamId" IN (?, ?, ?) ORDER BY "score" DESC"#,
                ])
            #expect(teams.map(\.team.name) == ["Reds", "Blues", "Greens"])
            #expect(teams.map { $0.players.map(\.name) } == [["Bob", "Ann"], ["Cid"], []])
            // One record, and the rows view.
            let reds = try Team.filter(key: 1).including(all: Team.players).asRequest(of: Row.self).fetchOne(db)
            #expect(reds?.prefetchedRows["players"]?.count == 2)
            let players: [Player] = reds.map { $0["players"] } ?? []
            #expect(players.count == 2)
        }
    }

    /// A record that keeps the row it was decoded from, and a copy of it.
    struct KeepingPlayer: FetchableRecord {
        var name: String
        var row: Row
        var copy: Row
        init(row: Row) {
            name = row["name"]
            self.row = row
            copy = row.copy()
        }
    }

    @Test("prefetched records each decode their own row; kept copies hold their values, rows compare equal")
    func prefetchedRecordsAndRows() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let rows = try Team.including(all: Team.players.order(Column("id"))).asRequest(of: Row.self).fetchAll(db)
            let kept: [[KeepingPlayer]] = rows.map { $0["players"] }
            #expect(kept.map { $0.map(\.name) } == [["Ann", "Bob"], ["Cid"], []])
            // A copy made while decoding keeps that record's values.
            #expect(kept.map { $0.map { $0.copy["name"] as String } } == [["Ann", "Bob"], ["Cid"], []])
            #expect(kept[0][0].copy == ["id": 1, "teamId": 1, "name": "Ann", "score": 10, "grdb_teamId": 1])
            // The rows view: rows of their own, equal to the rows the query gives.
            let expected = try Row.fetchAll(
                db, sql: #"SELECT *, "teamId" AS "grdb_teamId" FROM "player" WHERE "teamId" = 1 ORDER BY "id""#)
            #expect(rows[0].prefetchedRows["players"] == expected)
            #expect(rows[2].prefetchedRows["players"] == [])
            // Two fetches of the same request give equal rows; other rows differ.
            let again = try Team.including(all: Team.players.order(Column("id"))).asRequest(of: Row.self).fetchAll(db)
            #expect(rows == again)
            #expect(rows[0] != rows[1])
            // Records decoded from the rows view and from the request agree.
            let players: [Player] = rows[0]["players"]
            #expect(players.map(\.name) == ["Ann", "Bob"])
            #expect(try rows[0].decode([Player].self, forKey: "players") == players)
            #expect(Set(rows[0]["players"] as Set<Player>) == Set(players))
        }
    }

    @Test("prefetch keys that are not integers group by value, as SQLite compares them")
    func prefetchKeysOfOtherTypes() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE parent (id PRIMARY KEY, name TEXT);
                    CREATE TABLE child (id INTEGER PRIMARY KEY, parentId REFERENCES parent(id), name TEXT);
                    INSERT INTO parent VALUES (1, 'integer'), ('b', 'text'), (2.5, 'real'), (NULL, 'null');
                    INSERT INTO child VALUES (1, 1.0, 'real one'), (2, 'b', 'bee'), (3, 2.5, 'two and a half'), (4, 1, 'one'), (5, NULL, 'orphan');
                    """)
        }
        struct Parent: TableRecord { static let children = hasMany(Table("child"), using: ForeignKey(["parentId"])) }
        try dbQueue.read { (db: Database) throws in
            let rows = try Parent.including(all: Parent.children.order(Column("id"))).asRequest(of: Row.self).fetchAll(db)
            let names = rows.map { ($0["name"] as String, ($0.prefetchedRows["children"] ?? []).map { $0["name"] as String }) }
            #expect(names.map(\.0) == ["integer", "text", "real", "null"])
            #expect(names.map(\.1) == [["real one", "one"], ["bee"], ["two and a half"], []])
        }
    }

    @Test("integer prefetch keys: two rows of one key share its group, interleaved rows keep the query's order, a REAL key still groups")
    func prefetchIntegerKeys() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE parent (id INTEGER PRIMARY KEY, code INTEGER, name TEXT);
                    CREATE TABLE child (id INTEGER PRIMARY KEY, code, name TEXT);
                    INSERT INTO parent VALUES (1, 30, 'thirty'), (2, 10, 'ten'), (3, 30, 'thirty again'), (4, NULL, 'none'), (5, 99, 'alone');
                    INSERT INTO child VALUES (1, 30, 'c'), (2, 10, 'a'), (3, 30, 'b'), (4, NULL, 'orphan'), (5, 10, 'd'), (6, 7, 'stranger');
                    """)
        }
        struct Parent: TableRecord {
            static let children = hasMany(Table("child"), using: ForeignKey(["code"], to: ["code"]))
        }
        func names(_ db: Database, _ association: HasManyAssociation<Parent, Row>) throws -> [[String]] {
            try Parent.including(all: association).order(Column("id")).asRequest(of: Row.self).fetchAll(db)
                .map { ($0.prefetchedRows["children"] ?? []).map { $0["name"] as String } }
        }
        try dbQueue.read { (db: Database) throws in
            // By name, the keys' rows interleave: 30, 10, 30, 10.
            let byName = Parent.children.order(Column("name"))
            #expect(try names(db, byName) == [["b", "c"], ["a", "d"], ["b", "c"], [], []])
            let byNameDescending = Parent.children.order(Column("name").desc)
            #expect(try names(db, byNameDescending) == [["c", "b"], ["d", "a"], ["c", "b"], [], []])
        }
        // A REAL pivot value equal to an integer key groups with it.
        try dbQueue.write { (db: Database) throws in try db.execute(sql: "INSERT INTO child VALUES (7, 99.0, 'real')") }
        try dbQueue.read { (db: Database) throws in
            #expect(try names(db, Parent.children.order(Column("id"))) == [["c", "b"], ["a", "d"], ["c", "b"], [], ["real"]])
        }
    }

    /// A player read by hand: columns out of order, one missing, one twice.
    struct PlayerByHand: FetchableRecord {
        var summary: String
        init(row: Row) {
            let score: Int = row["score"]
            let name: String = row["name"]
            let nickname: String? = row["nickname"]
            let id: Int64 = row["id"]
            let again: String = row["name"]
            summary = "\(id) \(name) \(score) \(nickname ?? "-") \(again)"
        }
    }

    struct TeamWithPlayersByHand: FetchableRecord {
        var players: [PlayerByHand]
        init(row: Row) { players = row["players"] }
    }

    @Test("prefetched records read their columns in any order; a schema change shows in the next prefetch; no child row gives empty arrays")
    func prefetchedColumnsByName() throws {
        let dbQueue = try Self.makeDatabase()
        let request = Team.including(all: Team.players.order(Column("id"))).asRequest(of: TeamWithPlayersByHand.self)
        let before = try dbQueue.read { db in try request.fetchAll(db).map { $0.players.map(\.summary) } }
        #expect(before == [["1 Ann 10 - Ann", "2 Bob 30 - Bob"], ["3 Cid 20 - Cid"], []])
        // The cached prefetch statement runs again with the new column.
        try dbQueue.write { db in
            try db.execute(sql: "ALTER TABLE player ADD COLUMN nickname TEXT; UPDATE player SET nickname = 'Bobby' WHERE id = 2")
        }
        let after = try dbQueue.read { db in try request.fetchAll(db).map { $0.players.map(\.summary) } }
        #expect(after == [["1 Ann 10 - Ann", "2 Bob 30 Bobby Bob"], ["3 Cid 20 - Cid"], []])
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM award; DELETE FROM player") }
        let empty = try dbQueue.read { db in try request.fetchAll(db).map(\.players.count) }
        #expect(empty == [0, 0, 0])
    }

    @Test("a to-many association through another prefetches its destination joined to the pivot")
    func hasManyThrough() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            var rows: [Row] = []
            let ran = try statements(db) { rows = try Team.including(all: Team.awards).asRequest(of: Row.self).fetchAll(db) }
            #expect(
                ran.last
                    == #"SELECT "award".*, "player"."teamId" AS "grdb_teamId" FROM "award" JOIN "player" ON ("player"."id" = "award"."playerId") AND ("player"."teamId" IN (?, ?, ?))"#
            )
            #expect(rows.map { $0.prefetchedRows["awards"]?.count } == [2, 1, 0])
            #expect(rows[0].prefetchedRows.keys == ["awards"])
        }
    }

    @Test("prefetches nest, and reach through a join")
    func nestedPrefetch() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let teams = try Team.including(all: Team.players.including(all: Player.awards)).asRequest(of: Row.self).fetchAll(db)
            #expect(teams[0].prefetchedRows["players"]?.map { $0.prefetchedRows["awards"]?.count } == [2, 0])
            // Through a to-one join: the joined team's players.
            let players = try Player.including(required: Player.team.including(all: Team.players)).order(Column("id")).asRequest(
                of: Row.self
            )
            .fetchAll(db)
            #expect(players.map { $0.scopes["team"]?.prefetchedRows["players"]?.count } == [2, 2, 1])
        }
    }

    @Test("a composite foreign key prefetches through a common table expression of the base request")
    func compositePrefetch() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            var rows: [Row] = []
            let ran = try statements(db) { rows = try Shelf.including(all: Shelf.boxes).asRequest(of: Row.self).fetchAll(db) }
            #expect(
                ran.last
                    == #"WITH "grdb_base" AS (SELECT "room", "position" FROM "shelf") SELECT *, "room" AS "grdb_room", "position" AS "grdb_position" FROM "box" WHERE ("room", "position") IN "grdb_base""#
            )
            #expect(rows.map { $0.prefetchedRows["boxes"]?.count } == [1, 2])
        }
    }

    @Test("forKey renames the key a record decodes, and inflections give GRDB's default keys")
    func keys() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let renamed = try Team.including(all: Team.players.forKey("roster")).asRequest(of: Row.self).fetchOne(db)
            #expect(renamed?.prefetchedRows.keys == ["roster"])
            let reports = try Employee.including(all: Employee.reports).asRequest(of: Row.self).fetchAll(db)
            #expect(reports.map { $0.prefetchedRows["reports"]?.count } == [2, 0, 0])
            // A to-many association joined decodes under its singular key.
            let joined = try Team.including(required: Team.players.filter(Column("score") > 25)).asRequest(of: Row.self).fetchAll(db)
            #expect(joined.map { $0.scopes.names } == [["player"]])
        }
    }

    @Test("request(for:) gives a record's associated records")
    func requestForAssociation() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let reds = try #require(try Team.fetchOne(db, key: 1))
            #expect(try reds.request(for: Team.players).order(Column("name")).fetchAll(db).map(\.name) == ["Ann", "Bob"])
            #expect(try reds.request(for: Team.awards).fetchCount(db) == 2)
            let dee = try #require(try Player.fetchOne(db, key: 4))
            #expect(try dee.request(for: Player.team).fetchOne(db) == nil)
            let ann = try #require(try Player.fetchOne(db, key: 1))
            #expect(try ann.request(for: Player.team).fetchOne(db)?.name == "Reds")
        }
    }

    @Test("the region of a request with prefetches covers the prefetched tables, and observations see their changes")
    func prefetchRegion() async throws {
        let dbQueue = try Self.makeDatabase()
        let request = Team.including(all: Team.players.including(all: Player.awards))
        let region = try await dbQueue.read { db in try request.databaseRegion(db).description }
        #expect(region.contains("award(") && region.contains("player(") && region.contains("team("))
        let observation = ValueObservation.trackingConstantRegion { db in
            try request.asRequest(of: Row.self).fetchAll(db)
                .flatMap { $0.prefetchedRows["players"] ?? [] }
                .map { $0.prefetchedRows["awards"]?.count ?? 0 }.reduce(0, +)
        }
        var values = observation.values(in: dbQueue).makeAsyncIterator()
        #expect(try await values.next() == 3)
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO award VALUES (4, 2, 'Fair play')") }
        #expect(try await values.next() == 4)
    }

    @Test("a DerivableRequest extension joins, for requests and associations alike")
    func derivableExtension() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let fromRequest = try Player.all().withTeamNamed("Reds").order(Column("id")).fetchAll(db)
            #expect(fromRequest.map(\.name) == ["Ann", "Bob"])
            let awards = try Award.joining(required: Award.player.withTeamNamed("Blues")).fetchAll(db)
            #expect(awards.map(\.title) == ["Rookie"])
        }
    }

    // MARK: Aggregates

    @Test("association aggregates annotate and filter with a left join grouped by the primary key")
    func aggregates() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let counted = Team.annotated(with: Team.players.count, Team.players.max(Column("score")))
            #expect(
                try sql(db, counted)
                    == #"SELECT "team".*, COUNT(DISTINCT "player"."id") AS "playerCount", MAX("player"."score") AS "maxPlayerScore" FROM "team" LEFT JOIN "player" ON "player"."teamId" = "team"."id" GROUP BY "team"."id""#
            )
            let rows = try counted.asRequest(of: Row.self).fetchAll(db)
            #expect(rows.map { $0["playerCount"] as Int } == [2, 1, 0])
            #expect(rows.map { $0["maxPlayerScore"] as Int? } == [30, 20, nil])

            let empty = Team.having(Team.players.isEmpty)
            #expect(try empty.fetchAll(db).map(\.name) == ["Greens"])
            // Two aggregates on one association share its join.
            let busy = Team.having(Team.players.count >= 2 && Team.players.sum(Column("score")) > 30)
            #expect(try sql(db, busy).components(separatedBy: "JOIN").count == 2)
            #expect(try busy.fetchAll(db).map(\.name) == ["Reds"])
            // Through another association, with a default value.
            let awards = Team.annotated(with: (Team.awards.count + 0).forKey("awardCount"))
            #expect(try awards.asRequest(of: Row.self).fetchAll(db).map { $0["awardCount"] as Int } == [2, 1, 0])
            let totals = Team.annotated(with: Team.players.total(Column("score")))
            #expect(try totals.asRequest(of: Row.self).fetchAll(db).map { $0["playerScoreSum"] as Double } == [40, 20, 0])
            // A city groups by its rowid: its primary key is text.
            let cities = City.annotated(with: City.hasMany(Team.self, using: ForeignKey(["cityCode"])).count)
            #expect(try sql(db, cities).hasSuffix(#"GROUP BY "city"."rowid""#))
        }
    }

    // MARK: Misuses

    struct Orphan: TableRecord {
        static let databaseTableName = "orphan"
        static let city = belongsTo(City.self)
    }

    @Test("a declaration the schema does not support throws, with what to do")
    func misuses() throws {
        let dbQueue = try Self.makeDatabase()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE orphan (id INTEGER PRIMARY KEY, cityCode TEXT)")
            let missing = #expect(throws: DatabaseError.self) {
                try Orphan.including(required: Orphan.city).asRequest(of: Row.self).fetchAll(db)
            }
            #expect(missing?.message?.contains("ForeignKey") == true)

            try db.execute(
                sql: "CREATE TABLE match (id INTEGER PRIMARY KEY, homeId INTEGER REFERENCES team(id), awayId INTEGER REFERENCES team(id))")
            struct Match: TableRecord { static let team = belongsTo(Team.self) }
            let ambiguous = #expect(throws: DatabaseError.self) {
                try Match.including(required: Match.team).asRequest(of: Row.self).fetchAll(db)
            }
            #expect(ambiguous?.message?.contains("ambiguous") == true)

            #expect(throws: DatabaseError.self) { try Team.including(all: Team.players).fetchCursor(db) }
            #expect(throws: DatabaseError.self) { try Player.joining(required: Player.team).deleteAll(db) }

            let alias = TableAlias()
            _ = Player.aliased(alias)
            #expect(throws: DatabaseError.self) { try Team.aliased(alias).fetchAll(db) }
            #expect(try Player.fetchCount(db) == 4)
        }
    }
}

extension DerivableRequest<AssociationTests.Player> {
    /// The players of the team of this name (GRDB's recommended shape of
    /// a reusable request).
    fileprivate func withTeamNamed(_ name: String) -> Self {
        let teamAlias = TableAlias<AssociationTests.Team>()
        return joining(required: AssociationTests.Player.team.aliased(teamAlias)).filter(teamAlias[Column("name")] == name)
    }
}
