import DatabaseKit
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// The region of a request filtered by rowid names its rows: an observation
/// of one player is not fetched again when another player changes.
@Suite("Regions of requests by rowid")
struct RowIDRegionTests {
    struct Player: Codable, FetchableRecord, PersistableRecord, Identifiable, Equatable {
        var id: Int64
        var name: String
        var score: Int
        static let team = belongsTo(Team.self)
    }

    struct Team: Codable, FetchableRecord, PersistableRecord, Identifiable {
        var id: Int64
        var name: String
    }

    struct Person: TableRecord {
        static let parent = belongsTo(Person.self, key: "parent")
    }

    private static func makeDatabase(_ writer: any DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL,
                                         teamId INTEGER REFERENCES team(id));
                    CREATE UNIQUE INDEX player_name ON player(name);
                    CREATE TABLE note (body TEXT);
                    CREATE TABLE tag (code TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID;
                    CREATE TABLE legacy (rowid TEXT, name TEXT);
                    CREATE TABLE person (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES person(id));
                    CREATE VIEW playerView AS SELECT id, name FROM player;
                    INSERT INTO team VALUES (1, 'red');
                    INSERT INTO player VALUES (1, 'Arthur', 10, 1), (2, 'Barbara', 20, 1), (3, 'Craig', 30, NULL);
                    INSERT INTO note (rowid, body) VALUES (1, 'a'), (2, 'b');
                    """)
        }
    }

    /// Expects the region of `request` to be `expected`.
    private func expectRegion(
        _ request: some FetchRequest, _ expected: String, in writer: any DatabaseWriter,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (sql, region) = try writer.read { db in
            (try request.makePreparedRequest(db, forSingleResult: false).statement.sql, try request.databaseRegion(db).description)
        }
        #expect(region == expected, "\(sql)", sourceLocation: sourceLocation)
    }

    @Test("a filter on the rowid or its INTEGER PRIMARY KEY gives the rows; a filter that selects nothing, an empty region")
    func identifiedRows() throws {
        let queue = DatabaseQueue()
        try Self.makeDatabase(queue)
        let columns = "player(id,name,score,teamId)"
        let cases: [(QueryInterfaceRequest<Player>, String)] = [
            (Player.filter(id: 1), "\(columns)[1]"),
            (Player.filter(key: 2), "\(columns)[2]"),
            (Player.filter(ids: [3, 1]), "\(columns)[1,3]"),
            (Player.filter(keys: [1, 2]).filter(Column("score") > 0), "\(columns)[1,2]"),
            (Player.filter(1 == Column("id")), "\(columns)[1]"),
            (Player.filter(Column.rowID == 2), "\(columns)[2]"),
            (Player.filter(Column("ID") === 2), "\(columns)[2]"),
            (Player.filter(Column("id") == 2.0), "\(columns)[2]"),
            (Player.filter(Column("id") == 1 || Column("oid") == 3), "\(columns)[1,3]"),
            (Player.filter((Column("id") == 1 && Column("name") == "x") || [2, 3].contains(Column("_rowid_"))), "\(columns)[1,2,3]"),
            (Player.filter([1, 2, 3].contains(Column("id")) && [2, 3, 4].contains(Column.rowID)), "\(columns)[2,3]"),
            (Player.filter(key: 1).filter(key: 1), "\(columns)[1]"),
            (Player.filter(key: 1).filter(key: 2), "empty"),
            (Player.filter(Column("id") == nil), "empty"),
            (Player.filter(Column("id") == 1.5), "empty"),
            (Player.filter(ids: []), "empty"),
            (Player.none(), "empty"),
            (Player.select(Column("name")).filter(id: 1), "player(id,name)[1]"),
            (Player.filter(id: 1).order(Column("score").desc).limit(1), "\(columns)[1]"),
        ]
        for (request, expected) in cases { try expectRegion(request, expected, in: queue) }
        // The hidden rowid of a table without primary key.
        try expectRegion(Table("note").filter(Column.rowID == 2), "note(ROWID,body)[2]", in: queue)
        try expectRegion(Table("note").filter(key: 1), "note(ROWID,body)[1]", in: queue)
        // The rowid of an alias of the source.
        let alias = TableAlias<Player>()
        try expectRegion(Player.aliased(alias).filter(alias[Column("id")] == 3), "\(columns)[3]", in: queue)
    }

    @Test("joined tables keep all their rows: only the source's rows are identified")
    func joinedRequests() throws {
        let queue = DatabaseQueue()
        try Self.makeDatabase(queue)
        try expectRegion(
            Player.filter(id: 1).including(required: Player.team.filter(id: 1)), "player(id,name,score,teamId)[1],team(id,name)", in: queue)
        // A filter on the joined table's key identifies no player.
        let team = TableAlias<Team>()
        try expectRegion(
            Player.joining(required: Player.team.aliased(team)).filter(team[Column("id")] == 1), "player(id,name,score,teamId),team(*)",
            in: queue)
    }

    @Test("a region stays whole when the rows are not certain")
    func uncertainRows() throws {
        let queue = DatabaseQueue()
        try Self.makeDatabase(queue)
        let whole = "player(id,name,score,teamId)"
        let cases: [(QueryInterfaceRequest<Player>, String)] = [
            (Player.filter(Column("id") > 1), whole),
            (Player.filter(Column("id") == 1 || Column("score") > 10), whole),
            (Player.filter(Column("id") != 1), whole),
            // SQLite converts '1' to the integer key: the text finds row 1.
            (Player.filter(Column("id") == "1"), whole),
            (Player.filter([1, "2"].contains(Column("id"))), whole),
            // Raw SQL and subqueries read other rows of the table.
            (Player.filter(id: 1).filter(sql: "score > 0"), whole),
            (Player.filter(id: 1).filter(Column("score") >= Player.select(max(Column("score")))), whole),
            (Player.filter(id: 1).annotated(with: SQL("(SELECT COUNT(*) FROM player)").forKey("count")), "player(*)"),
        ]
        for (request, expected) in cases { try expectRegion(request, expected, in: queue) }
        try queue.read { (db: Database) throws in
            #expect(try Player.filter(Column("id") == "1").fetchCount(db) == 1, "the text key selects a row")
        }
        // A table joined to itself: the parent is another row of the table.
        try expectRegion(Person.filter(key: 1).including(optional: Person.parent), "person(id,parentId)", in: queue)
        // `rowid` names a column of this table, and a WITHOUT ROWID table has none.
        try expectRegion(Table("legacy").filter(Column("rowid") == 1), "legacy(name,rowid)", in: queue)
        try expectRegion(Table("tag").filter(key: "a"), "tag(code,label)", in: queue)
        // A view has no rowid.
        try expectRegion(Table("playerView").filter(Column("id") == 1), "player(id,name),playerView(id,name)", in: queue)
    }

    @Test("a fetch records its rows; the statement it shares with other fetches keeps its whole region")
    func recordedSelection() throws {
        let queue = DatabaseQueue()
        try Self.makeDatabase(queue)
        try queue.read { (db: Database) throws in
            let expectations: [(String, (Database) throws -> Void)] = [
                ("player(id,name,score,teamId)[1]", { db in _ = try Player.fetchOne(db, id: 1) }),
                ("player(id,name,score,teamId)[2]", { db in _ = try Player.find(db, key: 2) }),
                ("player(id,name,score,teamId)[1,3]", { db in _ = try Player.fetchAll(db, ids: [1, 3]) }),
                ("player(id,name,score,teamId)[2,3]", { db in _ = try Player.fetchCursor(db, keys: [2, 3]).next() }),
                ("player(id,name,score,teamId)[3]", { db in _ = try Player.fetchOne(db, key: ["id": 3]) }),
                ("player(id,name,score,teamId)[2]", { db in _ = try Player.filter(id: 2).fetchOne(db) }),
                ("player(id,name,score,teamId)[1,2]", { db in _ = try Row.fetchAll(db, Player.filter(ids: [1, 2])) }),
                ("empty", { db in _ = try Player.none().fetchAll(db) }),
                (
                    "player(id,name,score,teamId)[2],team(id,name)",
                    { db in
                        _ = try Player.filter(id: 2).including(required: Player.team).asRequest(of: Row.self).fetchOne(db)
                    }
                ),
                // The same SQL, written by hand: its rows are not known.
                (
                    "player(id,name,score,teamId)",
                    { db in
                        _ = try Row.fetchOne(db, sql: #"SELECT * FROM "player" WHERE "id" = ?"#, arguments: [2])
                    }
                ),
            ]
            for (expected, fetch) in expectations {
                var region = DatabaseRegion()
                try db.recordingSelection(&region) { try fetch(db) }
                #expect(region.description == expected)
            }
            // Outside of a recording, the lookups take the cached statements,
            // whose region is the table's.
            _ = try Player.fetchOne(db, id: 1)
            _ = try Player.filter(id: 1).fetchOne(db)
            var region = DatabaseRegion()
            _ = try db.recordingSelection(&region) {
                try Row.fetchOne(db, sql: #"SELECT * FROM "player" WHERE "id" = ?"#, arguments: [1])
            }
            #expect(region.description == "player(id,name,score,teamId)")
        }
    }

    @Test("an observation of one row fetches after a change to that row only", arguments: WriterKind.allCases)
    func observationOfOneRow(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try Self.makeDatabase(writer)
        let fetches = Atomic(0)
        let values = Locked<[String?]>([])
        let observation = ValueObservation.tracking { db in
            fetches.add(1, ordering: .relaxed)
            return try Player.fetchOne(db, id: 1)?.name
        }
        let cancellable = observation.start(
            in: writer, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
            onError: { Issue.record($0) }, onChange: { value in values.withLock { $0.append(value) } })
        defer { cancellable.cancel() }
        #expect(waitUntilTrue { values.withLock { $0.count } == kind.initialValueCount })
        let initialFetches = fetches.load(ordering: .relaxed)

        // Other rows and other tables: no fetch.
        try writer.write { db in
            try db.execute(sql: "UPDATE player SET score = 99 WHERE id = 2")
            try db.execute(sql: "INSERT INTO player VALUES (4, 'Dan', 0, NULL)")
            try db.execute(sql: "DELETE FROM player WHERE id = 3")
        }
        usleep(200_000)
        #expect(fetches.load(ordering: .relaxed) == initialFetches, "a change to other rows fetched again")

        // The row itself, then its deletion with every row (SQLite's
        // truncate optimization would delete without reporting each row).
        try writer.write { db in try db.execute(sql: "UPDATE player SET name = 'Art' WHERE id = 1") }
        #expect(waitUntilTrue { values.withLock { $0.last } == "Art" })
        try writer.write { db in try db.execute(sql: "DELETE FROM player") }
        #expect(waitUntilTrue { values.withLock { $0.last } == .some(nil) })
        #expect(fetches.load(ordering: .relaxed) == initialFetches + 2)
    }

    @Test("DatabaseRegionObservation of a request by key: only the commits that change its rows", arguments: WriterKind.allCases)
    func regionObservationOfRows(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try Self.makeDatabase(writer)
        let commits = Atomic(0)
        let cancellable = DatabaseRegionObservation(tracking: Player.filter(ids: [1, 2]))
            .start(in: writer, onError: { Issue.record($0) }, onChange: { _ in commits.add(1, ordering: .relaxed) })
        defer { cancellable.cancel() }
        try writer.write { db in try db.execute(sql: "UPDATE player SET score = 0 WHERE id = 3") }
        #expect(commits.load(ordering: .relaxed) == 0)
        try writer.write { db in try db.execute(sql: "UPDATE player SET score = 0 WHERE id = 2") }
        #expect(commits.load(ordering: .relaxed) == 1)
        try writer.write { db in try db.execute(sql: "INSERT INTO player VALUES (5, 'Eve', 0, NULL)") }
        #expect(commits.load(ordering: .relaxed) == 1)
    }

    @Test(
        "an update that gives an observed row another key is seen, though SQLite reports the new rowid only", arguments: WriterKind.allCases
    )
    func movedRow(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try Self.makeDatabase(writer)
        let values = Locked<[String?]>([])
        let cancellable = ValueObservation.tracking { db in try Player.filter(id: 1).fetchOne(db)?.name }
            .start(
                in: writer, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
                onError: { Issue.record($0) }, onChange: { value in values.withLock { $0.append(value) } })
        defer { cancellable.cancel() }
        let commits = Atomic(0)
        let regionCancellable = DatabaseRegionObservation(tracking: Player.filter(id: 2))
            .start(in: writer, onError: { Issue.record($0) }, onChange: { _ in commits.add(1, ordering: .relaxed) })
        defer { regionCancellable.cancel() }
        #expect(waitUntilTrue { values.withLock { $0.count } == kind.initialValueCount })

        // Row 1 becomes row 10: the update hook tells of row 10 only.
        try writer.write { db in try db.execute(sql: "UPDATE player SET id = 10 WHERE id = 1") }
        #expect(waitUntilTrue { values.withLock { $0.last } == .some(nil) })
        // A new row 1, deleted by the REPLACE of another row that takes its
        // unique name: the update hook tells of the insertion of row 7 only.
        try writer.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Zed', 0, NULL)") }
        #expect(waitUntilTrue { values.withLock { $0.last } == "Zed" })
        try writer.write { db in try db.execute(sql: "INSERT OR REPLACE INTO player VALUES (7, 'Zed', 1, NULL)") }
        #expect(waitUntilTrue { values.withLock { $0.last } == .some(nil) })
        // Row 2 is replaced by row 3 taking its key.
        try writer.write { db in try db.execute(sql: "UPDATE OR REPLACE player SET id = 2 WHERE id = 3") }
        #expect(commits.load(ordering: .relaxed) == 1)
        // Row 2 moves away, in a savepoint that is released.
        try writer.write { db in
            try db.inSavepoint {
                try db.execute(sql: "UPDATE player SET id = 20 WHERE id = 2")
                return .commit
            }
        }
        #expect(commits.load(ordering: .relaxed) == 2)
    }
}
