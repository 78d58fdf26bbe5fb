import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("dbtool init")
struct InitCommandTests {
    @Test("creates the directory (0700), its parents, and a WAL database; JSON report")
    func creates() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("a/b/db")
        let result = try dbtool(["init", directory, "--format", "json"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(report?["created"] as? Bool == true)
        #expect(report?["journalMode"] as? String == "wal")
        #expect(report?["database"] as? String == directory + "/db.sqlite")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let mode = try DatabaseQueue(path: directory + "/db.sqlite").read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test("is idempotent: a second run exits 0, says so, and changes nothing")
    func idempotent() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        #expect(try dbtool(["init", directory]).status == 0)
        let before = directoryFingerprint(directory)
        let again = try dbtool(["init", directory])
        #expect(again.status == 0)
        #expect(again.stdout.contains("Already initialized"))
        #expect(directoryFingerprint(directory) == before)
    }

    @Test("--journal-mode delete, --mode, --file-name")
    func options() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        #expect(try dbtool(["init", directory, "--journal-mode", "delete", "--mode", "0750", "--file-name", "app.sqlite"]).status == 0)
        let mode = try DatabaseQueue(path: directory + "/app.sqlite").read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "delete")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o750)
    }

    @Test("refuses a path that is a file (73), changing nothing")
    func overFile() throws {
        let scratch = TemporaryDirectory()
        let path = scratch.file("file")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        let result = try dbtool(["init", path])
        #expect(result.status == 73)
        #expect(result.stderr.contains("\(path) is a file, not a directory"))
        #expect(FileManager.default.contents(atPath: path) == Data("hello".utf8))
    }

    @Test("refuses a directory whose db.sqlite is not a database (65), changing nothing")
    func overNonDatabase() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: directory + "/db.sqlite"))
        let before = directoryFingerprint(directory)
        let result = try dbtool(["init", directory])
        #expect(result.status == 65)
        #expect(result.stderr.contains("is not a SQLite database"))
        #expect(directoryFingerprint(directory) == before)
    }

    @Test("a directory that can not be created fails with 73 or 77 and leaves nothing")
    func cannotCreate() throws {
        let scratch = TemporaryDirectory()
        let parent = scratch.file("file")
        try Data().write(to: URL(fileURLWithPath: parent))
        let result = try dbtool(["init", parent + "/sub/db"])
        #expect([73, 77].contains(result.status))
        #expect(result.stderr.contains("can not create the directory"))
        #expect(!FileManager.default.fileExists(atPath: parent + "/sub"))
    }

}

@Suite("dbtool conventions")
struct ConventionTests {
    @Test("--version prints the tool and SQLite versions")
    func version() throws {
        let result = try dbtool(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("dbtool "))
        #expect(result.stdout.contains("SQLite \(Database.sqliteLibVersion)"))
    }

    @Test("--help lists the subcommands and the exit codes")
    func help() throws {
        let result = try dbtool(["--help"])
        #expect(result.status == 0)
        // The help is filled to the terminal's width: compare words, not line breaks.
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for word in ["init", "exec", "checkpoint", "snapshot", "75 temporary failure", "66 input missing"] {
            #expect(text.contains(word), "\(word)")
        }
    }

    @Test("DBTOOL_DATABASE names the database; a missing one is 66; none is 64")
    func databaseOption() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let viaEnvironment = try dbtool(
            ["exec", "SELECT COUNT(*) FROM account", "--format", "csv"], environment: ["DBTOOL_DATABASE": directory])
        #expect(viaEnvironment.status == 0)
        #expect(viaEnvironment.stdout == "COUNT(*)\n10\n")
        let viaFile = try dbtool(["exec", "--database", directory + "/db.sqlite", "SELECT 1 AS one", "--format", "csv"])
        #expect(viaFile.stdout == "one\n1\n")
        let missing = try dbtool(["exec", "--database", scratch.file("nope"), "SELECT 1"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no database at \(scratch.file("nope"))"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("nope")))
        let none = try dbtool(["exec", "SELECT 1"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("--database"))
    }
}
