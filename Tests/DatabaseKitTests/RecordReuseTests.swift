import DatabaseKit
import Dispatch
import Foundation
import TestSupport
import Testing

/// What record writes and key lookups reuse from one record to the next: the
/// encoder of `Encodable` records (shared by the process, with its keyed
/// container), and the array of values a record statement was bound with.
/// Each record must still get exactly its own values, whatever came before,
/// and a container a record keeps must never change afterwards.
@Suite("Record reuse: the shared encoder, the spare array of values")
struct RecordReuseTests {
    struct Player: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
        var id: Int64?
        var name: String
        var score: Int
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    struct Team: Codable, EncodableRecord {
        var code: String
        var rank: Double?
        var active: Bool
    }

    /// Asks for an unkeyed container: an encoding misuse, thrown.
    struct Unkeyed: Encodable, EncodableRecord {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(1)
        }
    }

    /// A record that encodes as another record (a single value): the inner
    /// record is encoded while the outer one holds the shared encoder.
    struct Wrapper: Encodable, EncodableRecord {
        var team: Team
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(team)
        }
    }

    /// The containers the records of a test report to `didInsert`.
    final class ContainerLog: @unchecked Sendable {
        var containers: [PersistenceContainer] = []
    }

    /// A hand-written record that keeps the container of each insertion.
    struct LoggedPlayer: FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var score: Int
        var log: ContainerLog?

        init(id: Int64?, name: String, score: Int, log: ContainerLog?) {
            (self.id, self.name, self.score, self.log) = (id, name, score, log)
        }

        init(row: Row) {
            (id, name, score, log) = (row["id"], row["name"], row["score"], nil)
        }

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id
            container["name"] = name
            container["score"] = score
        }

        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            log?.containers.append(inserted.persistenceContainer)
        }
    }

    private static func values(_ container: PersistenceContainer) -> [String: DatabaseValue] {
        Dictionary(uniqueKeysWithValues: container.map { ($0.0, $0.1) })
    }

    /// Asks for keyed containers of two key types in one record, as the
    /// `Decoder` and `Encoder` APIs allow: the container a coder keeps for
    /// one key type must never be handed back for the other.
    struct TwoKeyed: Codable, FetchableRecord, PersistableRecord, Equatable {
        enum IDKeys: String, CodingKey { case id }
        enum NameKeys: String, CodingKey { case name, score }
        var id: Int64
        var name: String
        var score: Int

        init(id: Int64, name: String, score: Int) {
            (self.id, self.name, self.score) = (id, name, score)
        }

        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: IDKeys.self).decode(Int64.self, forKey: .id)
            let names = try decoder.container(keyedBy: NameKeys.self)
            name = try names.decode(String.self, forKey: .name)
            score = try names.decode(Int.self, forKey: .score)
        }

        func encode(to encoder: any Encoder) throws {
            var ids = encoder.container(keyedBy: IDKeys.self)
            try ids.encode(id, forKey: .id)
            var names = encoder.container(keyedBy: NameKeys.self)
            try names.encode(name, forKey: .name)
            try names.encode(score, forKey: .score)
        }
    }

    @Test("a record that asks for containers of two key types, between records of other types, codes its own columns")
    func twoKeyTypes() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            try db.execute(sql: "CREATE TABLE twoKeyed (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            var records: [TwoKeyed] = []
            for index in 1...20 {
                let record = TwoKeyed(id: Int64(index), name: "two \(index)", score: index * 10)
                try record.insert(db)
                records.append(record)
                var player = Player(id: nil, name: "player \(index)", score: -index)
                try player.insert(db)
            }
            #expect(try TwoKeyed.fetchAll(db, sql: "SELECT * FROM twoKeyed ORDER BY id") == records)
            // Another column order: the keys find their columns by name.
            #expect(try TwoKeyed.fetchAll(db, sql: "SELECT score, name, id FROM twoKeyed ORDER BY id") == records)
            for record in records {
                #expect(try TwoKeyed.fetchOne(db, key: record.id) == record)
                #expect(try Player.fetchOne(db, key: record.id)?.name == "player \(record.id)")
            }
            let players = try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
            #expect(players.map(\.score) == Array(1...20).map { -$0 })
        }
    }

    @Test("one record after another, of several types, each encodes its own columns")
    func typesInTurn() throws {
        let arthur = Player(id: 1, name: "Arthur", score: 10)
        let team = Team(code: "red", rank: nil, active: true)
        for _ in 0..<3 {
            let playerContainer = try arthur.databaseContainer()
            #expect(playerContainer.columns == ["id", "name", "score"])
            #expect(playerContainer.databaseValues == [1.databaseValue, "Arthur".databaseValue, 10.databaseValue])
            let teamContainer = try team.databaseContainer()
            #expect(teamContainer.columns == ["code", "rank", "active"])
            #expect(teamContainer.databaseValues == ["red".databaseValue, .null, true.databaseValue])
        }
    }

    @Test("a record that throws leaves the container as it was, and the next record encodes cleanly")
    func throwingRecord() throws {
        var container = PersistenceContainer()
        container["kept"] = 42
        #expect(throws: EncodingError.self) { try Unkeyed().encode(to: &container) }
        #expect(container.columns == ["kept"])
        #expect(container.databaseValues == [42.databaseValue])
        // The misuse is not reported again for the next record.
        #expect(try Team(code: "blue", rank: 2, active: false).databaseContainer().columns == ["code", "rank", "active"])
        // Encoding into a container that holds values appends to it.
        try Team(code: "blue", rank: 2, active: false).encode(to: &container)
        #expect(container.columns == ["kept", "code", "rank", "active"])
        #expect(container.databaseValues == [42.databaseValue, "blue".databaseValue, 2.0.databaseValue, false.databaseValue])
    }

    @Test("a record encoded inside another one gets an encoder of its own")
    func nestedRecord() throws {
        let container = try Wrapper(team: Team(code: "green", rank: 1.5, active: true)).databaseContainer()
        #expect(container.columns == ["code", "rank", "active"])
        #expect(container.databaseValues == ["green".databaseValue, 1.5.databaseValue, true.databaseValue])
        #expect(try Player(id: nil, name: "Barbara", score: 3).databaseContainer().columns == ["id", "name", "score"])
    }

    @Test("records encoded on many threads at once each get their own values")
    func concurrentEncoding() {
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<300 {
                let name = "player \(thread)-\(index)"
                let player = Player(id: Int64(index), name: name, score: thread)
                let team = Team(code: name, rank: Double(index), active: index.isMultiple(of: 2))
                let playerValues = try? player.databaseContainer().databaseValues
                let teamValues = try? team.databaseContainer().databaseValues
                if playerValues != [Int64(index).databaseValue, name.databaseValue, thread.databaseValue]
                    || teamValues != [name.databaseValue, Double(index).databaseValue, index.isMultiple(of: 2).databaseValue]
                {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.current == 0)
    }

    @Test("a container a record keeps from didInsert keeps its values while more records are written and looked up")
    func keptContainers() throws {
        let dbQueue = DatabaseQueue()
        let log = ContainerLog()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            for index in 1...5 {
                var player = LoggedPlayer(id: nil, name: "player \(index)", score: index * 10, log: log)
                try player.insert(db)
                #expect(player.id == Int64(index))
                // Key lookups bind from the same spare array as inserts.
                let fetched = try #require(try LoggedPlayer.fetchOne(db, key: index))
                #expect(fetched.name == "player \(index)")
                #expect(try LoggedPlayer.fetchOne(db, key: index + 100) == nil)
            }
        }
        #expect(log.containers.count == 5)
        for (offset, container) in log.containers.enumerated() {
            let index = offset + 1
            #expect(
                Self.values(container)
                    == ["id": Int64(index).databaseValue, "name": "player \(index)".databaseValue, "score": (index * 10).databaseValue])
        }
    }

    @Test("Codable inserts and lookups in turn read and write the right rows")
    func codableInTurn() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            var players: [Player] = []
            for index in 1...20 {
                var player = Player(id: nil, name: "player \(index)", score: index)
                try player.insert(db)
                players.append(player)
                #expect(try Player.fetchOne(db, key: player.id) == player)
                #expect(try Player.fetchOne(db, key: Int64?.none) == nil)
            }
            for player in players.reversed() {
                #expect(try Player.fetchOne(db, key: player.id) == player)
            }
            #expect(
                try Row.fetchAll(db, sql: "SELECT name FROM player ORDER BY id").map { $0[0] as String }
                    == players.map(\.name))
        }
    }
}

/// The row a lookup by key hands to its record: one object from one lookup
/// to the next, unless a record keeps it.
@Suite("Record reuse: the row of lookups by key")
struct RecordLookupRowTests {
    /// Keeps the row it is given, which GRDB advises against: the row must
    /// then stay the record's own.
    struct RowKeeper: FetchableRecord, TableRecord {
        static let databaseTableName = "player"
        let row: Row
        let name: String
        init(row: Row) {
            self.row = row
            name = row["name"]
        }
    }

    /// Keeps a copy of its row, to tell which columns a lookup read.
    struct Scored: FetchableRecord, TableRecord {
        static let databaseTableName = "player"
        var row: Row
        init(row: Row) { self.row = row.copy() }
    }

    /// The connection of ``nestedLookup()``, for the records it fetches.
    nonisolated(unsafe) static var nestedDatabase: Database?

    /// Fetches another record by key while its own row is read.
    struct Nested: FetchableRecord, TableRecord {
        static let databaseTableName = "player"
        var name: String
        var friendName: String?
        init(row: Row) throws {
            name = row["name"]
            let friendID: Int64? = row["friendId"]
            guard let friendID else { return }
            // Nothing to do with the outer row: it is read again after.
            friendName = try Nested.fetchOne(RecordLookupRowTests.nestedDatabase!, key: friendID)?.name
            #expect(row["name"] as String == name)
        }
    }

    private static func makePlayers(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, friendId INTEGER);
                INSERT INTO player VALUES (1, 'Arthur', 2), (2, 'Barbara', 3), (3, 'Craig', NULL);
                """)
    }

    @Test("a record that keeps its row keeps it for good")
    func keptRow() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            let arthur = try #require(try RowKeeper.fetchOne(db, key: 1))
            let barbara = try #require(try RowKeeper.fetchOne(db, key: 2))
            #expect(arthur.row !== barbara.row)
            #expect(arthur.name == "Arthur")
            #expect(barbara.name == "Barbara")
        }
    }

    /// Rows handed to other threads on purpose: a test of what reading them costs.
    final class SharedRows: @unchecked Sendable {
        let rows: [Row]
        init(_ rows: [Row]) { self.rows = rows }
    }

    struct Friend: FetchableRecord {
        var name: String
        init(row: Row) { name = row["name"] }
    }

    @Test("copied rows, their scopes and their prefetched rows are read by many threads at once, and reads never write")
    func concurrentReadsOfCopiedRows() throws {
        struct Person: TableRecord {
            static let databaseTableName = "player"
            static let friend = belongsTo(Person.self, key: "friend", using: ForeignKey(["friendId"]))
            static let followers = hasMany(Person.self, key: "followers", using: ForeignKey(["friendId"]))
        }
        let dbQueue = DatabaseQueue()
        let shared = try dbQueue.write { db in
            try Self.makePlayers(db)
            let request = Person.including(optional: Person.friend).including(all: Person.followers).order(Column("id"))
            return SharedRows(try Row.fetchAll(db, request))
        }
        // Under ThreadSanitizer, a write made by a read is a report.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                let names = shared.rows.map { $0["name"] as String }
                let friends = shared.rows.map { ($0["friend"] as Friend?)?.name }
                let followers = shared.rows.map { ($0["followers"] as [Friend]).map(\.name) }
                #expect(names == ["Arthur", "Barbara", "Craig"])
                #expect(friends == ["Barbara", "Craig", nil])
                #expect(followers == [[], ["Arthur"], ["Barbara"]])
                #expect(shared.rows[0].scopes["friend"]?["NAME"] as String? == "Barbara")
            }
        }
    }

    @Test("a lookup inside a record's init(row:) leaves the outer row alone")
    func nestedLookup() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            Self.nestedDatabase = db
            defer { Self.nestedDatabase = nil }
            let arthur = try Nested.fetchOne(db, key: 1)
            #expect(arthur?.name == "Arthur")
            #expect(arthur?.friendName == "Barbara")
        }
    }

    @Test("the columns a table gains are read by the next lookups")
    func schemaChange() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            #expect(try Scored.fetchOne(db, key: 1)?.row.columnNames == ["id", "name", "friendId"])
            try db.execute(sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 7")
            let row = try #require(try Scored.fetchOne(db, key: 1)?.row)
            #expect(row.columnNames == ["id", "name", "friendId", "score"])
            #expect(row["score"] as Int? == 7)
            #expect(try Row.fetchOne(db, sql: "SELECT * FROM player WHERE id = 2")?.columnNames == ["id", "name", "friendId", "score"])
        }
    }

    @Test("the columns another connection adds are read by the next lookups")
    func schemaChangeByAnotherConnection() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        try dbQueue.write { db in try Self.makePlayers(db) }
        try dbQueue.read { (db: Database) throws in
            #expect(try Scored.fetchOne(db, key: 1)?.row.columnNames == ["id", "name", "friendId"])
            #expect(try Row.fetchOne(db, sql: "SELECT * FROM player")?.columnNames == ["id", "name", "friendId"])
        }
        let other = try directory.makeQueue()
        try other.write { db in try db.execute(sql: "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 7") }
        try dbQueue.read { (db: Database) throws in
            #expect(try Scored.fetchOne(db, key: 1)?.row.columnNames == ["id", "name", "friendId", "score"])
            #expect(try Row.fetchOne(db, sql: "SELECT * FROM player")?.columnNames == ["id", "name", "friendId", "score"])
        }
    }

    /// A record of a second table, for lookups that alternate tables.
    struct Team: FetchableRecord, TableRecord {
        static let databaseTableName = "team"
        var name: String
        init(row: Row) { name = row["name"] }
    }

    @Test("lookups that alternate tables each get their own table's record")
    func alternatingTables() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            try db.execute(sql: "CREATE TABLE team (code TEXT PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO team VALUES ('a', 'Reds'), ('b', 'Blues')")
            for _ in 0..<3 {
                #expect(try RowKeeper.fetchOne(db, key: 1)?.name == "Arthur")
                #expect(try Team.fetchOne(db, key: "a")?.name == "Reds")
                #expect(try Team.fetchOne(db, key: "c") == nil)
                #expect(try RowKeeper.fetchOne(db, key: 2)?.name == "Barbara")
                #expect(try Team.fetchOne(db, key: "b")?.name == "Blues")
                #expect(try RowKeeper.fetchOne(db, key: Int?.none) == nil)
                #expect(try RowKeeper.fetchOne(db, key: 3)?.name == "Craig")
            }
        }
    }

    /// A primary key of two columns for the player table.
    private static let twoColumnKey = """
        DROP TABLE player;
        CREATE TABLE player (id INTEGER, name TEXT NOT NULL, PRIMARY KEY (id, name));
        INSERT INTO player VALUES (1, 'Arthur');
        """

    @Test("a table that got a primary key of two columns refuses lookups by one key, even right after one")
    func primaryKeyChange() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            #expect(try RowKeeper.fetchOne(db, key: 1)?.name == "Arthur")
            try db.execute(sql: Self.twoColumnKey)
            expectDatabaseError(.SQLITE_MISUSE) { try RowKeeper.fetchOne(db, key: 1) }
        }

        // The same change, made by another connection between two accesses.
        try dbQueue.write { db in
            try db.execute(sql: "DROP TABLE player")
            try Self.makePlayers(db)
        }
        try dbQueue.read { (db: Database) throws in
            #expect(try RowKeeper.fetchOne(db, key: 2)?.name == "Barbara")
        }
        let other = try directory.makeQueue()
        try other.write { db in try db.execute(sql: Self.twoColumnKey) }
        try dbQueue.read { (db: Database) throws in
            _ = expectDatabaseError(.SQLITE_MISUSE) { try RowKeeper.fetchOne(db, key: 1) }
        }
    }

    @Test("a connection closes after lookups: the kept row does not hold a statement open")
    func close() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        try dbQueue.write { db in
            try Self.makePlayers(db)
            _ = try RowKeeper.fetchOne(db, key: 1)
            _ = try RowKeeper.fetchOne(db, key: 3)
        }
        try dbQueue.close()
    }
}
