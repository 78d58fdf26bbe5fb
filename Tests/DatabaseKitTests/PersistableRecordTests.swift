import DatabaseKit
import Foundation
import Testing
import TestSupport

// Serialized: tests share `Country.insertedCodes` and `EmployeeContext.db`,
// static state that parallel tests would interleave.
@Suite("Persistable records", .serialized)
struct PersistableRecordTests {
    /// A Codable record whose id comes from the database.
    struct Player: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
        struct Profile: Codable, Equatable {
            var city: String
            var tags: [String]
        }
        enum Level: String, Codable { case beginner, expert }  // Codable only: stored as its raw value
        var id: Int64?
        var name: String
        var score: Int?
        var level: Level
        var profile: Profile?
        var joined: Date

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    /// A hand-written record on a table with a text primary key.
    final class Country: FetchableRecord, PersistableRecord {
        static let databaseTableName = "countries"
        enum Columns {
            static let code = Column("code")
            static let name = Column("name")
        }
        let code: String
        var name: String
        nonisolated(unsafe) static var insertedCodes: [String] = []
        init(code: String, name: String) {
            self.code = code
            self.name = name
        }
        init(row: Row) {
            code = row[Columns.code]
            name = row[Columns.name]
        }
        func encode(to container: inout PersistenceContainer) {
            container[Columns.code] = code
            container[Columns.name] = name
        }
        func didInsert(_ inserted: InsertionSuccess) { Country.insertedCodes.append(code) }
    }

    /// A record of the schema cache tests, whose table changes under it.
    struct Thing: Codable, FetchableRecord, PersistableRecord {
        var code: String
        var name: String
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("score", .integer)
                t.column("level", .text).notNull().defaults(to: "beginner")
                t.column("profile", .json)
                t.column("joined", .datetime).notNull()
            }
            try db.create(table: "countries") { t in
                t.primaryKey("code", .text)
                t.column("name", .text).notNull()
            }
        }
        return dbQueue
    }

    @Test("insert sets the id through didInsert; Codable values are stored as columns and JSON")
    func insertCodable() throws {
        let dbQueue = try makeDatabase()
        let joined = Date(timeIntervalSince1970: 1_700_000_000)
        try dbQueue.write { db in
            var player = Player(
                id: nil, name: "Arthur", score: 1000, level: .expert,
                profile: .init(city: "Paris", tags: ["a"]), joined: joined)
            try player.insert(db)
            #expect(player.id == 1)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM player"))
            #expect(row["level"] as String == "expert")
            #expect(row["profile"] as String == #"{"city":"Paris","tags":["a"]}"#)
            #expect(row["joined"] as Date == joined)
            #expect(try Player.fetchOne(db, key: 1) == player)
            #expect(try Player.fetchOne(db, key: 2) == nil)
            #expect(try Player.fetchOne(db, key: Int64?.none) == nil)
            #expect(try Player.fetchCount(db) == 1)
            let second = try Player(
                id: nil, name: "Barbara", score: nil, level: .beginner, profile: nil, joined: joined
            ).inserted(db)
            #expect(second.id == 2)
            #expect(try Player.fetchAll(db).map(\.name) == ["Arthur", "Barbara"])
            #expect(try Player.fetchOne(db, key: ["name": "Barbara"])?.id == 2)
            #expect(try Player.exists(db, key: 2))
        }
    }

    @Test("update, updateChanges, save, delete and exists")
    func updateSaveDelete() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 10, level: .beginner, profile: nil, joined: Date())
            try player.save(db)  // no id: insert
            #expect(player.id == 1)
            let old = player
            player.score = 20
            try player.update(db)
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player") == 20)
            player.score = nil
            try player.update(db, columns: ["score"])
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player") == nil)
            player.name = "Arthur II"
            #expect(try player.updateChanges(db, from: old))
            #expect(try !player.updateChanges(db, from: player))
            #expect(try String.fetchOne(db, sql: "SELECT name FROM player") == "Arthur II")
            player.score = 30
            try player.save(db)  // an id: update
            #expect(try Player.fetchCount(db) == 1)
            #expect(try player.exists(db))
            #expect(try player.delete(db))
            #expect(try !player.delete(db))
            #expect(try !player.exists(db))
            // Updating a record that is not in the database.
            #expect(throws: RecordError.self) { try player.update(db) }
            do {
                try player.update(db)
            } catch let error as RecordError {
                #expect(error.description == "Key not found in table player: [id:1]")
            }
            // save inserts a record whose id is not in the database.
            try player.save(db)
            #expect(try Player.fetchOne(db, key: 1)?.name == "Arthur II")
        }
    }

    @Test("a nil optional of any primitive type is written as NULL, so that update clears the column")
    func nilOptionalsOfEveryPrimitive() throws {
        struct Sample: Codable, FetchableRecord, PersistableRecord {
            var id: Int64
            var b: Bool?, s: String?, d: Double?, f: Float?
            var i: Int?, i8: Int8?, i16: Int16?, i32: Int32?, i64: Int64?
            var u: UInt?, u8: UInt8?, u16: UInt16?, u32: UInt32?, u64: UInt64?
        }
        let columns = ["b", "s", "d", "f", "i", "i8", "i16", "i32", "i64", "u", "u8", "u16", "u32", "u64"]
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "sample") { t in
                t.primaryKey("id", .integer)
                for column in columns { t.column(column) }
            }
            var sample = Sample(
                id: 1, b: true, s: "x", d: 1.5, f: 2.5, i: 1, i8: 2, i16: 3, i32: 4, i64: 5, u: 6, u8: 7, u16: 8, u32: 9,
                u64: 10)
            try sample.insert(db)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample WHERE i32 = 4 AND f = 2.5") == 1)
            sample = Sample(id: 1)
            #expect(try sample.databaseContainer().columns == ["id"] + columns)
            try sample.update(db)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sample"))
            for column in columns {
                #expect(row.hasNull(atIndex: try #require(row.index(forColumn: column))), "\(column)")
            }
            // save of a record already in the database updates it.
            sample.s = "saved"
            try sample.save(db)
            #expect(try String.fetchOne(db, sql: "SELECT s FROM sample") == "saved")
            #expect(try Sample.fetchCount(db) == 1)
        }
    }

    @Test("constraint violations throw DatabaseError and change nothing")
    func constraintViolation() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 1, level: .beginner, profile: nil, joined: Date())
            try player.insert(db)
            var duplicate = player
            duplicate.id = nil
            #expect(throws: DatabaseError.self) { try duplicate.insert(db) }
            do {
                try duplicate.insert(db)
            } catch let error as DatabaseError {
                #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            }
            #expect(duplicate.id == nil)
            try duplicate.insert(db, onConflict: .ignore)
            try duplicate.insert(db, onConflict: .replace)
            #expect(try Player.fetchCount(db) == 1)
        }
    }

    @Test("hand-written PersistableRecord: non-mutating insert, delete by key, unique keys")
    func handWritten() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            Country.insertedCodes = []
            try Country(code: "FR", name: "France").insert(db)
            try Country(code: "DE", name: "Germany").insert(db)
            #expect(Country.insertedCodes == ["FR", "DE"])
            #expect(try Country.fetchOne(db, key: "FR")?.name == "France")
            let country = try Country.find(db, key: "DE")
            country.name = "Deutschland"
            try country.update(db)
            #expect(try Country.fetchOne(db, key: "DE")?.name == "Deutschland")
            #expect(throws: RecordError.self) { try Country.find(db, key: "XX") }
            #expect(try Country.deleteOne(db, key: "FR"))
            #expect(try !Country.deleteOne(db, key: "FR"))
            #expect(try Country.deleteOne(db, key: ["code": "DE"]))
            // "name" is not a unique key: refused, with the columns named.
            do {
                _ = try Country.fetchOne(db, key: ["name": "France"])
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.resultCode == .SQLITE_MISUSE)
                #expect(error.message?.contains("no unique key on column(s) name") == true)
            }
            try Country(code: "IT", name: "Italy").insert(db)
            #expect(try Country.deleteAll(db) == 1)
        }
    }

    @Test("a table without an explicit primary key uses the rowid")
    func hiddenRowID() throws {
        struct Note: Codable, FetchableRecord, PersistableRecord {
            var text: String
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "note") { t in t.column("text", .text) }
            try Note(text: "hello").insert(db)
            #expect(try Note.fetchOne(db, key: 1)?.text == "hello")
            #expect(try Note.deleteOne(db, key: 1))
            #expect(try Note.fetchCount(db) == 0)
        }
    }

    @Test("a schema change by another connection is seen at the next access")
    func schemaChangeByAnotherConnection() throws {
        let directory = TemporaryDirectory()
        let first = try DatabaseQueue(path: directory.file("db.sqlite"))
        let second = try DatabaseQueue(path: directory.file("db.sqlite"))
        try first.write { db in
            try db.create(table: "thing") { t in
                t.column("code", .text)
                t.column("name", .text)
            }
            try Thing(code: "a", name: "A").insert(db)
        }
        #expect(try first.read { db in try db.primaryKey("thing").columns } == ["rowid"])
        try second.write { db in
            try db.drop(table: "thing")
            try db.create(table: "thing") { t in
                t.primaryKey("code", .text)
                t.column("name", .text)
            }
        }
        try first.write { db in
            #expect(try db.primaryKey("thing").columns == ["code"])
            try Thing(code: "b", name: "B").insert(db)
            #expect(try Thing.fetchOne(db, key: "b")?.name == "B")
        }
    }

    /// The connection that `Employee.init(row:)` fetches its manager with.
    final class EmployeeContext: @unchecked Sendable {
        nonisolated(unsafe) static var db: Database?
    }

    struct Employee: FetchableRecord, TableRecord {
        var name: String
        var managerName: String?
        var nameAfterNestedFetch: String
        init(row: Row) throws {
            name = row["name"]
            let managerId: Int64? = row["managerId"]
            if let managerId, let db = EmployeeContext.db {
                managerName = try Employee.fetchOne(db, key: managerId)?.name
            }
            nameAfterNestedFetch = row["name"]  // the outer row must not have moved
        }
    }

    @Test("a record may fetch a record of its own table by key while it is decoded")
    func nestedFetchOfTheSameTable() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "employee") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
                t.column("managerId", .integer).references("employee")
            }
            try db.execute(sql: "INSERT INTO employee (name, managerId) VALUES ('Boss', NULL), ('Worker', 1)")
            EmployeeContext.db = db
            defer { EmployeeContext.db = nil }
            let worker = try #require(try Employee.fetchOne(db, key: 2))
            #expect(worker.name == "Worker")
            #expect(worker.managerName == "Boss")
            #expect(worker.nameAfterNestedFetch == "Worker")
        }
    }

    @Test("the table name defaults to the type name with a lowercased first letter")
    func defaultTableName() {
        struct Player: TableRecord {}
        struct HTTPRequest: TableRecord {}
        struct URL: TableRecord {}
        #expect(Player.databaseTableName == "player")
        #expect(HTTPRequest.databaseTableName == "httpRequest")
        #expect(URL.databaseTableName == "url")
    }

    @Test("insertAndFetch returns the row with its defaults")
    func insertAndFetch() throws {
        struct Item: Codable, FetchableRecord, MutablePersistableRecord {
            var id: Int64?
            var name: String
            var level: String?
            enum CodingKeys: String, CodingKey { case id, name }
            init(id: Int64?, name: String) {
                self.id = id
                self.name = name
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                id = try container.decode(Int64.self, forKey: AnyKey("id"))
                name = try container.decode(String.self, forKey: AnyKey("name"))
                level = try container.decode(String.self, forKey: AnyKey("level"))
            }
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
                t.column("level", .text).defaults(to: "beginner")
            }
            let item = try Item(id: nil, name: "x").insertAndFetch(db)
            #expect(item.id == 1)
            #expect(item.level == "beginner")
        }
    }

    @Test("the schema cache follows schema changes, including a rolled back one")
    func schemaCacheInvalidation() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "thing") { t in
                t.column("code", .text)
                t.column("name", .text)
            }
            #expect(try db.primaryKey("thing").columns == ["rowid"])
            try db.drop(table: "thing")
            try db.create(table: "thing") { t in
                t.primaryKey("code", .text)
                t.column("name", .text)
            }
            #expect(try db.primaryKey("thing").columns == ["code"])
            try Thing(code: "a", name: "A").insert(db)
            #expect(try Thing.fetchOne(db, key: "a")?.name == "A")
        }
        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.drop(table: "thing")
                try db.create(table: "thing") { t in t.column("other", .text) }
                #expect(try db.primaryKey("thing").columns == ["rowid"])
                return .rollback
            }
            #expect(try db.primaryKey("thing").columns == ["code"])
        }
    }
}

/// A coding key from a string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
