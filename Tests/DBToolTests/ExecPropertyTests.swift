import DatabaseKit
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Values through `dbtool exec --arg` and back through `--format json`:
/// properties over random inputs, one dbtool process per input.
@Suite("dbtool exec --arg and --format json round-trips (property-based)")
struct ExecPropertyTests {
    /// Binds `argument` (as `--arg=VALUE`, so that values starting with `-`
    /// stay values) and returns the JSON value and its SQLite type.
    private func echo(_ argument: String, database: String) throws -> (value: Any?, type: String?, text: String) {
        let result = try dbtool(["exec", "--database", database, "SELECT typeof(?) AS t, ?1 AS v", "--arg=\(argument)", "--format", "json"])
        #expect(result.status == 0, "\(argument.debugDescription): \(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed]) as? [[String: Any]]
        // The value's own JSON text, for numbers: Foundation's parser rounds some doubles.
        let text = result.stdout.components(separatedBy: "\"v\":").last?.components(separatedBy: "}").first ?? ""
        return (rows?.first?["v"], rows?.first?["t"] as? String, text)
    }

    @Test("every Int64 is bound as an integer and printed exactly")
    func int64() async throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        await propertyCheck(count: 40, input: Gen.int64()) { value in
            let (json, type, text) = try echo(String(value), database: database)
            #expect(type == "integer")
            #expect((json as? NSNumber)?.int64Value == value)
            #expect(Int64(text) == value)
        }
        for edge in [Int64.min, Int64.max, 0, -1] {
            #expect((try echo(String(edge), database: database).value as? NSNumber)?.int64Value == edge)
        }
    }

    @Test("finite Doubles are bound as reals and printed so that they parse back exactly")
    func doubles() async throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let finite = Gen.uint64().map { Double(bitPattern: $0) }.filter { $0.isFinite && $0 != $0.rounded() }
        await propertyCheck(count: 40, input: finite) { value in
            let (_, type, text) = try echo("\(value)", database: database)
            #expect(type == "real")
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(value): \(text)")
        }
    }

    @Test("Unicode text without NUL (argv can not carry it) is bound as text and printed as the same string")
    func strings() async throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        // Every scalar value but NUL: the surrogate range D800-DFFF is skipped (no Unicode scalar lives there).
        let scalars = Gen<UInt32>.value(in: 1...(0x10FFFF - 0x800)).map { Unicode.Scalar($0 < 0xD800 ? $0 : $0 + 0x800)! }
        // A leading letter keeps the value from reading as a number, NULL or NAME=VALUE.
        let texts = scalars.array(of: 0...30).map { "x" + String(String.UnicodeScalarView($0)).replacingOccurrences(of: "=", with: "") }
        await propertyCheck(count: 40, input: texts) { value in
            let (json, type, _) = try echo(value, database: database)
            #expect(type == "text")
            #expect(json as? String == value)
        }
    }

    @Test("dates, in the UTC text format DatabaseKit stores, come back as the same text and the same date")
    func dates() async throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let milliseconds = Gen.int64(in: 0...253_402_300_799_000)  // 1970 to 9999
        await propertyCheck(count: 30, input: milliseconds) { value in
            let date = Date(timeIntervalSince1970: Double(value) / 1000)
            let text = try await DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT ?", arguments: [date]) } ?? ""
            let (json, type, _) = try echo(text, database: database)
            #expect(type == "text")
            let printed = json as? String
            #expect(printed == text)
            let back = try await DatabaseQueue().read { db in try Date.fetchOne(db, sql: "SELECT ?", arguments: [printed]) }
            #expect(back.map { ($0.timeIntervalSince1970 * 1000).rounded() } == Double(value))
        }
    }
}
