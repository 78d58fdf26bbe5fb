import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The persistence methods GRDB documents beyond insert/update/delete:
/// callbacks, upsert, the `AndFetch` variants, change tracking, lookups by
/// keys and ids, and the `Record` class.
// Serialized: two tests record callbacks into `Logged`'s static log, which
// a parallel run of both would interleave.
@Suite("Record persistence: callbacks, upsert, fetch variants, keys, Record", .serialized)
struct RecordPersistenceTests {
    struct Player: Codable, FetchableRecord, MutablePersistableRecord, Identifiable, Hashable {
        var id: Int64?
        var name: String
        var score: Int
        var bonus: Int?

        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
        }
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT NOT NULL DEFAULT 0,
                        bonus INT, createdAt TEXT DEFAULT 'now')
                    """)
        }
        return dbQueue
    }

    // MARK: Callbacks

    /// Logs its callbacks; `aroundInsert` can be told to swallow the insertion.
    struct Logged: Codable, MutablePersistableRecord {
        static let databaseTableName = "player"
        nonisolated(unsafe) static var log: [String] = []
        nonisolated(unsafe) static var skipsInsert = false
        var id: Int64?
        var name: String
        var score = 0

        mutating func willInsert(_ db: Database) throws { Self.log.append("willInsert") }
        func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            Self.log.append("aroundInsert>")
            if !Self.skipsInsert { _ = try insert() }
            Self.log.append("<aroundInsert")
        }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            Self.log.append("didInsert")
        }
        func willUpdate(_ db: Database, columns: Set<String>) throws { Self.log.append("willUpdate \(columns.sorted())") }
        func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
            Self.log.append("aroundUpdate>")
            _ = try update()
            Self.log.append("<aroundUpdate")
        }
        func didUpdate(_ updated: PersistenceSuccess) { Self.log.append("didUpdate") }
        func willSave(_ db: Database) throws { Self.log.append("willSave") }
        func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
            Self.log.append("aroundSave>")
            _ = try save()
            Self.log.append("<aroundSave")
        }
        func didSave(_ saved: PersistenceSuccess) { Self.log.append("didSave") }
        func willDelete(_ db: Database) throws { Self.log.append("willDelete") }
        func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
            Self.log.append("aroundDelete>")
            _ = try delete()
            Self.log.append("<aroundDelete")
        }
        func didDelete(deleted: Bool) { Self.log.append("didDelete \(deleted)") }
    }

    @Test("callbacks run in GRDB's order for insert, update, save and delete")
    func callbackOrder() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            Logged.log = []
            var record = Logged(id: nil, name: "Arthur")
            try record.insert(db)
            #expect(
                Logged.log == [
                    "willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert", "didInsert", "<aroundSave", "didSave",
                ])
            Logged.log = []
            try record.update(db, columns: ["score"])
            #expect(
                Logged.log == [
                    "willSave", "aroundSave>", "willUpdate [\"score\"]", "aroundUpdate>", "<aroundUpdate", "didUpdate", "<aroundSave",
                    "didSave",
                ])
            Logged.log = []
            try record.update(db)
            // Every column of the table.
            #expect(Logged.log[2] == "willUpdate [\"bonus\", \"createdAt\", \"id\", \"name\", \"score\"]")
            Logged.log = []
            try record.save(db)
            #expect(Logged.log.contains("didUpdate") && !Logged.log.contains("didInsert"))
            Logged.log = []
            #expect(try record.delete(db))
            #expect(Logged.log == ["willDelete", "aroundDelete>", "<aroundDelete", "didDelete true"])
            Logged.log = []
            try record.save(db)  // the row is gone: save inserts
            #expect(Logged.log.contains("willUpdate [\"bonus\", \"createdAt\", \"id\", \"name\", \"score\"]"))
            #expect(Logged.log.contains("didInsert"))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") == 1)
        }
    }

    @Test("an around callback that does not call its function makes the method throw SQLITE_MISUSE")
    func aroundCallbackMisuse() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            Logged.skipsInsert = true
            defer { Logged.skipsInsert = false }
            var record = Logged(id: nil, name: "Arthur")
            let error = expectDatabaseError(.SQLITE_MISUSE) { try record.insert(db) }
            #expect(error?.message?.contains("`Logged.aroundInsert` persistence callback") == true)
        }
    }

    // MARK: Update variants

    @Test("update(onConflict:columns:) takes names or columns, ignores columns the table lacks, and reports a missing row")
    func updateColumns() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 10)
            try player.insert(db)
            player.score = 20
            player.bonus = 5
            try player.update(db, onConflict: .replace, columns: [Column("score")])
            #expect(try Row.fetchOne(db, sql: "SELECT score, bonus FROM player") == ["score": 20, "bonus": nil])
            try player.update(db, columns: ["bonus", "notAColumn"])
            #expect(try Int.fetchOne(db, sql: "SELECT bonus FROM player") == 5)

            let ghost = Player(id: 99, name: "Ghost", score: 0)
            let error = try #require(throws: RecordError.self) { try ghost.update(db) }
            #expect(error.description == "Key not found in table player: [id:99]")
            let unsaved = Player(id: nil, name: "New", score: 0)
            #expect(throws: RecordError.self) { try unsaved.update(db) }
        }
    }

    @Test("updateChanges(db) { ... } writes only what the closure changed, and nothing when it changed nothing")
    func updateChangesClosure() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL, bonus INT)")
            var player = Player(id: nil, name: "Arthur", score: 10)
            try player.insert(db)
            traced.withLock { $0.removeAll() }
            #expect(try player.updateChanges(db) { $0.score = 11 })
            #expect(traced.current.last == "UPDATE \"player\" SET \"score\" = ? WHERE \"id\" = ?")
            #expect(try !player.updateChanges(db) { $0.score = 11 })
            #expect(player.score == 11)
            let old = player
            player.name = "Barbara"
            #expect(try player.updateChanges(db, from: old))
            #expect(try String.fetchOne(db, sql: "SELECT name FROM player") == "Barbara")
        }
    }

    // MARK: Fetch variants

    struct PartialPlayer: FetchableRecord, TableRecord, Decodable, Equatable {
        static let databaseTableName = "player"
        static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("createdAt")] }
        var id: Int64
        var createdAt: String
    }

    @Test("insertAndFetch, saveAndFetch, updateAndFetch and updateChangesAndFetch return the row SQLite has")
    func andFetchVariants() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 10)
            let partial = try player.insertAndFetch(db, as: PartialPlayer.self)
            #expect(partial == PartialPlayer(id: 1, createdAt: "now"))
            #expect(player.id == 1)  // didInsert ran

            let inserted = try Player(id: nil, name: "Barbara", score: 1).insertAndFetch(db)
            #expect(inserted.id == 2)

            let name = try player.insertAndFetch(db, onConflict: .replace, selection: [Column("name")]) { statement in
                try String.fetchOne(statement)
            }
            #expect(name == "Arthur")
            #expect(throws: DatabaseError.self) {
                try player.insertAndFetch(db, selection: []) { _ in 0 }
            }

            player.score = 50
            #expect(try player.updateAndFetch(db).score == 50)
            #expect(try player.updateChangesAndFetch(db) { $0.score = 60 }?.score == 60)
            #expect(try player.updateChangesAndFetch(db) { $0.score = 60 } == nil)
            let score = try player.updateAndFetch(db, columns: ["score"], selection: [Column("score")]) { try Int.fetchOne($0) }
            #expect(score == 60)

            var fresh = Player(id: nil, name: "Chris", score: 3)
            #expect(try fresh.saveAndFetch(db, as: PartialPlayer.self).id == 3)
            #expect(try fresh.saveAndFetch(db).name == "Chris")
        }
    }

    // MARK: Upsert

    @Test("upsert inserts, or overwrites every column but the key; didInsert gets the rowid of the updated row")
    func upsert() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var arthur = Player(id: 1, name: "Arthur", score: 10, bonus: 1)
            try arthur.upsert(db)
            var conflicting = Player(id: nil, name: "Arthur", score: 20, bonus: nil)
            try conflicting.upsert(db)  // conflicts on the UNIQUE name
            #expect(conflicting.id == 1)
            #expect(try Row.fetchOne(db, sql: "SELECT id, score, bonus FROM player") == ["id": 1, "score": 20, "bonus": nil])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") == 1)
        }
    }

    @Test("upsertAndFetch with a conflict target, noOverwrite, assignments from excluded, and noColumnUnlessSpecified")
    func upsertAndFetch() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 10, bonus: 1)
            let inserted = try player.upsertAndFetch(db)
            #expect(inserted.id == 1 && inserted.score == 10)

            var again = Player(id: nil, name: "Arthur", score: 5, bonus: 7)
            let kept = try again.upsertAndFetch(db, onConflict: ["name"]) { _ in [Column("bonus").noOverwrite] }
            #expect(kept.score == 5 && kept.bonus == 1)

            var more = Player(id: nil, name: "Arthur", score: 3, bonus: 100)
            let summed = try more.upsertAndFetch(db, onConflict: ["name"], updating: .noColumnUnlessSpecified) { excluded in
                [Column("score") += excluded[Column("score")]]
            }
            #expect(summed.score == 8 && summed.bonus == 1)

            var untouched = Player(id: nil, name: "Arthur", score: 0, bonus: 0)
            let same = try untouched.upsertAndFetch(db, onConflict: ["name"], updating: .noColumnUnlessSpecified)
            #expect(same.score == 8)
            #expect(try PartialPlayer.fetchAll(db).count == 1)
        }
    }

    // MARK: Keys and ids

    @Test("fetch, find, delete and exists by key, keys, id and ids; unique-key dictionaries match NULL")
    func keysAndIDs() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            for name in ["Arthur", "Barbara", "Chris"] {
                var player = Player(id: nil, name: name, score: 0)
                try player.insert(db)
            }
            #expect(try Player.fetchOne(db, id: 2)?.name == "Barbara")
            #expect(try Player.fetchOne(db, key: Int64?.none) == nil)
            #expect(try Set(Player.fetchAll(db, ids: [1, 3, 42]).map(\.name)) == ["Arthur", "Chris"])
            #expect(try Player.fetchSet(db, keys: [1, 2]).count == 2)
            #expect(try Player.fetchCursor(db, ids: []).next() == nil)
            #expect(try Player.find(db, key: ["name": "Chris"]).id == 3)
            let error = try #require(throws: RecordError.self) { try Player.find(db, id: 42) }
            #expect(error.description == "Key not found in table player: [id:42]")
            #expect(try Player.exists(db, id: 1))
            #expect(try !Player.exists(db, key: ["name": "Nobody"]))
            #expect(try Player.deleteAll(db, ids: [1, 2, 42]) == 2)
            #expect(try Player.deleteOne(db, key: ["name": "Chris"]))
            #expect(try Player.fetchCount(db) == 0)

            try db.execute(sql: "CREATE TABLE email (address TEXT UNIQUE, note TEXT)")
            try db.execute(sql: "INSERT INTO email VALUES (NULL, 'none'), ('a@b', 'some')")
            struct Email: Decodable, FetchableRecord, TableRecord {
                var address: String?
                var note: String
            }
            #expect(try Email.fetchOne(db, key: ["address": nil])?.note == "none")
            #expect(try Email.fetchAll(db, keys: [["address": "a@b"], ["address": nil]]).count == 2)
            expectDatabaseError(.SQLITE_MISUSE) { try Email.fetchOne(db, key: ["note": "none"]) }
        }
    }

    @Test("table fetches use databaseSelection")
    func databaseSelection() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, createdAt TEXT DEFAULT 'now')")
            try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
            #expect(try PartialPlayer.fetchAll(db) == [PartialPlayer(id: 1, createdAt: "now")])
            #expect(traced.current.last == "SELECT \"id\", \"createdAt\" FROM \"player\"")
            #expect(try PartialPlayer.fetchOne(db, key: 1) != nil)
            #expect(traced.current.last == "SELECT \"id\", \"createdAt\" FROM \"player\" WHERE \"id\" = ?")
        }
    }

    @Test("a record whose table is a view with INSTEAD OF triggers is updated and deleted through them")
    func viewRecord() throws {
        struct Visible: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "visible"
            var id: Int64
            var name: String
        }
        var config = Configuration()
        config.schemaSource = ViewKeySource()
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, hidden INT DEFAULT 0);
                    INSERT INTO item (id, name) VALUES (1, 'a');
                    CREATE VIEW visible AS SELECT id, name FROM item WHERE NOT hidden;
                    CREATE TRIGGER visible_update INSTEAD OF UPDATE ON visible BEGIN
                        UPDATE item SET name = NEW.name WHERE id = OLD.id;
                    END;
                    CREATE TRIGGER visible_delete INSTEAD OF DELETE ON visible BEGIN
                        UPDATE item SET hidden = 1 WHERE id = OLD.id;
                    END;
                    """)
            try Visible(id: 1, name: "b").update(db)
            #expect(try String.fetchOne(db, sql: "SELECT name FROM item") == "b")
            #expect(throws: RecordError.self) { try Visible(id: 2, name: "c").update(db) }
            #expect(try Visible(id: 1, name: "b").delete(db))
            #expect(try Int.fetchOne(db, sql: "SELECT hidden FROM item") == 1)
        }
    }

    struct ViewKeySource: DatabaseSchemaSource {
        func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { ["id"] }
    }

    // MARK: Record class

    final class Book: Record {
        var id: Int64?
        var title: String

        override class var databaseTableName: String { "book" }

        init(id: Int64?, title: String) {
            self.id = id
            self.title = title
            super.init()
        }

        required init(row: Row) throws {
            id = row["id"]
            title = row["title"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            container["id"] = id
            container["title"] = title
        }

        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            id = inserted.rowID
        }
    }

    @Test("Record tracks changes from the fetched row and after each save")
    func recordClass() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT)")
            let book = Book(id: nil, title: "Dune")
            #expect(book.hasDatabaseChanges)
            #expect(try book.databaseChanges.keys.sorted() == ["id", "title"])
            try book.insert(db)
            #expect(book.id == 1)
            #expect(!book.hasDatabaseChanges)
            book.title = "Dune Messiah"
            #expect(try book.databaseChanges == ["title": "Dune".databaseValue])
            traced.withLock { $0.removeAll() }
            #expect(try book.updateChanges(db))
            #expect(traced.current.last == "UPDATE \"book\" SET \"title\" = ? WHERE \"id\" = ?")
            #expect(try !book.updateChanges(db))

            let fetched = try #require(try Book.fetchOne(db, key: 1))
            #expect(!fetched.hasDatabaseChanges)
            #expect(try Book.fetchAll(db).allSatisfy { !$0.hasDatabaseChanges })
            let built = try Book(row: ["id": 1, "title": "Dune Messiah"])
            #expect(built.hasDatabaseChanges)  // not fetched: no reference
            try fetched.delete(db)
            #expect(fetched.hasDatabaseChanges)
        }
    }
}

/// A record container expects the columns of the previous record of its
/// table: records that encode other columns, in another order, twice, or
/// with another case must still write exactly what they encode.
@Suite("Record containers that expect the previous record's columns")
struct PredictedColumnsTests {
    struct Item: MutablePersistableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var a: Int
        var b: String?
        /// How the record encodes: the same columns, fewer, reordered,
        /// one set twice, or one named with another case.
        var shape: Int

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id
            switch shape {
            case 1:
                container["a"] = a  // no b
            case 2:
                container["b"] = b
                container["a"] = a
            case 3:
                container["a"] = -1
                container["b"] = b
                container["a"] = a  // replaces the first value
            case 4:
                container["A"] = a
                container["B"] = b
            default:
                container["a"] = a
                container["b"] = b
            }
        }

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    @Test("each record writes its own columns, whatever the previous one encoded")
    func varyingColumns() throws {
        let dbQueue = DatabaseQueue()
        let shapes = [0, 0, 1, 0, 2, 2, 0, 3, 0, 4, 4, 0, 1, 1]
        let rows = try dbQueue.write { db -> [[DatabaseValue]] in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, a INTEGER, b TEXT DEFAULT 'default')")
            for (index, shape) in shapes.enumerated() {
                var item = Item(id: nil, a: index, b: "b\(index)", shape: shape)
                try item.insert(db)
                #expect(item.id == Int64(index + 1))
                // The container a record reports holds what it encoded.
                let container = try item.databaseContainer()
                #expect(container.columns.count == (shape == 1 ? 2 : 3), "shape \(shape)")
                #expect(container["a"]?.databaseValue == index.databaseValue, "shape \(shape)")
            }
            return try Row.fetchAll(db, sql: "SELECT id, a, b FROM item ORDER BY id").map(\.databaseValues)
        }
        for (index, shape) in shapes.enumerated() {
            let b = shape == 1 ? "default".databaseValue : "b\(index)".databaseValue
            #expect(rows[index] == [Int64(index + 1).databaseValue, index.databaseValue, b], "row \(index), shape \(shape)")
        }
        // Updates of the same table follow the same rules.
        try dbQueue.write { db in
            for (index, shape) in shapes.enumerated() {
                let item = Item(id: Int64(index + 1), a: index * 10, b: "u\(index)", shape: shape)
                try item.update(db)
            }
            let updated = try Int.fetchAll(db, sql: "SELECT a FROM item ORDER BY id")
            #expect(updated == shapes.indices.map { $0 * 10 })
        }
    }
}
