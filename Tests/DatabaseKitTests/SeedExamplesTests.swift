// swift-format-ignore-file
// (The examples are kept exactly as the seeds print them.)
//
// The Swift examples of the seed documents (../shared/seeds/), compiled and run
// against DatabaseKit. They are the first users of the API: each example is
// copied as it is, with `import GRDB` replaced by `import DatabaseKit`, and
// wrapped in a test (and, where the example uses a `db` it does not define, in
// a `dbQueue.write { db in ... }` block).
//
// The only edits, each forced by the example not being valid Swift as printed:
// - 000 "HOW TO open a read-only connection": the first line,
//   `if let dbPath = Bundle.main.path(...)`, has no body; it reads
//   `let dbPath = ...` here, as the following `if let dbPath {` intends.
// - 002 `label`: `DatabaseQueue(path: ..., configuration:)` has a `...`
//   placeholder; it is given a temporary path here.
// - 004 "Executing Updates": the example ends with one `}` too many; it is
//   dropped.
//
// Examples that use `/path/to/database.sqlite` run as printed: that directory
// does not exist here, so they are expected to fail to open, which is what
// SQLite does with such a path.
//
// - 003 "A database queue/pool can be used from any thread": the placeholders
//   `db.create(table: "places") { ... }` and `Place(...)` are filled with a
//   table definition and a place (`Place` and `placesDefinition` below).
//   Everything else in those examples is as printed.
// - 004 "Records": `Player` is the record the GRDB documentation defines for
//   it (below), with `init(name:score:)`.

import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Seed examples")
struct SeedExamplesTests {
    // MARK: 000/001 Database Connections

    @Test("000: opening a connection with a placeholder path fails cleanly")
    func openingPlaceholderPath() throws {
        func example() throws {
            // Pick one:
            let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite")
            _ = dbQueue
        }
        #expect(throws: DatabaseError.self) { try example() }
        #expect(!FileManager.default.fileExists(atPath: "/path/to/database.sqlite"))
    }

    @Test("000: HOW TO open a read-only connection to a database resource")
    func readOnlyResource() throws {
        // There is no bundle resource here: the example takes its `else` branch.
        func example() throws {
            // HOW TO open a read-only connection to a database resource

            // Get the path to the database resource.
            // Replace `Bundle.main` with `Bundle.module` when you write a Swift Package.
            let dbPath = Bundle.main.path(forResource: "db", ofType: "sqlite")

            if let dbPath {
                // If the resource exists, open a read-only connection.
                // Writes are disallowed because resources can not be modified.
                var config = Configuration()
                config.readonly = true
                let dbQueue = try DatabaseQueue(path: dbPath, configuration: config)
                _ = dbQueue
            } else {
                // The database resource can not be found.
                // Fix your setup, or report the problem to the user.
            }
        }
        #expect(Bundle.main.path(forResource: "db", ofType: "sqlite") == nil, "the example takes its else branch here")
        try example()

        // Its other branch, on a real file: the read-only connection reads, and refuses writes.
        let directory = TemporaryDirectory()
        try directory.makeQueue().write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        var config = Configuration()
        config.readonly = true
        let dbQueue = try DatabaseQueue(path: directory.file("db.sqlite"), configuration: config)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") } == 1)
        #expect(throws: DatabaseError.self) { try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } }
    }

    @Test("000: HOW TO create an empty database, or open an existing database file")
    func createInApplicationSupport() async throws {
        // The example writes into the user's Application Support directory
        // (XDG_DATA_HOME on Linux): run it in a child process whose
        // XDG_DATA_HOME is a temporary directory.
        await #expect(processExitsWith: .success) {
            let home = NSTemporaryDirectory() + "seed-000-\(UUID().uuidString)"
            setenv("XDG_DATA_HOME", home, 1)
            defer { try? FileManager.default.removeItem(atPath: home) }

            // HOW TO create an empty database, or open an existing database file

            // Create the "Application Support/MyDatabase" directory if needed
            let fileManager = FileManager.default
            let appSupportURL = try fileManager.url(
                for: .applicationSupportDirectory, in: .userDomainMask,
                appropriateFor: nil, create: true)
            let directoryURL = appSupportURL.appendingPathComponent("MyDatabase", isDirectory: true)
            try fileManager.createDirectory(at: directoryURL, withIntermediateDirectories: true)

            // Open or create the database
            let databaseURL = directoryURL.appendingPathComponent("db.sqlite")
            let dbQueue = try DatabaseQueue(path: databaseURL.path)

            // The example ends here; check what it did.
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
            guard databaseURL.path.hasPrefix(home), fileManager.fileExists(atPath: databaseURL.path) else {
                exit(1)
            }
        }
    }

    // MARK: 002 Configuration

    @Test("002: label")
    func label() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        var printed: String?? = nil
        func print(_ value: String?) { printed = value }

        var configuration = Configuration()
        configuration.label = "MyDatabase"
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)

        try dbQueue.read { db in
            print(db.configuration.label) // Prints "MyDatabase"
        }
        #expect(printed == "MyDatabase")
    }

    @Test("002: allowsUnsafeTransactions = false stops the program")
    func unsafeTransactionIsFatal() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = DatabaseQueue()

            // fatal error: A transaction has been left opened at the end of a database access
            try dbQueue.inDatabase { db in
                try db.beginTransaction()
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("A transaction has been left opened at the end of a database access"))
    }

    @Test("002: allowsUnsafeTransactions = true")
    func allowsUnsafeTransactions() throws {
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let dbQueue = DatabaseQueue(configuration: config)

        try dbQueue.inDatabase { db in
            try db.beginTransaction()
        }

        try dbQueue.inDatabase { db in
            try db.commit()
        }

        dbQueue.inDatabase { db in #expect(!db.isInsideTransaction) }
    }

    // MARK: 003 Database Queues

    @Test("003: open a database queue")
    func openDatabaseQueue() throws {
        func example() throws {
            let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite")
            let inMemoryDBQueue = DatabaseQueue()
            _ = (dbQueue, inMemoryDBQueue)
        }
        #expect(throws: DatabaseError.self) { try example() }

        // The in-memory half of the example works on its own.
        let inMemoryDBQueue = DatabaseQueue()
        #expect(try inMemoryDBQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test("003: DatabaseQueue Configuration")
    func databaseQueueConfiguration() throws {
        func example() throws {
            var config = Configuration()
            config.readonly = true
            config.foreignKeysEnabled = true // Default is already true
            config.trace = { print($0) }     // Prints all SQL statements

            let dbQueue = try DatabaseQueue(
                path: "/path/to/database.sqlite",
                configuration: config)
            _ = dbQueue
        }
        // Read-only, and the file does not exist: opening fails and creates nothing.
        #expect(throws: DatabaseError.self) { try example() }
    }

    // MARK: 000/003 Database Pools

    @Test("000: pick one (queue or pool)")
    func pickOne() throws {
        func example() throws {
            // Pick one:
            let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite")
            let dbPool = try DatabasePool(path: "/path/to/database.sqlite")
            _ = (dbQueue, dbPool)
        }
        #expect(throws: DatabaseError.self) { try example() }
    }

    @Test("003: open a database pool")
    func openDatabasePool() throws {
        func example() throws {
            let dbPool = try DatabasePool(path: "/path/to/database.sqlite")
            _ = dbPool
        }
        #expect(throws: DatabaseError.self) { try example() }
    }

    @Test("003: DatabasePool Configuration")
    func databasePoolConfiguration() throws {
        func example() throws {
            var config = Configuration()
            config.readonly = true
            config.foreignKeysEnabled = true // Default is already true
            config.trace = { print($0) }     // Prints all SQL statements
            config.maximumReaderCount = 10   // The default is 5

            let dbPool = try DatabasePool(
                path: "/path/to/database.sqlite",
                configuration: config)
            _ = dbPool
        }
        // Read-only, and the file does not exist: opening fails and creates nothing.
        #expect(throws: DatabaseError.self) { try example() }
    }

    // MARK: 004 SQL API: Executing Updates

    @Test("004: execute(sql:arguments:) with array and dictionary arguments")
    func executeUpdates() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    score INT)
                """)

            try db.execute(
                sql: "INSERT INTO player (name, score) VALUES (?, ?)",
                arguments: ["Barbara", 1000])

            try db.execute(
                sql: "UPDATE player SET score = :score WHERE id = :id",
                arguments: ["score": 1000, "id": 1])
        }
        let row = try dbQueue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM player") }
        #expect(row == ["id": 1, "name": "Barbara", "score": 1000])
    }

    @Test("004: execute(literal:)")
    func executeLiteral() throws {
        let dbQueue = try makePlayerDatabase()
        try dbQueue.write { db in
            let name = "O'Brien"
            let score = 550
            try db.execute(literal: """
                INSERT INTO player (name, score) VALUES (\(name), \(score))
                """)
        }
        let row = try dbQueue.read { db in try Row.fetchOne(db, sql: "SELECT name, score FROM player") }
        #expect(row == ["name": "O'Brien", "score": 550])
    }

    @Test("004: avoiding SQL injection")
    func avoidingSQLInjection() throws {
        struct TextField { var text: String }
        let textField = TextField(text: "Arthur")
        let dbQueue = try makePlayerDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (id, name, score) VALUES (123, 'x', 0)")

            // WRONG: don't embed values in raw SQL strings
            let id = 123
            let name = textField.text
            try db.execute(
                sql: "UPDATE player SET name = '\(name)' WHERE id = \(id)")

            // CORRECT: use arguments dictionary
            try db.execute(
                sql: "UPDATE player SET name = :name WHERE id = :id",
                arguments: ["name": name, "id": id])

            // CORRECT: use arguments array
            try db.execute(
                sql: "UPDATE player SET name = ? WHERE id = ?",
                arguments: [name, id])

            // CORRECT: use SQL Interpolation
            try db.execute(
                literal: "UPDATE player SET name = \(name) WHERE id = \(id)")
        }
        #expect(try dbQueue.read { db in try String.fetchOne(db, sql: "SELECT name FROM player WHERE id = 123") } == "Arthur")
    }

    @Test("004: join multiple statements with a semicolon")
    func multipleStatements() throws {
        let dbQueue = try makePlayerDatabase()
        try dbQueue.write { db in
            try db.execute(sql: """
                INSERT INTO player (name, score) VALUES (?, ?);
                INSERT INTO player (name, score) VALUES (?, ?);
                """, arguments: ["Arthur", 750, "Barbara", 1000])

            try db.execute(literal: """
                INSERT INTO player (name, score) VALUES (\("Arthur"), \(750));
                INSERT INTO player (name, score) VALUES (\("Barbara"), \(1000));
                """)
        }
        let rows = try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id")
        }
        #expect(rows == [
            ["name": "Arthur", "score": 750], ["name": "Barbara", "score": 1000],
            ["name": "Arthur", "score": 750], ["name": "Barbara", "score": 1000],
        ])
    }

    @Test("004: lastInsertedRowID")
    func lastInsertedRowID() throws {
        let dbQueue = try makePlayerDatabase()
        let (playerId, fetchedId) = try dbQueue.write { db in
            try db.execute(
                sql: "INSERT INTO player (name, score) VALUES (?, ?)",
                arguments: ["Arthur", 1000])
            let playerId = db.lastInsertedRowID
            return (playerId, try Int64.fetchOne(db, sql: "SELECT id FROM player WHERE name = 'Arthur'"))
        }
        #expect(playerId == fetchedId)
        #expect(playerId > 0)
    }

    // MARK: 003 access methods, with records

    /// The record the 003 examples use.
    struct Place: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "places"
        var id: Int64?
        var title: String
        var favorite: Bool
    }

    /// The `{ ... }` of `db.create(table: "places") { ... }`.
    static func placesDefinition(_ t: TableDefinition) {
        t.autoIncrementedPrimaryKey("id")
        t.column("title", .text).notNull()
        t.column("favorite", .boolean).notNull().defaults(to: false)
    }

    @Test("003: database queue access methods (inDatabase, inTransaction)")
    func databaseQueueAccess() throws {
        let dbQueue = DatabaseQueue()
        // Execute database statements:
        try dbQueue.inDatabase { db in
            try db.create(table: "places") { t in Self.placesDefinition(t) }
            try Place(id: nil, title: "Paris", favorite: true).insert(db)
        }

        // Wrap database statements in a transaction:
        try dbQueue.inTransaction { db in
            if let place = try Place.fetchOne(db, key: 1) {
                try place.delete(db)
            }
            return .commit
        }

        // Read values:
        try dbQueue.inDatabase { db in
            let places = try Place.fetchAll(db)
            let placeCount = try Place.fetchCount(db)
            #expect(places.isEmpty && placeCount == 0)
        }

        // Extract a value from the database:
        let placeCount = try dbQueue.inDatabase { db in
            try Place.fetchCount(db)
        }
        #expect(placeCount == 0)
    }

    @Test("003: database pool access methods (write, writeInTransaction, read)")
    func databasePoolAccess() throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        // Execute database statements:
        try dbPool.write { db in
            try db.create(table: "places") { t in Self.placesDefinition(t) }
            try Place(id: nil, title: "Paris", favorite: true).insert(db)
            try Place(id: nil, title: "Rome", favorite: false).insert(db)
        }

        // Wrap database statements in a transaction:
        try dbPool.writeInTransaction { db in
            if let place = try Place.fetchOne(db, key: 1) {
                try place.delete(db)
            }
            return .commit
        }

        // Read values:
        try dbPool.read { db in
            let places = try Place.fetchAll(db)
            let placeCount = try Place.fetchCount(db)
            #expect(places.map(\.title) == ["Rome"] && placeCount == 1)
        }

        // Extract a value from the database:
        let placeCount = try dbPool.read { db in
            try Place.fetchCount(db)
        }
        #expect(placeCount == 1)
    }

    // MARK: 004 Records

    /// The record of GRDB's documentation, for the 004 "Records" example.
    struct Player: Codable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var name: String
        var score: Int
        init(name: String, score: Int) {
            self.name = name
            self.score = score
        }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
        }
    }

    @Test("004: persistence methods set the id on insert")
    func recordInsert() throws {
        let dbQueue = try makePlayerDatabase()
        let (playerId, fetched) = try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 1000)
            try player.insert(db)
            let playerId = player.id
            return (playerId, try Player.fetchOne(db, key: playerId))
        }
        #expect(playerId == 1)
        #expect(fetched?.name == "Arthur" && fetched?.score == 1000)
    }

    private func makePlayerDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    score INT)
                """)
        }
        return dbQueue
    }
}
