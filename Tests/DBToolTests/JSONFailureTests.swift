import Foundation
import Testing
import TestSupport

/// `--format json` is for scripts: whatever fails, and whenever, stdout
/// holds exactly one JSON document, and the exit status is the documented one.
@Suite("JSON output of failures")
struct JSONFailureTests {
    @Test("a failure before the command runs, in it, or in parsing: one document with error {status, message, hint}")
    func failures() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        // A text file: libarchive would read it as an mtree listing if every format were on.
        try "hello\nworld\n".write(toFile: scratch.file("notes.txt"), atomically: true, encoding: .utf8)
        for (arguments, status, message) in [
            (["migrate", "--database", scratch.file("none")], 64 as Int32, "migrations directory"),
            (["migrate", "--database", database, "--migrations", scratch.file("nowhere")], 66, "no migrations directory"),
            (["backup", "--database", database], 64, "give exactly one destination"),
            (["backup", "list", scratch.file("nowhere")], 66, "no directory"),
            (["exec", "--database", database, "SELEC 1"], 65, "syntax error"),
            (["restore", scratch.file("none.tar.zst"), scratch.file("restored")], 66, "none.tar.zst"),
            (["backup", "verify", scratch.file("notes.txt")], 65, "is not a tar or zip archive"),
            (["schema", "--database", database, "--no-such-option"], 64, "no-such-option"),
        ] {
            for style in [["--format", "json"], ["--format=json"]] {
                let result = try dbtool(arguments + style)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                let document = try #require(
                    try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments): \(result.stdout)")
                let error = try #require(document["error"] as? [String: Any], "\(arguments): \(result.stdout)")
                #expect(error["status"] as? Int == Int(status))
                #expect((error["message"] as? String)?.contains(message) == true, "\(arguments): \(error)")
                #expect(result.stderr.contains(message), "stderr still tells the person: \(result.stderr)")
            }
        }
    }

    @Test("success, help and --quiet print no error document; a report that carries its error stays the only document")
    func noExtraDocument() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let success = try dbtool(["exec", "--database", database, "SELECT 1 AS x", "--format", "json"])
        #expect(success.status == 0 && !success.stdout.contains("\"error\""))
        let quiet = try dbtool(["exec", "--database", database, "SELEC 1", "--format", "json", "--quiet"])
        #expect(quiet.status == 65 && quiet.stdout.isEmpty, "\(quiet.stdout)")
        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try "CREATE TABLE a(x);".write(toFile: migrations + "/0001_a.sql", atomically: true, encoding: .utf8)
        try "CREATE TABLE broken(;".write(toFile: migrations + "/0002_b.sql", atomically: true, encoding: .utf8)
        let failed = try dbtool(["migrate", "--database", database, "--migrations", migrations, "--format", "json"])
        #expect(failed.status == 65, "\(failed.stderr)")
        let document = try #require(try? JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any], "\(failed.stdout)")
        #expect(document["error"] != nil, "\(failed.stdout)")
    }
}
