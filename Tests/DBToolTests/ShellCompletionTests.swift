import Foundation
import TestSupport
import Testing

/// A directory to complete in: migrations, a database with two of them
/// applied and two snapshots, two archives of different ages beside a text
/// file, and an empty subdirectory.
private final class CompletionWorkspace {
    let scratch = TemporaryDirectory()
    var path: String { scratch.path }

    init() throws {
        let migrations = scratch.file("migs")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try write("-- migrate:up\nCREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;\n", to: migrations + "/0001_create_a.sql")
        try write("-- migrate:up\nCREATE TABLE b (x);\n-- migrate:down\nDROP TABLE b;\n", to: migrations + "/0002_create_b.sql")
        #expect(try dbtool(["init", scratch.file("dbs/app"), "--migrations", migrations, "--quiet"]).status == 0)
        let snapshots = scratch.file("dbs/app/snapshots")
        try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: true)
        for name in ["pre-migrate-20261120T020000.000Z.sqlite", "pre-migrate-20261122T020000.000Z.sqlite"] {
            try write("", to: snapshots + "/" + name)
        }
        let backups = scratch.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        // The older name is the newer file: the order comes from the times, not the names.
        for (name, daysAgo) in [("db-20261120T020000.000Z.tar.zst", 1.0), ("db-20261122T020000.000Z.tar.gz", 3.0)] {
            try write("archive", to: backups + "/" + name)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -daysAgo * 86_400)], ofItemAtPath: backups + "/" + name)
        }
        try write("not an archive", to: backups + "/notes.txt")
        try FileManager.default.createDirectory(atPath: scratch.file("sub"), withIntermediateDirectories: true)
    }
}

/// What TAB offers, asked the way the generated scripts ask dbtool
/// (`dbtool ---completion ...`), for each shell's output format.
@Suite("Dynamic completions")
struct DynamicCompletionTests {
    private func candidates(_ shell: String, _ path: [String], _ argument: String, _ words: [String], in workspace: CompletionWorkspace)
        throws -> [String]
    {
        let wrapper = ["sh", "-c", "cd \"$0\" && exec \"$@\"", workspace.path, toolURL.path]
        let request = ["---completion"] + path + ["--", argument, String(words.count - 1), String(words.last?.count ?? 0)] + words
        let result = try dbtool(wrapper + request, environment: ["SAP_SHELL": shell, "DBTOOL_MIGRATIONS": ""], executable: "/usr/bin/env")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        return result.stdout.split(separator: "\n").map(String.init).filter { $0 != " " }
    }

    @Test("versions of the migrations directory on the line, with their names, and none for --to")
    func versions() throws {
        let workspace = try CompletionWorkspace()
        let words = ["dbtool", "migrate", "--migrations", "migs", "--to", ""]
        #expect(try candidates("bash", ["migrate"], "--to", words, in: workspace) == ["none", "0001", "0002"])
        #expect(
            try candidates("zsh", ["migrate"], "--to", words, in: workspace)
                == ["none:roll back every migration", "0001:create_a", "0002:create_b"])
        #expect(
            try candidates(
                "fish", ["migrate", "repair"], "positional@0", ["dbtool", "migrate", "repair", "--migrations", "migs", ""], in: workspace)
                == ["0001\tcreate_a", "0002\tcreate_b"])
        // No directory on the line and none in the environment: nothing, silently.
        #expect(
            try candidates("bash", ["migrate", "baseline"], "positional@0", ["dbtool", "migrate", "baseline", ""], in: workspace) == [])
    }

    @Test("rollback --steps: one per applied migration, saying how far down")
    func rollbackSteps() throws {
        let workspace = try CompletionWorkspace()
        let words = ["dbtool", "migrate", "rollback", "--database", "dbs/app", "--steps", ""]
        #expect(
            try candidates("zsh", ["migrate", "rollback"], "--steps", words, in: workspace)
                == ["1:down to before 2_create_b", "2:down to before 1_create_a"])
    }

    @Test("archives newest first by time, then the subdirectories; no other file")
    func archives() throws {
        let workspace = try CompletionWorkspace()
        let found = try candidates("bash", ["restore"], "positional@0", ["dbtool", "restore", "backups/"], in: workspace)
        #expect(found == ["backups/db-20261120T020000.000Z.tar.zst", "backups/db-20261122T020000.000Z.tar.gz"])
        // bash adds a directory's slash itself (-o filenames); zsh gets it from dbtool.
        let top = try candidates("bash", ["backup", "verify"], "positional@0", ["dbtool", "backup", "verify", ""], in: workspace)
        #expect(top == ["backups", "dbs", "migs", "sub"])
        let zshTop = try candidates("zsh", ["backup", "verify"], "positional@0", ["dbtool", "backup", "verify", ""], in: workspace)
        #expect(zshTop == ["backups/", "dbs/", "migs/", "sub/"])
        let described = try candidates("fish", ["restore"], "positional@0", ["dbtool", "restore", "backups/db-2026112"], in: workspace)
        #expect(described.count == 2 && described.allSatisfy { $0.contains("\t") && $0.hasSuffix(" B") })
    }

    @Test("--database: directories that hold a db.sqlite, else every directory to walk into")
    func databases() throws {
        let workspace = try CompletionWorkspace()
        #expect(
            try candidates("bash", ["migrate"], "--database", ["dbtool", "migrate", "--database", "dbs/"], in: workspace) == ["dbs/app"])
        #expect(
            try candidates("bash", ["migrate"], "--database", ["dbtool", "migrate", "--database", ""], in: workspace)
                == ["backups", "dbs", "migs", "sub"])
    }

    @Test("restore-snapshot --snapshot: the snapshots of the database on the line, newest first")
    func snapshots() throws {
        let workspace = try CompletionWorkspace()
        let words = ["dbtool", "migrate", "restore-snapshot", "--database", "dbs/app", "--snapshot", ""]
        #expect(
            try candidates("bash", ["migrate", "restore-snapshot"], "--snapshot", words, in: workspace) == [
                "dbs/app/snapshots/pre-migrate-20261122T020000.000Z.sqlite", "dbs/app/snapshots/pre-migrate-20261120T020000.000Z.sqlite",
            ])
    }
}

/// The committed completion scripts in real shells: type, press TAB, read
/// the screen.
@Suite("Completions in bash, zsh and fish", .serialized)
struct ShellCompletionTests {
    @Test("migrate's default subcommand: its options at migrate's level, versions for --to", arguments: InteractiveShell.Kind.allCases)
    func migrate(kind: InteractiveShell.Kind) throws {
        let workspace = try CompletionWorkspace()
        let shell = try InteractiveShell(kind, in: workspace.path)
        let options = try shell.complete("dbtool migrate --")
        for option in ["--to", "--dry-run", "--migrations", "--database", "--allow-out-of-order"] {
            #expect(options.contains(option), "\(kind): \(option) missing from\n\(options)")
        }
        let versions = try shell.complete("dbtool migrate --migrations migs --to ")
        #expect(versions.contains("0001") && versions.contains("0002") && versions.contains("none"), "\(kind):\n\(versions)")
        #expect(!versions.contains("status"), "\(kind) offers subcommands after --to:\n\(versions)")
        if kind != .bash { #expect(versions.contains("create_b"), "\(kind) shows no names:\n\(versions)") }
        let database = try shell.complete("dbtool migrate --database dbs/")
        #expect(database.contains("dbtool migrate --database dbs/app"), "\(kind):\n\(database)")
    }

    @Test(
        "backup's default subcommand: --output-dir completes directories, --archive-format its formats",
        arguments: InteractiveShell.Kind.allCases)
    func backup(kind: InteractiveShell.Kind) throws {
        let workspace = try CompletionWorkspace()
        let shell = try InteractiveShell(kind, in: workspace.path)
        // By a prefix each: the whole list outgrows a terminal's pager.
        for option in ["--output-dir", "--keep", "--archive-format", "--database"] {
            let options = try shell.complete("dbtool backup " + option.prefix(4))
            #expect(options.contains(option), "\(kind): \(option) missing from\n\(options)")
        }
        let directories = try shell.complete("dbtool backup --output-dir ")
        #expect(directories.contains("backups/") && directories.contains("sub/"), "\(kind):\n\(directories)")
        #expect(!directories.contains("verify") && !directories.contains("notes.txt"), "\(kind):\n\(directories)")
        let formats = try shell.complete("dbtool backup --archive-format ")
        #expect(formats.contains("tar.zst") && formats.contains("zip"), "\(kind):\n\(formats)")
    }

    @Test("restore completes archives, and no other file", arguments: InteractiveShell.Kind.allCases)
    func restore(kind: InteractiveShell.Kind) throws {
        let workspace = try CompletionWorkspace()
        let shell = try InteractiveShell(kind, in: workspace.path)
        let top = try shell.complete("dbtool restore ")
        #expect(top.contains("backups/") && !top.contains("backups//"), "\(kind) shows a directory with one slash:\n\(top)")
        let archives = try shell.complete("dbtool restore backups/")
        // fish elides the start of long candidates ("…b-2026...").
        #expect(
            archives.contains("20261120T020000.000Z.tar.zst") && archives.contains("20261122T020000.000Z.tar.gz"), "\(kind):\n\(archives)")
        #expect(!archives.contains("notes.txt"), "\(kind):\n\(archives)")
        if kind != .bash, let newer = archives.range(of: "20261120"), let older = archives.range(of: "20261122") {
            #expect(newer.lowerBound < older.lowerBound, "\(kind) lists the newest archive first:\n\(archives)")
        }
    }
}
