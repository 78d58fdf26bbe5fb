import DatabaseKit
import Foundation
import TestSupport
import Testing

@Suite("Row adapters")
struct RowAdapterTests {
    struct Player: FetchableRecord, Equatable {
        var id: Int64
        var name: String
        init(id: Int64, name: String) {
            self.id = id
            self.name = name
        }
        init(row: Row) {
            id = row["id"]
            name = row["name"]
        }
    }

    struct Team: Decodable, FetchableRecord, Equatable {
        var id: Int64
        var name: String
    }

    private let sql =
        "SELECT player.id, player.name, team.id, team.name FROM player JOIN team ON team.id = player.teamId ORDER BY player.id"

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, teamId INTEGER);
                    INSERT INTO team VALUES (10, 'Reds'), (20, 'Blues');
                    INSERT INTO player VALUES (1, 'Arthur', 10), (2, 'Barbara', 20);
                    """)
        }
        return dbQueue
    }

    @Test("ColumnMapping renames and selects, in base order; a missing column is an error")
    func columnMapping() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let adapter = ColumnMapping(["score": "b", "name": "a"])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 'x' AS a, 'y' AS b, 'z' AS c", adapter: adapter))
            #expect(row.columnNames == ["name", "score"])
            #expect(row["name"] as String == "x")
            #expect(row[1] as String == "y")
            #expect(row.hasColumn("c") == false)
            do {
                _ = try Row.fetchOne(db, sql: "SELECT 1 AS a", adapter: ColumnMapping(["x": "missing"]))
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.message == "ColumnMapping: no column missing in [a]")
            }
        }
    }

    @Test("SuffixRowAdapter and RangeRowAdapter pick columns by position")
    func positions() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let suffix = try #require(try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)))
            #expect(suffix == ["id": 10, "name": "Reds"])
            let range = try #require(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(1..<3)))
            #expect(range.databaseValues == ["Arthur".databaseValue, 10.databaseValue])
            let closed = try #require(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(0...1)))
            #expect(Player(row: closed) == Player(id: 1, name: "Arthur"))
            #expect(try Row.fetchOne(db, sql: sql, adapter: EmptyRowAdapter())?.count == 0)
            #expect(throws: DatabaseError.self) { try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(2..<9)) }
        }
    }

    @Test("ScopeAdapter: scoped rows for records, copied by fetchAll, live in cursors")
    func scopes() throws {
        let dbQueue = try makeDatabase()
        let adapter = ScopeAdapter(["player": RangeRowAdapter(0..<2), "team": SuffixRowAdapter(fromIndex: 2)])
        try dbQueue.read { (db: Database) throws in
            let rows = try Row.fetchAll(db, sql: sql, adapter: adapter)
            #expect(rows.count == 2)
            #expect(rows[0].count == 4)  // the base keeps every column
            #expect(rows[0].scopes.names == ["player", "team"])
            #expect(try Team(row: try #require(rows[1].scopes["team"])) == Team(id: 20, name: "Blues"))
            #expect(Player(row: try #require(rows[0].scopes["player"])) == Player(id: 1, name: "Arthur"))
            #expect(rows[0].scopes["nothing"] == nil)
            #expect(rows[0].scopes.map(\.name) == ["player", "team"])
            // A cursor's row is live: its scopes read the current row.
            let cursor = try Row.fetchCursor(db, sql: sql, adapter: adapter)
            var names: [String] = []
            while let row = try cursor.next() {
                names.append(row.scopes["team"]!["name"])
            }
            #expect(names == ["Reds", "Blues"])
            // Records and values take adapters too.
            #expect(try Team.fetchAll(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)).map(\.name) == ["Reds", "Blues"])
            #expect(try String.fetchAll(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 3)) == ["Reds", "Blues"])
            #expect(try Int.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)) == 10)
            #expect(try Team.fetchCursor(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)).next()?.id == 10)
            let request = SQLRequest<Team>(sql: sql, adapter: SuffixRowAdapter(fromIndex: 2))
            #expect(try request.fetchAll(db).map(\.id) == [10, 20])
            let statement = try db.makeStatement(sql: sql)
            #expect(try Row.fetchOne(statement, adapter: SuffixRowAdapter(fromIndex: 3)) == ["name": "Reds"])
        }
    }

    @Test("nested scopes, scopesTree, addingScopes, unadapted, copies")
    func nested() throws {
        let dbQueue = try makeDatabase()
        let adapter = ScopeAdapter(
            base: RangeRowAdapter(0..<2),
            scopes: ["team": ScopeAdapter(base: SuffixRowAdapter(fromIndex: 2), scopes: ["teamName": RangeRowAdapter(3..<4)])]
        ).addingScopes(["all": RenameColumnAdapter { "x_" + $0 }])
        try dbQueue.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: sql, adapter: adapter))
            // Rows are equal with the same columns, values and scopes.
            #expect(row != ["id": 1, "name": "Arthur"])
            #expect(row.unscoped == ["id": 1, "name": "Arthur"])
            #expect(row.scopes.names == ["team", "all"])
            #expect(row.scopes["all"]?.columnNames == ["x_id", "x_name", "x_id", "x_name"])
            #expect(row.scopesTree["teamName"] == ["name": "Reds"])
            #expect(row.scopesTree.names == ["team", "all", "teamName"])
            #expect(row.scopes["teamName"] == nil)
            #expect(row.unadapted.count == 4)
            // A copy keeps its scopes.
            let copy = row.copy()
            #expect(copy.scopes["team"]?.scopes["teamName"] == ["name": "Reds"])
            // An adapter applied to a copied row.
            let adapted = try Row(copy, adapter: ColumnMapping(["playerName": "name"]))
            #expect(adapted == ["playerName": "Arthur"])
        }
    }

    @Test("a decoding error in an adapted row names the adapted column")
    func decodingError() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 3)))
            #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "name") }
            #expect(try row.decode(String.self, atIndex: 0) == "Reds")
        }
    }

    @Test("a fetch's adapted rows read the live statement: by name, any case, duplicates, NULL scopes")
    func liveViews() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player VALUES (3, 'Craig', NULL)")
        }
        let leftJoin =
            "SELECT player.id, player.name, team.id, team.name FROM player LEFT JOIN team ON team.id = player.teamId ORDER BY player.id"
        let adapter = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["team": SuffixRowAdapter(fromIndex: 2)])
        try dbQueue.read { (db: Database) throws in
            // A cursor's scope record follows the cursor, row after row.
            var seen: [String] = []
            let cursor = try Row.fetchCursor(db, sql: leftJoin, adapter: adapter)
            while let row = try cursor.next() {
                let player = Player(row: row)
                let team: Team? = row["team"]
                seen.append("\(player.id) \(player.name) \(team?.name ?? "-") \(row[0] as Int64) \(row["ID"] as Int64)")
                // The team scope of Craig holds only NULL values.
                #expect(row.scopes["team"]?.containsNonNullValue == (team != nil))
                #expect(row.scopes["team"]?.hasNull(atIndex: 1) == (team == nil))
                if team == nil {
                    #expect(throws: RowDecodingError.self) { try row.decode(Team.self, forKey: "team") }
                    #expect(try row.decodeIfPresent(Team.self, forKey: "team") == nil)
                }
            }
            #expect(seen == ["1 Arthur Reds 1 1", "2 Barbara Blues 2 2", "3 Craig - 3 3"])

            // A mapping that picks columns out of order, read by name in any case.
            let mapping = ColumnMapping(["teamName": "name", "playerId": "id"])
            var mapped: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT name, 0 AS x, id FROM player ORDER BY id", adapter: mapping) {
                mapped.append("\(row["PLAYERID"] as Int64) \(row["teamname"] as String)")
            }
            #expect(mapped == ["1 Arthur", "2 Barbara", "3 Craig"])
            let mappedCursor = try Row.fetchCursor(db, sql: "SELECT name, 0 AS x, id FROM player ORDER BY id", adapter: mapping)
            var mappedLive: [Int64] = []
            while let row = try mappedCursor.next() { mappedLive.append(row["playerId"]) }
            #expect(mappedLive == [1, 2, 3])

            // Two columns of one name: the leftmost wins, read after read.
            let duplicates = try Row.fetchCursor(db, sql: "SELECT 1 AS a, 2 AS id, 3 AS id", adapter: SuffixRowAdapter(fromIndex: 1))
            let row = try #require(try duplicates.next())
            #expect(row["id"] as Int == 2)
            #expect(row["id"] as Int == 2)
            #expect(row[1] as Int == 3)
        }
    }
}
