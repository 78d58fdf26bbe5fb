import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The write gate, end to end: every option that takes an output path, as
/// the command tree itself lists them (`--experimental-dump-help`), pointed
/// at each object the run reads: exit 64, both paths named, nothing changed.
@Suite("Data safety: one write gate for every output")
struct WriteGateTests {
    /// A path-taking option or argument of the command tree: `command path`, then its name.
    struct PathOption: Hashable, CustomStringConvertible {
        var command: String
        var name: String
        var description: String { "\(command) \(name)" }
    }

    /// How each path-taking option is used. An option found in the tree but
    /// in neither list fails ``everyPathOptionIsClassified()``: a new output
    /// can not skip the gate's test.
    static let inputs: Set<String> = [
        "init --migrations", "migrate --migrations", "migrate up --migrations", "migrate status --migrations",
        "migrate rollback --migrations", "migrate repair --migrations", "migrate baseline --migrations",
        "migrate adopt --migrations", "migrate restore-snapshot --migrations", "migrate restore-snapshot --snapshot",
        "exec --file", "backup --passphrase-file", "backup create --passphrase-file", "backup verify --passphrase-file",
        "restore --passphrase-file", "backup list <target>", "backup verify <archive>", "backup prune <target>",
        "restore <archive>", "replicate status <replica>", "replicate verify <replica>", "stats --backups",
    ]

    /// Outputs, each with the command line that exercises it (`PATH` is
    /// replaced by the path under test, `DB` by the database directory,
    /// `SOURCE` by what a restore reads) and what its run reads.
    static let outputs: [String: (arguments: [String], reads: Reads)] = [
        "init <directories>": (["init", "PATH"], .nothing),
        "migrate new --migrations": (["migrate", "new", "--migrations", "PATH", "add_users"], .nothing),
        "migrate --metrics-file": (["migrate", "--database", "DB", "--migrations", "MIGRATIONS", "--metrics-file", "PATH"], .database),
        "migrate up --metrics-file": (["migrate", "up", "--database", "DB", "--migrations", "MIGRATIONS", "--metrics-file", "PATH"], .database),
        "checkpoint --metrics-file": (["checkpoint", "--database", "DB", "--metrics-file", "PATH"], .database),
        "check --metrics-file": (["check", "--database", "DB", "--metrics-file", "PATH"], .database),
        "vacuum --metrics-file": (["vacuum", "--database", "DB", "--metrics-file", "PATH"], .database),
        "vacuum --into": (["vacuum", "--database", "DB", "--into", "PATH", "--force"], .database),
        "snapshot --metrics-file": (["snapshot", "--database", "DB", "--output", "OUTSIDE", "--force", "--metrics-file", "PATH"], .database),
        "snapshot --output": (["snapshot", "--database", "DB", "--output", "PATH", "--force"], .database),
        "snapshot <legacy-output-path>": (["snapshot", "--database", "DB", "PATH", "--force"], .database),
        "snapshot --output-dir": (["snapshot", "--database", "DB", "--output-dir", "PATH"], .database),
        "backup --metrics-file": (["backup", "--database", "DB", "--output", "OUTSIDE", "--force", "--metrics-file", "PATH"], .database),
        "backup --output": (["backup", "--database", "DB", "--output", "PATH", "--force"], .database),
        "backup --output-dir": (["backup", "--database", "DB", "--output-dir", "PATH"], .database),
        "backup create --metrics-file": (
            ["backup", "create", "--database", "DB", "--output", "OUTSIDE", "--force", "--metrics-file", "PATH"], .database
        ),
        "backup create --output": (["backup", "create", "--database", "DB", "--output", "PATH", "--force"], .database),
        "backup create --output-dir": (["backup", "create", "--database", "DB", "--output-dir", "PATH"], .database),
        "replicate run --to": (["replicate", "run", "--database", "DB", "--to", "PATH"], .database),
        "replicate run --metrics-file": (["replicate", "run", "--database", "DB", "--to", "REPLICA", "--metrics-file", "PATH"], .database),
        "restore <directory>": (["restore", "SOURCE", "PATH", "--force"], .source),
    ]

    /// What a run reads, and so protects.
    enum Reads {
        /// Nothing (it only creates new files).
        case nothing
        /// The database `DB`.
        case database
        /// An archive or a replica (`SOURCE`).
        case source
    }

    /// The path-taking options and arguments of the command tree.
    static func pathOptions() throws -> [PathOption] {
        let dump = try dbtool(["--experimental-dump-help"])
        try #require(dump.status == 0, "\(dump.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [PathOption] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard let kind = (argument["completionKind"] as? [String: Any])?.keys.first else { continue }
                let valueName = argument["valueName"] as? String ?? ""
                // Files and directories, and the custom completions of paths.
                let isPath = kind == "file" || kind == "directory" || (kind == "custom" && ["path", "archive", "snapshot"].contains(valueName))
                guard isPath else { continue }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                let name = names.first.map { "--" + $0 } ?? "<\(valueName)>"
                found.append(PathOption(command: path.joined(separator: " "), name: name))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(json["command"] as? [String: Any]), [])
        return found
    }

    /// Options every command shares, read only: the database, the
    /// configuration file that names databases, and the CA bundle.
    static func isSharedInput(_ option: PathOption) -> Bool {
        option.name == "--database" || option.name == "--config" || option.name == "--ca-bundle"
    }

    @Test("every option of the command tree that takes a path is an input or an output the gate is tested with")
    func everyPathOptionIsClassified() throws {
        let options = try Self.pathOptions()
        #expect(options.count > 40, "the tree lists \(options.count) path options: the dump changed shape")
        for option in options where !Self.isSharedInput(option) {
            let known = Self.inputs.contains(option.description) || Self.outputs[option.description] != nil
            #expect(known, "\(option) takes a path: add it to the inputs, or to the outputs with the run that tests its gate")
        }
        // And no stale entry: every output listed is still in the tree.
        let listed = Set(options.map(\.description))
        for output in Self.outputs.keys { #expect(listed.contains(output), "\(output) is no longer in the command tree") }
    }

    /// The database `db` (WAL, with a connection that keeps its -wal and
    /// -shm), its migrations, a replica and an archive of it.
    final class Fixture {
        let scratch = TemporaryDirectory()
        let database: String
        let migrations: String
        let archive: String
        let replica: String
        let connection: DatabaseQueue

        init() throws {
            database = try scratch.makeDatabase()
            migrations = scratch.file("migrations")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
            try Data("CREATE TABLE note(id INTEGER PRIMARY KEY);\n".utf8).write(to: URL(fileURLWithPath: migrations + "/001_note.sql"))
            archive = scratch.file("backups/db.tar.zst")
            try FileManager.default.createDirectory(atPath: scratch.file("backups"), withIntermediateDirectories: false)
            let backup = try dbtool(["backup", "--database", database, "--output", archive, "-q"])
            try #require(backup.status == 0, "\(backup.stderr)")
            #expect(try dbtool(["exec", "--database", database, "PRAGMA journal_mode = WAL"]).status == 0)
            let replica = scratch.file("replica")
            self.replica = replica
            let replicate = try BackgroundTool(["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
            #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0") })
            replicate.send(SIGTERM)
            #expect(replicate.wait().status == 0)
            connection = try DatabaseQueue(path: database + "/db.sqlite")
            try connection.write { db in try db.execute(sql: "INSERT INTO account VALUES (100, 1)") }
            #expect(FileManager.default.fileExists(atPath: database + "/db.sqlite-wal"))
            // Links to the database file: hard, symbolic, and a path through `..`.
            #expect(link(database + "/db.sqlite", scratch.file("hard-link")) == 0)
            #expect(symlink(database + "/db.sqlite", scratch.file("soft-link")) == 0)
            try FileManager.default.createDirectory(atPath: scratch.file("elsewhere"), withIntermediateDirectories: false)
        }

        /// The objects a run of `reads` protects, by name.
        func protected(_ reads: Reads) -> [(name: String, path: String)] {
            switch reads {
            case .nothing: []
            case .database:
                [
                    ("the database file", database + "/db.sqlite"), ("its WAL", database + "/db.sqlite-wal"),
                    ("its WAL index", database + "/db.sqlite-shm"), ("its journal (absent)", database + "/db.sqlite-journal"),
                    ("its identity file", database + "/.db.sqlite.dbtool-id"), ("the database directory", database),
                    ("a file inside the database directory", database + "/new.out"),
                    ("a hard link to the database file", scratch.file("hard-link")),
                    ("a symbolic link to the database file", scratch.file("soft-link")),
                    ("the database file through ..", scratch.file("elsewhere/../db/db.sqlite")),
                ]
            case .source:
                [
                    ("the archive", archive), ("the directory holding the archive", scratch.file("backups")),
                    ("the replica", replica), ("a directory inside the replica", replica + "/ltx"),
                    ("a new directory inside the replica", replica + "/restored"),
                ]
            }
        }

        /// The bytes of every file of the database directory, the backups and
        /// the replica (the WAL index, which readers update, left out).
        func fingerprint() -> [String: Data] {
            var result: [String: Data] = [:]
            for root in [database, scratch.file("backups"), replica] {
                guard let enumerator = FileManager.default.enumerator(atPath: root) else { continue }
                for case let relative as String in enumerator where !relative.hasSuffix("-shm") {
                    result[root + "/" + relative] = FileManager.default.contents(atPath: root + "/" + relative) ?? Data()
                }
            }
            return result
        }
    }

    @Test("each output option pointed at each object its run reads: 64, both paths named, nothing changed")
    func everyOutputAtEveryProtectedObject() throws {
        let fixture = try Fixture()
        defer { try? fixture.connection.close() }
        var tried = 0
        for (option, usage) in Self.outputs.sorted(by: { $0.key < $1.key }) {
            for (name, path) in fixture.protected(usage.reads) {
                // A restore reads an archive or a replica: each of its objects with the run that reads it.
                let source = name.contains("replica") ? fixture.replica : fixture.archive
                let arguments = usage.arguments.map { argument in
                    switch argument {
                    case "PATH": path
                    case "DB": fixture.database
                    case "MIGRATIONS": fixture.migrations
                    case "SOURCE": source
                    case "OUTSIDE": fixture.scratch.file("outside-\(tried).out")
                    case "REPLICA": fixture.scratch.file("replica-\(tried)")
                    default: argument
                    }
                }
                let before = fixture.fingerprint()
                let result = try dbtool(arguments)
                tried += 1
                #expect(result.status == 64, "\(option) at \(name) (\(path)): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains("nothing was changed"), "\(option) at \(name): \(result.stderr)")
                let named = usage.reads == .source ? [path, source] : [path, fixture.database]
                for expected in named {
                    let shown = URL(fileURLWithPath: expected).standardizedFileURL.path
                    #expect(result.stderr.contains(shown), "\(option) at \(name): \(shown) is not named in: \(result.stderr)")
                }
                #expect(fixture.fingerprint() == before, "\(option) at \(name): a file changed")
            }
        }
        #expect(tried > 100, "only \(tried) runs")
        #expect(try accountTotals(fixture.database).accounts == 11)
    }
}
