import DatabaseKit
import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// dbtool's operations run in process, their `Codable` reports compared
/// whole: what the CLI prints as JSON is these values. The end-to-end tests
/// (DBToolTests) keep what needs a process: exit codes, signals, files.
@Suite("Operations in process")
struct OperationTests {
    /// Writes `files` (name: SQL) into a new migrations directory.
    private func migrations(_ files: [String: String], in scratch: TemporaryDirectory) throws -> String {
        let path = scratch.file("migrations")
        try FileSystem.createDirectory(path)
        for (name, sql) in files { try Data(sql.utf8).write(to: URL(fileURLWithPath: path + "/" + name)) }
        return path
    }

    private let twoMigrations = [
        "0001_create_team.sql": "-- migrate:up\nCREATE TABLE team(id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE team;\n",
        "0002_create_player.sql":
            "-- migrate:up\nCREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id));\n-- migrate:down\nDROP TABLE player;\n",
    ]

    @Test("init reports what it created, then that nothing changed")
    func initialize() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        let first = try InitOperation(directory: directory).run()
        let expected = InitOperation.Report(directory: directory, database: directory + "/db.sqlite", created: true, journalMode: "wal")
        #expect(first == expected)
        var again = expected
        again.created = false
        #expect(try InitOperation(directory: directory).run() == again)
        #expect(try FileSystem.status(directory)?.permissions == 0o700)
        #expect(try FileSystem.status(directory + "/db.sqlite")?.permissions == 0o600)
    }

    @Test("init --migrations applies them; rollback reverts the newest; status counts the pending one")
    func migrateFamily() throws {
        let scratch = TemporaryDirectory()
        let migrationsPath = try migrations(twoMigrations, in: scratch)
        var operation = InitOperation(directory: scratch.file("db"))
        operation.migrationsPath = migrationsPath
        let report = try operation.run()
        #expect(report.created)
        let applied = try #require(report.migrate)
        #expect(applied.steps.map(\.version) == [1, 2])
        #expect(applied.steps.map(\.direction) == ["up", "up"])
        #expect(applied.version == 2)
        // The JSON of `init --format json`: the init report's keys, and "migrate".
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(Set(json.keys) == ["directory", "database", "created", "journalMode", "migrate"])

        let location = try DatabaseLocation(path: scratch.file("db"))
        let maintenance = MigrationMaintenance(database: DatabaseHandle(location: location), migrationsPath: migrationsPath)
        let rolledBack = try maintenance.rollback(steps: 1)
        #expect(rolledBack.steps.map(\.version) == [2])
        #expect(rolledBack.steps.map(\.direction) == ["down"])
        let status = try maintenance.status()
        #expect(status.pendingCount == 1)
        #expect(status.migrations.map(\.version) == [1, 2])
        #expect(status.exitCode(allowOutOfOrder: false) == 1)
        let tables = try DatabaseQueue(path: location.filePath).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'dbtool_%' ORDER BY name")
        }
        #expect(tables == ["team"])
    }

    @Test("a migration that fails reports the ones applied before it, and the error")
    func partialFailure() throws {
        let scratch = TemporaryDirectory()
        var files = twoMigrations
        files["0003_broken.sql"] = "-- migrate:up\nCREATE TABLE oops(;\n"
        var operation = InitOperation(directory: scratch.file("db"))
        operation.migrationsPath = try migrations(files, in: scratch)
        #expect {
            try operation.run()
        } throws: { error in
            guard let failure = error as? InitOperation.Failure else { return false }
            return failure.report.created && failure.report.migrate?.steps.map(\.version) == [1, 2]
                && failure.report.migrate?.failed?.version == 3 && failure.error.status == .dataError
                && failure.report.migrate?.error == failure.error.summary
        }
    }

    @Test("revert runs once, in the runner's transaction, and keeps foreign keys valid")
    func revertThroughRunner() throws {
        let scratch = TemporaryDirectory()
        let migrationsPath = try migrations(twoMigrations, in: scratch)
        let directory = try MigrationDirectory(path: migrationsPath)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let dbQueue = try DatabaseQueue(path: scratch.file("db.sqlite"), configuration: configuration)
        let runner = MigrationRunner(recorder: MigrationsTable(files: directory.migrations))
        try dbQueue.writeWithoutTransaction { db in
            for file in directory.migrations {
                let step = MigrationStep(identifier: String(file.version), foreignKeyChecks: .deferred) { db in try file.run(.up, in: db) }
                #expect(try runner.apply(step, in: db))
            }
            try db.execute(sql: "INSERT INTO team VALUES (1); INSERT INTO player VALUES (1, 1)")
            // Reverting team's table leaves a player referencing a missing team.
            let dropTeam = MigrationStep(identifier: "1", foreignKeyChecks: .deferred) { db in try db.execute(sql: "DROP TABLE team") }
            #expect(throws: DatabaseError.self) { try runner.revert(dropTeam, in: db) }
            #expect(try db.tableExists("team"), "the failed revert was rolled back")
            #expect(try runner.recorder.appliedIdentifiers(db) == ["1", "2"])
            let dropPlayer = MigrationStep(identifier: "2", foreignKeyChecks: .deferred) { db in try db.execute(sql: "DROP TABLE player") }
            #expect(try runner.revert(dropPlayer, in: db))
            #expect(try !runner.revert(dropPlayer, in: db), "a second revert finds it reverted, and runs nothing")
            #expect(try runner.recorder.appliedIdentifiers(db) == ["1"])
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true, "foreign keys are enabled again")
        }
    }

    @Test("backup --keep prunes by the archives' own times; verify and restore report the backup's manifest")
    func backupVerifyRestore() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        _ = try InitOperation(directory: directory).run()
        let location = try DatabaseLocation(path: directory)
        try DatabaseQueue(path: location.filePath).write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (42)")
        }
        var backup = BackupOperation(database: DatabaseHandle(location: location))
        backup.outputDirectory = scratch.file("backups")
        backup.keep = 2
        // Given times, not the clock: no sleeping for distinct names.
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let reports = try (0..<3).map { try backup.run(now: start.addingTimeInterval(Double($0))) }
        #expect(reports.map { URL(fileURLWithPath: $0.archive).lastPathComponent } == [
            "db-20261118T110640.000Z.tar.zst", "db-20261118T110641.000Z.tar.zst", "db-20261118T110642.000Z.tar.zst",
        ])
        #expect(reports[2].deleted == [reports[0].archive])
        #expect(reports[2].deleteFailures.isEmpty)
        let kept = reports.suffix(2).map { URL(fileURLWithPath: $0.archive).lastPathComponent }
        #expect(try FileSystem.contentsOfDirectory(scratch.file("backups")) == kept.flatMap { [$0, $0 + ".dbtool.json"] })

        let verified = try VerifyOperation(archive: reports[2].archive).run()
        #expect(verified.integrity == "ok")
        #expect(verified.manifest.pageCount == reports[2].pageCount)
        #expect(verified.manifest.files.count == reports[2].files)

        let restored = try RestoreOperation(archive: reports[2].archive, directory: scratch.file("restored")).run()
        #expect(restored.manifest == verified.manifest)
        #expect(!restored.replaced && !restored.live)
        let value = try DatabaseQueue(path: restored.database).read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        #expect(value == 42)
    }

    @Test("exec writes the rows of each statement in the chosen format")
    func exec() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.file("db")
        _ = try InitOperation(directory: directory).run()
        var operation = ExecOperation(
            database: DatabaseHandle(location: try DatabaseLocation(path: directory)), sql: "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (?, NULL); SELECT * FROM t")
        operation.arguments = [2]
        operation.format = .jsonl
        let output = Locked("")
        try operation.run { text in output.withLock { $0 += text } }
        #expect(output.current == "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":null}\n")
        #expect(try SQLSource.text("SELECT 1").read() == "SELECT 1")
        #expect(throws: DBToolError.self) { try SQLSource.file(scratch.file("missing.sql")).read() }
    }
}
