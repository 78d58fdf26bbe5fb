import DatabaseKit
import Foundation
import Testing

/// Codable records as GRDB documents them: coding strategies, JSON columns,
/// scopes, record comparison, and encoding misuses reported as errors.
@Suite("Codable records: strategies, JSON, scopes, comparison")
struct RecordCodingTests {
    struct SnakePlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
        static let databaseTableName = "player"
        static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        var playerId: Int64
        var fullName: String
        var homeUrlString: String?
    }

    struct Acronyms: Encodable, EncodableRecord {
        static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
        var playerID = 1
        var homeURLString = ""
        var _private = 0
        var version2Name = ""
    }

    /// Keys of a string-backed struct (not one byte): looked up by name.
    struct NameKey: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Decodes its keys in an order that depends on the row, with two key
    /// types, a renamed key, and a column the rows do not have.
    struct Shifting: Decodable, FetchableRecord, Equatable {
        enum Keys: String, CodingKey { case a, b, renamed = "c", missing }
        var values: [Int]

        init(values: [Int]) { self.values = values }

        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: Keys.self)
            let byName = try decoder.container(keyedBy: NameKey.self)
            let reversed = try keyed.decode(Int.self, forKey: .a) % 2 == 0
            let names = reversed ? ["c", "b", "a"] : ["a", "b", "c"]
            let keys: [Keys] = reversed ? [.renamed, .b, .a] : [.a, .b, .renamed]
            var values = try keys.map { try keyed.decode(Int.self, forKey: $0) }
            values += try names.map { try byName.decode(Int.self, forKey: NameKey(stringValue: $0)) }
            values.append(try keyed.decodeIfPresent(Int.self, forKey: .missing) ?? -1)
            values.append(try byName.decodeIfPresent(Int.self, forKey: NameKey(stringValue: "missing")) ?? -1)
            self.values = values
        }
    }

    @Test("the column of each key, remembered per statement, follows keys in any order, of any type, renamed or missing")
    func keyColumnsRemembered() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER)")
            for row in 1...6 { try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [row, row * 10, row * 100]) }
            let expected = (1...6).map { row -> Shifting in
                let (a, b, c) = (row, row * 10, row * 100)
                let ordered = row % 2 == 0 ? [c, b, a] : [a, b, c]
                return Shifting(values: ordered + ordered + [-1, -1])
            }
            #expect(try Shifting.fetchAll(db, sql: "SELECT a, b, c FROM t ORDER BY a") == expected)
            // Another statement, other column positions: found again.
            #expect(try Shifting.fetchAll(db, sql: "SELECT c, 0 AS z, b, a FROM t ORDER BY a") == expected)
            let cursor = try Shifting.fetchCursor(db, sql: "SELECT b, a, c FROM t ORDER BY a")
            var read: [Shifting] = []
            while let record = try cursor.next() { read.append(record) }
            #expect(read == expected)
        }
    }

    @Test("snake case strategies name columns as JSONEncoder names keys, and read them back")
    func snakeCase() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (player_id INTEGER PRIMARY KEY, full_name TEXT, home_url_string TEXT)")
            let player = SnakePlayer(playerId: 1, fullName: "Arthur", homeUrlString: "https://example.com")
            #expect(try player.databaseContainer().columns == ["player_id", "full_name", "home_url_string"])
            try player.insert(db)
            #expect(try SnakePlayer.fetchOne(db, sql: "SELECT * FROM player") == player)
            let error = try #require(throws: RowDecodingError.self) {
                try SnakePlayer.fetchOne(db, sql: "SELECT player_id, home_url_string FROM player")
            }
            #expect(String(describing: error).contains("key not found"))
        }
        // As JSONEncoder: "playerID" → "player_id"; "player_id" decodes as "playerId".
        #expect(try Acronyms().databaseContainer().columns == ["player_id", "home_url_string", "_private", "version2_name"])
    }

    /// A record whose keys are given at run time.
    struct DynamicKeys: Encodable, EncodableRecord {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
        var keys: [String]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for key in keys { try container.encode(0, forKey: Key(stringValue: key)) }
        }
    }

    @Test("snake case conversions agree with JSONEncoder and JSONDecoder, key by key")
    func snakeCaseMatchesFoundation() throws {
        let keys = [
            "playerID", "myURLProperty", "_leading", "trailing_", "a", "URL", "aB", "ABc", "version2Name", "already_snake",
            "x1Y2", "__double__", "HTTPRequest", "oneTwoThree",
        ]
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        for key in keys {
            let json = try JSONSerialization.jsonObject(with: encoder.encode(DynamicKeys(keys: [key]))) as? [String: Int]
            let column = try DynamicKeys(keys: [key]).databaseContainer().columns
            #expect(column == Array(json?.keys ?? [:].keys), "\(key)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Probe: Decodable, FetchableRecord {
            static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            var keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
            }
        }
        for column in ["player_id", "my_url_property", "_leading", "trailing_", "a", "url", "version2_name", "__double__", "camelCase", "a__b"] {
            let fromJSON = try decoder.decode(Probe.self, from: Data("{\"\(column)\": 0}".utf8)).keys
            let fromRow = try Probe(row: [column: 0])
            #expect(fromRow.keys == fromJSON, "\(column)")
        }
    }

    struct Dated: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "dated"
        var deferred: Date
        var reference: Date
        var since1970: Date
        var seconds: Date
        var milliseconds: Date
        var iso: Date
        var custom: Date

        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
            switch column {
            case "reference": return .timeIntervalSinceReferenceDate
            case "since1970": return .timeIntervalSince1970
            case "seconds": return .secondsSince1970
            case "milliseconds": return .millisecondsSince1970
            case "iso": return .iso8601
            case "custom": return .custom { date in "day \(Int(date.timeIntervalSince1970) / 86400)" }
            default: return .deferredToDate
            }
        }

        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
            switch column {
            case "reference": return .timeIntervalSinceReferenceDate
            case "since1970", "seconds": return .timeIntervalSince1970
            case "milliseconds": return .millisecondsSince1970
            case "iso": return .iso8601
            case "custom":
                return .custom { dbValue in
                    String.fromDatabaseValue(dbValue).flatMap { Double($0.dropFirst(4)) }.map { Date(timeIntervalSince1970: $0 * 86400) }
                }
            default: return .deferredToDate
            }
        }
    }

    @Test("date strategies store and read each documented representation")
    func dateStrategies() throws {
        let dbQueue = DatabaseQueue()
        let date = Date(timeIntervalSince1970: 86400 * 2 + 1.5)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE dated (deferred, reference, since1970, seconds, milliseconds, iso, custom)")
            try Dated(
                deferred: date, reference: date, since1970: date, seconds: date, milliseconds: date, iso: date,
                custom: Date(timeIntervalSince1970: 86400 * 2)
            ).insert(db)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM dated"))
            #expect(row["deferred"] as String == "1970-01-03 00:00:01.500")
            #expect(row["reference"] as Double == date.timeIntervalSinceReferenceDate)
            #expect(row["since1970"] as Double == 172801.5)
            #expect(row["seconds"] as Int64 == 172801)
            #expect(row["milliseconds"] as Int64 == 172_801_500)
            #expect(row["iso"] as String == "1970-01-03T00:00:01Z")
            #expect(row["custom"] as String == "day 2")
            let decoded = try #require(try Dated.fetchOne(db, sql: "SELECT * FROM dated"))
            #expect(decoded.deferred == date)
            #expect(decoded.reference == date)
            #expect(decoded.since1970 == date)
            #expect(decoded.seconds == Date(timeIntervalSince1970: 172801))
            #expect(decoded.milliseconds == date)
            #expect(decoded.iso == Date(timeIntervalSince1970: 172801))
            #expect(decoded.custom == Date(timeIntervalSince1970: 86400 * 2))
        }
    }

    struct Blobs: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "blobs"
        var text: Data
        var blob: Data
        var upper: UUID
        var lower: UUID
        var plain: UUID
        static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy {
            column == "text" ? .text : .deferredToData
        }
        static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
            switch column {
            case "upper": return .uppercaseString
            case "lower": return .lowercaseString
            default: return .deferredToUUID
            }
        }
    }

    @Test("data and UUID strategies; non-UTF-8 data as text is an encoding error")
    func dataAndUUIDStrategies() throws {
        let dbQueue = DatabaseQueue()
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE blobs (text, blob, upper, lower, plain)")
            try Blobs(text: Data("hello".utf8), blob: Data([0, 1]), upper: uuid, lower: uuid, plain: uuid).insert(db)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT typeof(text), typeof(blob), upper, lower, typeof(plain) FROM blobs"))
            #expect(row[0] as String == "text")
            #expect(row[1] as String == "blob")
            #expect(row[2] as String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(row[3] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
            #expect(row[4] as String == "blob")
            // Data decodes from text and blobs; UUID from both forms.
            let decoded = try #require(try Blobs.fetchOne(db, sql: "SELECT * FROM blobs"))
            #expect(decoded.text == Data("hello".utf8))
            #expect(decoded.upper == uuid && decoded.lower == uuid && decoded.plain == uuid)
            #expect(throws: EncodingError.self) {
                try Blobs(text: Data([0xFF, 0xFE]), blob: Data(), upper: uuid, lower: uuid, plain: uuid).insert(db)
            }
        }
    }

    struct Nested: Codable, FetchableRecord, PersistableRecord, Equatable {
        enum Mood: String, Codable { case happy, sad }  // Codable, not DatabaseValueConvertible
        struct Wrapper: Codable, Equatable {
            var value: Int
            init(value: Int) { self.value = value }
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        }
        struct Address: Codable, Equatable {
            var street: String
            var city: String
        }
        static let databaseTableName = "nested"
        var mood: Mood
        var wrapper: Wrapper
        var address: Address
        var tags: [String]
        var scores: [String: Int]?
    }

    @Test("single-value Codable types are stored as their value, containers as JSON with sorted keys")
    func jsonColumns() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE nested (mood, wrapper, address, tags, scores)")
            let record = Nested(
                mood: .happy, wrapper: .init(value: 42), address: .init(street: "Main", city: "Paris"), tags: ["a", "b"],
                scores: nil)
            try record.insert(db)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM nested"))
            #expect(row["mood"] as String == "happy")
            #expect(row["wrapper"] as Int == 42)
            #expect(row["address"] as String == #"{"city":"Paris","street":"Main"}"#)
            #expect(row["tags"] as String == #"["a","b"]"#)
            #expect(row.hasNull(atIndex: 4))
            #expect(try Nested.fetchOne(db, sql: "SELECT * FROM nested") == Nested(
                mood: .happy, wrapper: .init(value: 42), address: .init(street: "Main", city: "Paris"), tags: ["a", "b"],
                scores: nil))
            let error = try #require(throws: (any Error).self) {
                try Nested.fetchOne(db, sql: "SELECT 'happy' AS mood, 1 AS wrapper, 'not json' AS address, '[]' AS tags")
            }
            #expect(error is DecodingError)
        }
    }

    struct CustomJSON: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "custom"
        var payload: [String: Date]
        static func databaseJSONEncoder(for column: String) -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            encoder.outputFormatting = .sortedKeys
            return encoder
        }
        static func databaseJSONDecoder(for column: String) -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }
    }

    @Test("databaseJSONEncoder and databaseJSONDecoder are used for JSON columns")
    func customJSONCoders() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE custom (payload)")
            try CustomJSON(payload: ["b": Date(timeIntervalSince1970: 10), "a": Date(timeIntervalSince1970: 5)]).insert(db)
            #expect(try String.fetchOne(db, sql: "SELECT payload FROM custom") == #"{"a":5,"b":10}"#)
            #expect(try CustomJSON.fetchOne(db, sql: "SELECT * FROM custom")?.payload["b"] == Date(timeIntervalSince1970: 10))
        }
    }

    struct Informed: Decodable, FetchableRecord {
        static let key = CodingUserInfoKey(rawValue: "prefix")!
        static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [key: ">"] }
        var name: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let prefix = decoder.userInfo[Self.key] as? String ?? ""
            name = try prefix + container.decode(String.self, forKey: .name)
        }
        enum CodingKeys: String, CodingKey { case name }
    }

    @Test("databaseDecodingUserInfo reaches init(from:)")
    func decodingUserInfo() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(try Informed.fetchOne(db, sql: "SELECT 'x' AS name")?.name == ">x")
        }
    }

    // MARK: Scopes

    struct Team: Codable, FetchableRecord, Equatable {
        var id: Int64
        var name: String
    }

    struct Member: Codable, FetchableRecord, Equatable {
        var id: Int64
        var name: String
    }

    struct MemberInfo: Decodable, FetchableRecord, Equatable {
        var member: Member  // neither a column nor a scope: the whole row
        var team: Team?  // the "team" scope
    }

    @Test("records decode nested records from scopes, and one from the whole row; an all-NULL scope is nil")
    func scopes() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT, teamId INTEGER);
                    INSERT INTO team VALUES (1, 'Reds');
                    INSERT INTO member VALUES (1, 'Arthur', 1), (2, 'Barbara', NULL);
                    """)
            let adapter = RangeRowAdapter(0..<2).addingScopes(["team": RangeRowAdapter(2..<4)])
            let infos = try MemberInfo.fetchAll(
                db, sql: "SELECT member.id, member.name, team.id, team.name FROM member LEFT JOIN team ON team.id = member.teamId ORDER BY member.id",
                adapter: adapter)
            #expect(
                infos == [
                    MemberInfo(member: Member(id: 1, name: "Arthur"), team: Team(id: 1, name: "Reds")),
                    MemberInfo(member: Member(id: 2, name: "Barbara"), team: nil),
                ])
        }
    }

    struct TwoRoots: Decodable, FetchableRecord {
        var first: Member
        var second: Member
    }

    @Test("only one property decodes from the whole row")
    func twoRootKeys() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let error = try #require(throws: DecodingError.self) {
                try TwoRoots.fetchOne(db, sql: "SELECT 1 AS id, 'a' AS name")
            }
            #expect(String(describing: error).contains("No such key: first or second"))
        }
    }

    @Test("a missing column is an error that names it and the row")
    func missingColumn() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let error = try #require(throws: RowDecodingError.self) {
                try Member.fetchOne(db, sql: "SELECT 1 AS id")
            }
            #expect(String(describing: error).hasPrefix("column not found: \"name\""))
        }
    }

    @Test("FetchableRecordDecoder decodes a record from a row")
    func recordDecoder() throws {
        let row: Row = ["id": 1, "name": "Arthur"]
        #expect(try FetchableRecordDecoder().decode(Member.self, from: row) == Member(id: 1, name: "Arthur"))
    }

    // MARK: Comparison and containers

    struct Score: Codable, EncodableRecord {
        var id: Int64
        var score: Int
        var bonus: Int?
    }

    @Test("databaseEquals, databaseChanges(from:), databaseChanges(modify:)")
    func comparison() throws {
        var score = Score(id: 1, score: 10, bonus: nil)
        #expect(score.databaseEquals(Score(id: 1, score: 10, bonus: nil)))
        #expect(!score.databaseEquals(Score(id: 1, score: 11, bonus: nil)))
        #expect(try score.databaseChanges(from: Score(id: 1, score: 9, bonus: 3)) == ["score": 9.databaseValue, "bonus": 3.databaseValue])
        let changes = try score.databaseChanges {
            $0.score = 10
            $0.bonus = 5
        }
        #expect(changes == ["bonus": .null])
        #expect(score.bonus == 5)
        #expect(try score.databaseDictionary == ["id": 1.databaseValue, "score": 10.databaseValue, "bonus": 5.databaseValue])
    }

    @Test("PersistenceContainer is a collection of columns and values; its getter returns database values")
    func containerCollection() throws {
        let container = try Score(id: 1, score: 10, bonus: nil).databaseContainer()
        #expect(container.map(\.0) == ["id", "score", "bonus"])
        #expect(container.count == 3)
        #expect(container[1].1 == 10.databaseValue)
        #expect(container["SCORE"] as? DatabaseValue == 10.databaseValue)
        #expect(container[Column("bonus")] as? DatabaseValue == .null)
        #expect(container["missing"] == nil)
    }

    @Test("PersistenceContainer: setting a column again replaces it, ASCII letters case-insensitively; other characters compare exactly")
    func containerColumnLookup() {
        var container = PersistenceContainer()
        container["name"] = "a"
        container["Name"] = "b"
        #expect(container.columns == ["name"])
        #expect(container["NAME"] as? DatabaseValue == "b".databaseValue)
        // Same length, different names: both kept.
        container["nime"] = 1
        #expect(container.columns == ["name", "nime"])
        // Non-ASCII letters are not folded: "É" and "é" are two columns.
        container["é"] = 1
        container["É"] = 2
        #expect(container.columns == ["name", "nime", "é", "É"])
        #expect(container["É"] as? DatabaseValue == 2.databaseValue)
        // A name differing in case sets the value of the first spelling.
        var mixed = PersistenceContainer()
        mixed.setValue(1.databaseValue, forColumn: "ID")
        mixed.setValue(2.databaseValue, forColumn: "id")
        #expect(mixed.columns == ["ID"])
        #expect(mixed.databaseValue(forColumn: "id") == 2.databaseValue)
    }

    struct ArrayRecord: Encodable, EncodableRecord {
        var values: [Int]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(values)
        }
    }

    @Test("a record that encodes as an array is an encoding error, not a crash")
    func unkeyedRecordEncoding() throws {
        #expect(throws: EncodingError.self) { try ArrayRecord(values: [1]).databaseContainer() }
    }

    // MARK: Codable values

    struct Address: Codable, DatabaseValueConvertible, Equatable {
        var street: String
        var city: String
    }

    struct Meters: Codable, DatabaseValueConvertible, Equatable {
        var value: Double
        init(_ value: Double) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    enum Color: String, Codable, DatabaseValueConvertible { case red, green }

    @Test("Codable values convert as their single value, or as JSON text; raw-value enums as their raw value")
    func codableValues() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE place (address, length, color)")
            let address = Address(street: "Main", city: "Paris")
            try db.execute(sql: "INSERT INTO place VALUES (?, ?, ?)", arguments: [address, Meters(12.5), Color.green])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM place"))
            #expect(row["address"] as String == #"{"city":"Paris","street":"Main"}"#)
            #expect(row["length"] as Double == 12.5)
            #expect(row["color"] as String == "green")
            #expect(try Address.fetchOne(db, sql: "SELECT address FROM place") == address)
            #expect(try Meters.fetchOne(db, sql: "SELECT length FROM place") == Meters(12.5))
            #expect(try Color.fetchOne(db, sql: "SELECT color FROM place") == .green)
            #expect(Address.fromDatabaseValue("not json".databaseValue) == nil)
            #expect(Meters.fromDatabaseValue("twelve".databaseValue) == nil)
        }
    }
}

/// The fast paths of Decodable rows and key lookups keep their meaning.
@Suite("Decodable optionals and key lookups after schema changes")
struct DecodableFastPathTests {
    struct Item: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var count: Int?
        var label: String?
    }

    @Test("an optional primitive: a value, NULL and a missing column are read as GRDB does; text reads as a plain fetch does")
    func optionals() throws {
        try DatabaseQueue().write { db in
            let item = try Item.fetchOne(db, sql: "SELECT 1 AS id, NULL AS count")
            #expect(item?.id == 1 && item?.count == nil && item?.label == nil)
            let full = try Item.fetchOne(db, sql: "SELECT 2 AS id, 5 AS count, 'x' AS label")
            #expect(full?.count == 5 && full?.label == "x")
            // As GRDB's column fast path: SQLite's own conversion, the same as a plain fetch.
            let plain = try Int64.fetchOne(db, sql: "SELECT 'abc'")
            #expect(try Item.fetchOne(db, sql: "SELECT 'abc' AS id")?.id == plain)
            // Zero is a value, not NULL; a value out of range is an error, not nil.
            let zero = try Item.fetchOne(db, sql: "SELECT 0 AS id, 0 AS count, '' AS label")
            #expect(zero?.id == 0 && zero?.count == 0 && zero?.label == "")
            struct Small: Decodable, FetchableRecord { var value: Int8? }
            #expect(try Small.fetchOne(db, sql: "SELECT 127 AS value")?.value == 127)
            #expect(try Small.fetchOne(db, sql: "SELECT NULL AS value")?.value == nil)
            #expect(throws: (any Error).self) { try Small.fetchOne(db, sql: "SELECT 1000 AS value") }
        }
    }

    @Test("fetchOne(db, key:) follows a primary key changed by the same connection")
    func keyAfterSchemaChange() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, count INT, label TEXT); INSERT INTO item VALUES (1, 10, 'a')")
            #expect(try Item.fetchOne(db, key: 1)?.label == "a")
            try db.execute(
                sql: """
                    CREATE TABLE new_item(id INT, count INTEGER PRIMARY KEY, label TEXT);
                    INSERT INTO new_item SELECT * FROM item; DROP TABLE item; ALTER TABLE new_item RENAME TO item;
                    """)
            #expect(try Item.fetchOne(db, key: 10)?.label == "a")
            #expect(try Item.fetchOne(db, key: 1) == nil)
        }
    }
}

/// The records of one fetch share a decoder and its keyed container; each
/// record still sees its own row, and nothing outlives the fetch.
@Suite("Decodable records of one fetch share a decoder")
struct SharedRowDecoderTests {
    struct Member: Codable, FetchableRecord, Equatable {
        var id: Int64
        var name: String
    }

    /// Decodes a member from the whole row, as a record made of records.
    struct Wrapper: Decodable, FetchableRecord, Equatable {
        var member: Member
    }

    struct SnakeMember: Decodable, FetchableRecord, Equatable {
        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        var memberId: Int64
        var fullName: String
    }

    /// Keeps its keyed container after `init(from:)`, which Codable allows.
    final class Lazy: Decodable, FetchableRecord {
        private enum CodingKeys: String, CodingKey { case id }
        private let container: KeyedDecodingContainer<CodingKeys>
        let id: Int64
        init(from decoder: any Decoder) throws {
            container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64.self, forKey: .id)
        }
        func idNow() throws -> Int64 { try container.decode(Int64.self, forKey: .id) }
    }

    private static let membersSQL = "SELECT column1 AS id, column2 AS name FROM (VALUES (1, 'Arthur'), (2, 'Barbara'), (3, 'Craig'))"

    @Test("every record of a fetch and of a cursor decodes its own row")
    func eachRow() throws {
        let expected = [Member(id: 1, name: "Arthur"), Member(id: 2, name: "Barbara"), Member(id: 3, name: "Craig")]
        try DatabaseQueue().read { (db: Database) throws in
            #expect(try Member.fetchAll(db, sql: Self.membersSQL) == expected)
            #expect(try Array(Member.fetchCursor(db, sql: Self.membersSQL)) == expected)
            #expect(try Set(Member.fetchAll(db, sql: Self.membersSQL).map(\.id)) == [1, 2, 3])
            // A record made of a record decoded from the same row: the
            // outer decoder is busy, the inner one is another.
            #expect(try Wrapper.fetchAll(db, sql: Self.membersSQL) == expected.map(Wrapper.init))
            // Two record types from each row of one cursor.
            let rows = try Row.fetchCursor(db, sql: Self.membersSQL)
            var pairs: [(Member, Wrapper)] = []
            while let row = try rows.next() {
                pairs.append((try Member(row: row), try Wrapper(row: row)))
            }
            #expect(pairs.map(\.0) == expected && pairs.map(\.1.member) == expected)
            // A renaming strategy, read once per fetch, applies to every row.
            let snake = try SnakeMember.fetchAll(
                db, sql: "SELECT column1 AS member_id, column2 AS full_name FROM (VALUES (1, 'A'), (2, 'B'))")
            #expect(snake == [SnakeMember(memberId: 1, fullName: "A"), SnakeMember(memberId: 2, fullName: "B")])
        }
    }

    @Test("an error in one row is that row's: the next fetch decodes normally")
    func errorsPerRow() throws {
        try DatabaseQueue().read { (db: Database) throws in
            let error = try #require(throws: RowDecodingError.self) {
                try Member.fetchAll(db, sql: "SELECT column1 AS id, column2 AS name FROM (VALUES (1, 'A'), (2, NULL), (3, 'C'))")
            }
            #expect(String(describing: error).contains("[id:2 name:NULL]"))
            #expect(try Member.fetchAll(db, sql: Self.membersSQL).count == 3)
        }
    }

    @Test("a fetch keeps neither its statement nor its rows alive, and the connection closes")
    func nothingOutlivesTheFetch() throws {
        let dbQueue = DatabaseQueue()
        weak var fetchedStatement: Statement?
        weak var cursorStatement: Statement?
        try dbQueue.read { (db: Database) throws in
            let statement = try db.makeStatement(sql: Self.membersSQL)
            #expect(try Member.fetchAll(statement).count == 3)
            fetchedStatement = statement
            // A cursor, and a record decoded from its last row after the end.
            let other = try db.makeStatement(sql: Self.membersSQL)
            let rows = try Row.fetchCursor(other)
            var last: Row?
            while let row = try rows.next() {
                _ = try Member(row: row)
                last = row
            }
            if let last { _ = try? Member(row: last) }
            cursorStatement = other
        }
        #expect(fetchedStatement == nil)
        #expect(cursorStatement == nil)
        try dbQueue.close()
    }

    @Test("a statement's decoder serves its next executions: records by key, two types on one statement")
    func acrossExecutions() throws {
        struct Named: Decodable, FetchableRecord, Equatable {
            var name: String
        }
        let dbQueue = DatabaseQueue()
        weak var weakStatement: Statement?
        try dbQueue.read { (db: Database) throws in
            let statement = try db.makeStatement(sql: "SELECT * FROM (\(Self.membersSQL)) WHERE id = ?")
            for round in 0..<3 {
                for id in 1...3 {
                    let member = try Member.fetchOne(statement, arguments: [id])
                    #expect(member?.id == Int64(id), "round \(round)")
                    // Another record type on the same statement replaces the
                    // kept decoder; the next fetch of the first type gets its own.
                    let named = try Named.fetchOne(statement, arguments: [id])
                    #expect(named?.name == member?.name)
                }
            }
            #expect(try Member.fetchOne(statement, arguments: [4]) == nil)
            weakStatement = statement
        }
        // The kept decoder does not keep its statement alive.
        #expect(weakStatement == nil)
        try dbQueue.close()
    }

    @Test("a container kept after init(from:) stays safe to use once the fetch is over")
    func keptContainer() throws {
        let dbQueue = DatabaseQueue()
        let records = try dbQueue.read { db in try Lazy.fetchAll(db, sql: Self.membersSQL) }
        #expect(records.map(\.id) == [1, 2, 3])
        // The row the containers read is gone: reading again is an error,
        // never a crash.
        for record in records {
            #expect(throws: (any Error).self) { try record.idNow() }
        }
    }
}
