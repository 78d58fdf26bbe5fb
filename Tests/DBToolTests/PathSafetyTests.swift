import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Paths as given, files as they are: argument bytes that are not UTF-8,
/// FIFOs where a database should be, a directory dbtool may not enter,
/// names too long for a lock, help and version to a full stdout.
@Suite("Data safety: paths and the files they name")
struct PathSafetyTests {
    /// Runs a shell script with `$DBTOOL` set (for arguments that are not UTF-8, which a Swift string can not carry).
    private func shell(_ script: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> ToolResult {
        var merged = testEnvironment.merging(environment) { $1 }
        merged["DBTOOL"] = toolURL.path
        return try run("/bin/sh", ["-c", script, "sh"] + arguments, environment: merged)
    }

    @Test("an argument or a variable that is not UTF-8 is refused (64, its bytes escaped): never read as another path")
    func argumentBytes() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("a.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        // The directory a repaired string would name: it must stay as it is.
        let lookalike = scratch.file("\u{FFFD}prod")
        try FileManager.default.createDirectory(atPath: lookalike, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: lookalike + "/data"))
        let restore = try shell("cd \"$1\" && \"$DBTOOL\" restore \"$2\" \"$(printf '\\377prod')\" --force", [scratch.path, archive])
        #expect(restore.status == 64, "\(restore.stderr)")
        #expect(restore.stderr.contains("\\xFFprod") && restore.stderr.contains("not UTF-8"), "\(restore.stderr)")
        #expect(FileManager.default.contents(atPath: lookalike + "/data") == Data("keep".utf8))
        let initialize = try shell("cd \"$1\" && \"$DBTOOL\" init \"$(printf '\\377\\376db')\"", [scratch.path])
        #expect(initialize.status == 64, "\(initialize.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["a.tar.zst", "db", "\u{FFFD}prod"])
        let variable = try shell("DBTOOL_DATABASE=\"$(printf '\\377db')\" \"$DBTOOL\" check", [])
        #expect(variable.status == 64 && variable.stderr.contains("$DBTOOL_DATABASE"), "\(variable.stderr)")
        // A glob that matches a name that is not UTF-8.
        let tenants = scratch.file("tenants")
        #expect(try shell("mkdir -p \"$1\" && cd \"$1\" && \"$DBTOOL\" init ok -q && mkdir \"$(printf 'x\\377')\"", [tenants]).status == 0)
        let glob = try dbtool(["check", "--database", tenants + "/*"])
        #expect(glob.status == 64 && glob.stderr.contains("x\\xFF"), "\(glob.stderr)")
    }

    @Test("a FIFO where the database or its WAL should be: 65 at once for every command that opens it, never a hang", arguments: [
        ["check"], ["stats"], ["exec", "SELECT 1"], ["replicate", "--to", "REPLICA"], ["backup", "--output", "ARCHIVE"], ["snapshot", "--output", "COPY"],
    ])
    func fifoDatabase(_ command: [String]) throws {
        let scratch = TemporaryDirectory()
        for companion in ["", "-wal"] {
            let database = try scratch.makeDatabase("db\(companion)")
            if companion.isEmpty { unlink(database + "/db.sqlite") }
            #expect(mkfifo(database + "/db.sqlite" + companion, 0o600) == 0)
            let arguments = command.map {
                switch $0 {
                case "REPLICA": scratch.file("replica")
                case "ARCHIVE": scratch.file("a.tar.zst")
                case "COPY": scratch.file("copy.sqlite")
                default: $0
                }
            }
            let start = Date()
            let run = try BackgroundTool([arguments[0], "--database", database] + arguments.dropFirst(), scratch: scratch)
            let result = run.wait(timeout: 20)
            #expect(Date().timeIntervalSince(start) < 10, "\(command) on a FIFO\(companion) took \(Date().timeIntervalSince(start)) s")
            #expect(result.status == 65, "\(command), FIFO\(companion): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("FIFO"), "\(command): \(result.stderr)")
        }
    }

    @Test("a directory dbtool may not enter: 77 naming it and the user, not `no database`", .enabled(if: getuid() == 0))
    func deniedDirectory() throws {
        let scratch = TemporaryDirectory()
        chmod(scratch.path, 0o755)
        let database = try scratch.makeDatabase()
        chmod(database, 0o700)
        let result = try run(
            "/usr/bin/setpriv", ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups", toolURL.path, "check", "--database", database + "/db.sqlite"],
            environment: ["TMPDIR": "/tmp", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains(database) && result.stderr.contains("nobody"), "\(result.stderr)")
    }

    @Test("--help, --version and help COMMAND to a full stdout: 74", arguments: [["--help"], ["--version"], ["help", "restore"], ["backup", "--help"], ["migrate", "--help"]])
    func helpToFullOutput(_ arguments: [String]) throws {
        let result = try shell("\"$DBTOOL\" \"$@\" > /dev/full", arguments)
        #expect(result.status == 74, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("standard output"), "\(result.stderr)")
    }

    @Test("a directory named with 250 bytes: restore's lock and staging names fit, and it restores")
    func longNames() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("a.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let target = scratch.file(String(repeating: "é", count: 125))
        let restore = try dbtool(["restore", archive, target])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try accountTotals(target) == (1000, 10))
        let metrics = scratch.file(String(repeating: "m", count: 240) + ".prom")
        let check = try dbtool(["check", "--database", target, "--metrics-file", metrics])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }
}
