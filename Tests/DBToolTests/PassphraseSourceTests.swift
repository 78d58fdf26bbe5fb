import Foundation
import Testing
import TestSupport

/// The passphrase of encrypted archives from a command (run without a
/// shell) and from `DBTOOL_PASSPHRASE`, as restic and borg take theirs.
@Suite("Passphrases from commands and the environment")
struct PassphraseSourceTests {
    @Test("a command's first line and DBTOOL_PASSPHRASE encrypt, verify and restore; a wrong one is 77")
    func sources() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("b.zip")
        // Quoted words, no shell: printf gets its format and the two-word passphrase.
        let backup = try dbtool([
            "backup", "--database", database, "--output", archive, "--encrypt", "--passphrase-command", "printf '%s\\n' 'two words'",
        ])
        #expect(backup.status == 0, "\(backup.stderr)")
        let verify = try dbtool(["backup", "verify", archive], environment: ["DBTOOL_PASSPHRASE": "two words"])
        #expect(verify.status == 0, "\(verify.stderr)")
        let wrong = try dbtool(["backup", "verify", archive], environment: ["DBTOOL_PASSPHRASE": "two"])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        let restore = try dbtool(
            ["restore", archive, scratch.file("restored"), "--passphrase-command", "sh -c 'echo asked >&2; echo two words'"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("asked"), "the command's stderr reaches the terminal: \(restore.stderr)")
        let fromVariable = try dbtool(
            ["backup", "--database", database, "--output", scratch.file("c.zip"), "--encrypt"], environment: ["DBTOOL_PASSPHRASE": "two words"])
        #expect(fromVariable.status == 0, "\(fromVariable.stderr)")
        #expect(try dbtool(["backup", "verify", scratch.file("c.zip"), "--passphrase-command", "echo two words"]).status == 0)
    }

    @Test("a failing, missing, silent or unsplittable command, or two sources: the documented status, naming the command; nothing written")
    func refusals() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        for (command, status, named) in [
            ("false", 77 as Int32, "false"), ("no-such-program-here --flag", 77, "no-such-program-here"), ("true", 64, "is empty"),
            ("'unclosed", 64, "not a command line"), ("sh -c 'printf \"a\\nb\"'", 64, "more than one line"),
            ("yes", 64, "printed more than 64 KiB"),
        ] {
            let output = scratch.file("out-\(status).zip")
            let result = try dbtool(["backup", "--database", database, "--output", output, "--encrypt", "--passphrase-command", command])
            #expect(result.status == status, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(named), "\(command): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // Both sources at once is refused in ParseTests; an empty variable in the process's own environment is none.
        let none = try dbtool(["backup", "--database", database, "--output", scratch.file("y.zip"), "--encrypt"], environment: ["DBTOOL_PASSPHRASE": ""])
        #expect(none.status == 64 && none.stderr.contains("DBTOOL_PASSPHRASE"), "\(none.stderr)")
    }

    @Test("a command that ignores SIGTERM is killed 2 seconds after dbtool was told to stop: 130, nothing left running")
    func stubbornCommand() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let marker = scratch.file("started")
        let tool = try BackgroundTool(
            [
                "backup", "--database", database, "--output", scratch.file("b.zip"), "--encrypt", "--passphrase-command",
                "sh -c 'trap \"\" TERM; touch \(marker); exec sleep 59.125'",
            ],
            scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: marker) })
        let sent = Date()
        tool.send(SIGTERM)
        let result = tool.wait(timeout: 10)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(Date().timeIntervalSince(sent) < 5)
        #expect(waitUntil(timeout: 3) { (try? run("/usr/bin/pgrep", ["-f", "sleep 59.125"]))?.stdout.isEmpty == true })
    }

    @Test("SIGTERM while the command waits ends dbtool (130) and the command within moments")
    func signal() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let marker = scratch.file("started")
        let tool = try BackgroundTool(
            ["backup", "--database", database, "--output", scratch.file("b.zip"), "--encrypt", "--passphrase-command", "sh -c 'touch \(marker); exec sleep 59.123'"],
            scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: marker) })
        let sent = Date()
        tool.send(SIGTERM)
        let result = tool.wait(timeout: 10)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(Date().timeIntervalSince(sent) < 3)
        #expect(waitUntil(timeout: 3) { (try? run("/usr/bin/pgrep", ["-f", "sleep 59.123"]))?.stdout.isEmpty == true })
        let sleeping = try run("/usr/bin/pgrep", ["-f", "sleep 59.123"])
        #expect(sleeping.stdout.isEmpty, "the command outlived dbtool: \(sleeping.stdout)")
    }
}
