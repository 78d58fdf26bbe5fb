import DatabaseKit
import Foundation
import Testing

@Suite("StatementArguments")
struct StatementArgumentsTests {
    @Test("array and dictionary literals, nil is NULL")
    func literals() {
        let positional: StatementArguments = [1, "foo", nil]
        #expect(positional.values == [1.databaseValue, "foo".databaseValue, .null])
        #expect(positional.namedValues.isEmpty)
        let named: StatementArguments = ["a": 1, "b": nil]
        #expect(named.namedValues == ["a": 1.databaseValue, "b": .null])
        #expect(StatementArguments().isEmpty)
        #expect(!positional.isEmpty)
    }

    @Test("a dictionary literal keeps every name and value: long names, each kind of value, NULL")
    func dictionaryLiteralFields() {
        let blob = Data([0, 1, 2])
        let arguments: StatementArguments = [
            "a_name_longer_than_fifteen_bytes": 1, "s": "text that is not a small string", "d": 2.5,
            "b": blob, "n": nil, "é": "ü",
        ]
        #expect(
            arguments.namedValues == [
                "a_name_longer_than_fifteen_bytes": 1.databaseValue, "s": "text that is not a small string".databaseValue,
                "d": 2.5.databaseValue, "b": blob.databaseValue, "n": .null, "é": "ü".databaseValue,
            ])
        #expect(arguments.values.isEmpty)
    }

    @Test("initializers from sequences and dictionaries")
    func initializers() {
        #expect(StatementArguments([1, 2, 3]) == [1, 2, 3])
        #expect(StatementArguments(["a": "x"]) == ["a": "x"])
        let values: [(any DatabaseValueConvertible)?] = [1, nil]
        #expect(StatementArguments(values) == [1, nil])
    }

    @Test("appending and concatenation")
    func appending() {
        var arguments: StatementArguments = [1]
        arguments += [2]
        arguments += ["a": 1]
        #expect(arguments.values == [1.databaseValue, 2.databaseValue])
        let replaced = arguments.append(contentsOf: ["a": 2])
        #expect(replaced == ["a": 1.databaseValue])
        #expect((StatementArguments(["a": 1]) + ["a": 2]).namedValues["a"] == 2.databaseValue)
        // &+ inserts or updates: the right-hand side wins, as in GRDB.
        #expect((StatementArguments(["a": 1]) &+ ["a": 2]).namedValues["a"] == 2.databaseValue)
    }

    @Test("positional values of every kind keep their order through literals, appends and binding")
    func positionalKinds() throws {
        // Numbers and NULL are stored apart from texts and blobs: values of
        // every kind, interleaved, appended from arguments that have texts of
        // their own, must come back and bind in their order.
        let blob = Data([0, 0xFF, 0])
        var arguments: StatementArguments = [1, "one", 2.5, nil, blob, Int64.min, "a text longer than fifteen bytes"]
        arguments += ["two", Data(), 3, "", nil]
        arguments.append(contentsOf: [4.5, "three"])
        let expected: [DatabaseValue] = [
            1.databaseValue, "one".databaseValue, 2.5.databaseValue, .null, blob.databaseValue, Int64.min.databaseValue,
            "a text longer than fifteen bytes".databaseValue, "two".databaseValue, Data().databaseValue, 3.databaseValue,
            "".databaseValue, .null, 4.5.databaseValue, "three".databaseValue,
        ]
        #expect(arguments.values == expected)
        #expect(StatementArguments(expected) == arguments)
        #expect(StatementArguments(values: expected, namedValues: [:]).hashValue == arguments.hashValue)
        let dbQueue = DatabaseQueue()
        let row = try dbQueue.read { db in
            try Row.fetchOne(db, sql: "SELECT " + Array(repeating: "?", count: expected.count).joined(separator: ", "), arguments: arguments)
        }
        #expect(row?.databaseValues == expected)
        // The same values, one statement per kind, with positional and named
        // values mixed.
        let mixed: StatementArguments = ["t", blob] + ["n": 7, "s": "named text"]
        let values = try dbQueue.read { db in
            try Row.fetchOne(db, sql: "SELECT ?, :n, ?, :s, typeof(?3)", arguments: mixed)
        }
        #expect(values?.databaseValues == ["t".databaseValue, 7.databaseValue, blob.databaseValue, "named text".databaseValue, "blob".databaseValue])
    }

    /// Larger than an existential's inline buffer: stored in a box.
    struct Wide: DatabaseValueConvertible, Equatable {
        var a, b, c, d, e: Int64
        var databaseValue: DatabaseValue { (a + b + c + d + e).databaseValue }
        static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wide? { nil }
    }

    @Test("literal values boxed out of line, one box shared by several elements, read right and stay intact")
    func boxedLiteralValues() throws {
        let wide = Wide(a: 1, b: 2, c: 3, d: 4, e: 5)
        let shared: any DatabaseValueConvertible = wide
        let positional: StatementArguments = [shared, shared, nil, wide, "text"]
        #expect(positional.values == [15.databaseValue, 15.databaseValue, .null, 15.databaseValue, "text".databaseValue])
        let named: StatementArguments = ["x": shared, "y": shared, "z": wide]
        #expect(named.namedValues == ["x": 15.databaseValue, "y": 15.databaseValue, "z": 15.databaseValue])
        var container = PersistenceContainer()
        container["w"] = shared
        container["v"] = shared
        #expect(container.databaseValues == [15.databaseValue, 15.databaseValue])
        // The existential the literals read is unchanged.
        #expect(shared as? Wide == wide)
        #expect(shared.databaseValue == 15.databaseValue)
    }

    @Test("description")
    func description() {
        #expect((["foo", 1] as StatementArguments).description == "[\"foo\", 1]")
        #expect((["b": 2, "a": nil] as StatementArguments).description == "[\"a\": NULL, \"b\": 2]")
        // Named values first, as GRDB prints them.
        #expect(StatementArguments(values: [1.databaseValue], namedValues: ["x": 2.databaseValue]).description == "[\"x\": 2, 1]")
    }

    @Test("named parameters with :, $ and @ prefixes")
    func prefixes() throws {
        let dbQueue = DatabaseQueue()
        let row = try dbQueue.read { (db: Database) throws in
            try Row.fetchOne(db, sql: "SELECT :a AS a, $b AS b, @c AS c", arguments: ["a": 1, "b": 2, "c": 3])
        }
        #expect(row == ["a": 1, "b": 2, "c": 3])
    }

    @Test("positional values feed named parameters; mixed arguments")
    func mixed() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(try Row.fetchOne(db, sql: "SELECT :a AS a, :b AS b", arguments: [1, 2]) == ["a": 1, "b": 2])
            let mixed = StatementArguments(values: [10.databaseValue], namedValues: ["name": "x".databaseValue])
            #expect(try Row.fetchOne(db, sql: "SELECT ? AS n, :name AS name", arguments: mixed) == ["n": 10, "name": "x"])
            #expect(try Row.fetchOne(db, sql: "SELECT ?2 AS b, ?1 AS a", arguments: [1, 2]) == ["b": 2, "a": 1])
            // A named parameter used twice needs one value.
            #expect(try Int.fetchOne(db, sql: "SELECT :x + :x", arguments: ["x": 2]) == 4)
        }
    }

    @Test("wrong counts and missing names throw GRDB's errors; unused names are accepted")
    func errors() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let tooMany = expectDatabaseError(.SQLITE_MISUSE) { try Int.fetchOne(db, sql: "SELECT ?", arguments: [1, 2]) }
            #expect(tooMany?.message == "wrong number of statement arguments: 2")
            #expect(tooMany?.sql == "SELECT ?")
            let tooFew = expectDatabaseError(.SQLITE_MISUSE) { try Int.fetchOne(db, sql: "SELECT ?, ?", arguments: [1]) }
            #expect(tooFew?.message == "wrong number of statement arguments: 1")
            let missing = expectDatabaseError(.SQLITE_MISUSE) { try Int.fetchOne(db, sql: "SELECT :name", arguments: ["other": 1]) }
            #expect(missing?.message == "missing statement argument: name")
            #expect(try Int.fetchOne(db, sql: "SELECT :a", arguments: ["a": 1, "b": 2, "c": 3]) == 1)
        }
    }

    @Test("a name given twice binds its last value; equality and hashing ignore the order of names")
    func duplicateNamesAndEquality() throws {
        let twice: StatementArguments = ["a": 1, "b": 2, "a": 3]
        #expect(twice.namedValues == ["a": 3.databaseValue, "b": 2.databaseValue])
        let reordered: StatementArguments = ["b": 2, "a": 3]
        #expect(twice == reordered)
        #expect(twice.hashValue == reordered.hashValue)
        #expect(twice != ["a": 1, "b": 2])
        #expect(twice.description == "[\"a\": 3, \"b\": 2]")
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT :a * 10 + :b", arguments: twice) == 32)
        }
        var merged: StatementArguments = ["a": 1, "b": 2]
        let replaced = merged.append(contentsOf: ["b": 20, "c": 30, "b": 21])
        #expect(replaced == ["b": 2.databaseValue])
        #expect(merged.namedValues == ["a": 1.databaseValue, "b": 21.databaseValue, "c": 30.databaseValue])
    }

    @Test("one statement executed with names in varying orders, a missing name, then extra names, binds each time by name")
    func namedBindingAcrossExecutions() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            let statement = try db.cachedStatement(sql: "INSERT INTO t (a, b) VALUES (:a, :b)")
            try statement.execute(arguments: ["a": 1, "b": 2])
            try statement.execute(arguments: ["a": 3, "b": 4])
            try statement.execute(arguments: ["b": 6, "a": 5])
            let missing = expectDatabaseError(.SQLITE_MISUSE) { try statement.execute(arguments: ["a": 7]) }
            #expect(missing?.message == "missing statement argument: b")
            try statement.execute(arguments: ["z": 0, "b": 10, "a": 9, "y": nil])
            try statement.execute(arguments: ["a": 11, "b": 12])
            // Positional values on a named statement still bind in order.
            try statement.execute(arguments: [13, 14])
            let rows = try Row.fetchAll(db, sql: "SELECT a, b FROM t ORDER BY rowid")
            #expect(rows.map { [$0[0] as Int, $0[1] as Int] } == [[1, 2], [3, 4], [5, 6], [9, 10], [11, 12], [13, 14]])
        }
    }

    @Test("named values of every kind bind through the reused plan, and outlive the literal and the statement")
    func namedValuesOfEveryKind() throws {
        let dbQueue = DatabaseQueue()
        // Long enough not to be stored inline in the String or Data value.
        let text = String(repeating: "é", count: 40)
        let blob = Data((0..<100).map { UInt8($0) })
        var kept: StatementArguments = [:]
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t (i, d, s, b, n)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (:i, :d, :s, :b, :n)")
            for row in 0..<3 {
                let name = "\(text)\(row)"
                try statement.execute(arguments: ["i": row, "d": Double(row) / 2, "s": name, "b": blob, "n": nil])
            }
            // The statement keeps the last arguments, names and values.
            kept = statement.arguments
            #expect(kept.namedValues["s"] == "\(text)2".databaseValue)
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY i")
            #expect(rows.map { $0["i"] as Int } == [0, 1, 2])
            #expect(rows.map { $0["d"] as Double } == [0, 0.5, 1])
            #expect(rows.map { $0["s"] as String } == ["\(text)0", "\(text)1", "\(text)2"])
            #expect(rows.allSatisfy { ($0["b"] as Data) == blob && $0["n"] == nil })
        }
        // The copy still holds every value once the statement is gone.
        #expect(kept.namedValues == [
            "i": 2.databaseValue, "d": 1.0.databaseValue, "s": "\(text)2".databaseValue, "b": blob.databaseValue,
            "n": .null,
        ])
    }

    @Test("a statement with many named parameters binds each by name")
    func manyNamedParameters() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let names = (0..<40).map { "p\($0)" }
            let sql = "SELECT " + names.map { ":\($0)" }.joined(separator: " || ',' || ")
            var arguments = StatementArguments(names.indices.reversed().map { (names[$0], $0 as (any DatabaseValueConvertible)?) })
            let expected = (0..<40).map(String.init).joined(separator: ",")
            #expect(try String.fetchOne(db, sql: sql, arguments: arguments) == expected)
            // A later value of a name wins here too, with more names than the scan limit.
            arguments += ["p0": "x"]
            #expect(try String.fetchOne(db, sql: sql, arguments: arguments) == "x" + expected.dropFirst())
            arguments = StatementArguments(names.dropLast().map { ($0, 1 as (any DatabaseValueConvertible)?) })
            let missing = expectDatabaseError(.SQLITE_MISUSE) { try String.fetchOne(db, sql: sql, arguments: arguments) }
            #expect(missing?.message == "missing statement argument: p39")
        }
    }
}
