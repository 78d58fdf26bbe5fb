import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The runner shared by DatabaseMigrator and dbtool's SQL-file migrations,
/// with a recorder of its own as dbtool uses it.
@Suite("MigrationRunner")
struct MigrationRunnerTests {
    struct Recorder: MigrationRecorder {
        func prepare(_ db: Database) throws {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS applied (id TEXT PRIMARY KEY, duration REAL NOT NULL)")
        }
        func appliedIdentifiers(_ db: Database) throws -> Set<String> {
            try Set(String.fetchAll(db, sql: "SELECT id FROM applied"))
        }
        func record(_ step: MigrationStep, duration: TimeInterval, in db: Database) throws {
            try db.execute(sql: "INSERT INTO applied VALUES (?, ?)", arguments: [step.identifier, duration])
        }
    }

    @Test("applies once, records with the duration, in the migration's transaction")
    func appliesOnce() throws {
        let dbQueue = DatabaseQueue()
        let runner = MigrationRunner(recorder: Recorder())
        let step = MigrationStep(identifier: "1", foreignKeyChecks: .deferred) { db in
            try db.execute(sql: "CREATE TABLE t(a)")
        }
        try dbQueue.writeWithoutTransaction { (db: Database) throws in
            #expect(try runner.apply(step, in: db))
            #expect(try !runner.apply(step, in: db))
            #expect(try Double.fetchOne(db, sql: "SELECT duration FROM applied WHERE id = '1'")! >= 0)
        }
    }

    @Test("a failing step leaves neither its changes nor its record")
    func failing() throws {
        struct Failure: Error {}
        let dbQueue = DatabaseQueue()
        let runner = MigrationRunner(recorder: Recorder())
        let step = MigrationStep(identifier: "1", foreignKeyChecks: .deferred) { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            throw Failure()
        }
        try dbQueue.writeWithoutTransaction { (db: Database) throws in
            #expect(throws: Failure.self) { try runner.apply(step, in: db) }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('t', 'applied')") == 0)
        }
    }

    @Test("a step outside of a transaction can run what SQLite refuses inside one")
    func outsideTransaction() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        let runner = MigrationRunner(recorder: Recorder())
        let step = MigrationStep(identifier: "vacuum", foreignKeyChecks: .immediate, runsInTransaction: false) { db in
            try db.execute(sql: "VACUUM")
        }
        try dbQueue.writeWithoutTransaction { (db: Database) throws in
            #expect(try runner.apply(step, in: db))
            #expect(try runner.recorder.appliedIdentifiers(db) == ["vacuum"])
            #expect(try !runner.apply(step, in: db))
        }
    }

    @Test("deferredUnchecked tolerates a violation; deferred refuses it")
    func uncheckedViolation() throws {
        let dbQueue = DatabaseQueue()
        let runner = MigrationRunner(recorder: Recorder())
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(pid REFERENCES p(id))")
        }
        let orphan: @Sendable (Database) throws -> Void = { db in try db.execute(sql: "INSERT INTO c VALUES (7)") }
        try dbQueue.writeWithoutTransaction { (db: Database) throws in
            expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) {
                try runner.apply(MigrationStep(identifier: "checked", foreignKeyChecks: .deferred, migrate: orphan), in: db)
            }
            #expect(try runner.apply(MigrationStep(identifier: "unchecked", foreignKeyChecks: .deferredUnchecked, migrate: orphan), in: db))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM c") == 1)
        }
    }
}
