import Foundation

/// How a migration treats foreign keys. Shared by ``DatabaseMigrator`` and
/// dbtool's SQL-file migrations.
package enum MigrationForeignKeyChecks: Sendable {
    /// Foreign keys disabled during the migration (so that tables can be
    /// rebuilt), then `PRAGMA foreign_key_check` before commit: a violation
    /// fails the migration.
    case deferred
    /// Disabled during the migration, and not checked afterwards.
    case deferredUnchecked
    /// Enforced statement by statement.
    case immediate
}

/// One migration to apply.
package struct MigrationStep: Sendable {
    package let identifier: String
    package let foreignKeyChecks: MigrationForeignKeyChecks
    /// False for migrations whose statements SQLite refuses inside a
    /// transaction (they are then not atomic).
    package let runsInTransaction: Bool
    package let migrate: @Sendable (Database) throws -> Void

    package init(
        identifier: String,
        foreignKeyChecks: MigrationForeignKeyChecks,
        runsInTransaction: Bool = true,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        self.identifier = identifier
        self.foreignKeyChecks = foreignKeyChecks
        self.runsInTransaction = runsInTransaction
        self.migrate = migrate
    }
}

/// Where applied migrations are recorded: `grdb_migrations` for
/// ``DatabaseMigrator``, dbtool's own table for SQL files.
package protocol MigrationRecorder: Sendable {
    /// Creates the table when missing (inside the migration's transaction).
    func prepare(_ db: Database) throws
    /// The identifiers already applied.
    func appliedIdentifiers(_ db: Database) throws -> Set<String>
    /// Records an applied migration, in the same transaction as the migration.
    func record(_ step: MigrationStep, duration: TimeInterval, in db: Database) throws
}

/// Applies migrations one at a time: each in an IMMEDIATE transaction that
/// reads the applied set again under the write lock (so that processes
/// migrating the same file apply it once), runs it with the requested foreign
/// key handling, and records it in the same transaction: applied entirely or
/// not at all.
package struct MigrationRunner<Recorder: MigrationRecorder>: Sendable {
    package let recorder: Recorder

    package init(recorder: Recorder) {
        self.recorder = recorder
    }

    /// Applies `step` unless it is already applied.
    ///
    /// - returns: True when the step was applied by this call.
    /// - throws: The migration's error, or ``DatabaseError``
    ///   (`SQLITE_CONSTRAINT_FOREIGNKEY`) naming the table of a violation.
    @discardableResult
    package func apply(_ step: MigrationStep, in db: Database) throws -> Bool {
        let disablesForeignKeys = step.foreignKeyChecks != .immediate && db.configuration.foreignKeysEnabled
        if disablesForeignKeys {
            // PRAGMA foreign_keys has no effect inside a transaction.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
        }
        defer {
            if disablesForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        if step.runsInTransaction {
            var applied = false
            try db.inTransaction(.immediate) {
                applied = try applyUnlessRecorded(step, in: db)
                return .commit
            }
            return applied
        }
        // Outside a transaction: the check and the record are still atomic
        // with each other, but the migration's statements are not.
        if try isRecorded(step, in: db) { return false }
        let start = Date()
        try step.migrate(db)
        if step.foreignKeyChecks == .deferred { try db.checkForeignKeys(after: step.identifier) }
        try db.inTransaction(.immediate) {
            try recorder.prepare(db)
            try recorder.record(step, duration: Date().timeIntervalSince(start), in: db)
            return .commit
        }
        return true
    }

    private func applyUnlessRecorded(_ step: MigrationStep, in db: Database) throws -> Bool {
        try recorder.prepare(db)
        if try recorder.appliedIdentifiers(db).contains(step.identifier) { return false }
        let start = Date()
        try step.migrate(db)
        if step.foreignKeyChecks == .deferred { try db.checkForeignKeys(after: step.identifier) }
        try recorder.record(step, duration: Date().timeIntervalSince(start), in: db)
        return true
    }

    private func isRecorded(_ step: MigrationStep, in db: Database) throws -> Bool {
        var recorded = false
        try db.inTransaction(.immediate) {
            try recorder.prepare(db)
            recorded = try recorder.appliedIdentifiers(db).contains(step.identifier)
            return .commit
        }
        return recorded
    }
}

extension Database {
    /// Runs `PRAGMA foreign_key_check` and throws on the first violation,
    /// naming the table, the row and the referenced table.
    func checkForeignKeys(after identifier: String) throws {
        guard let violation = try Row.fetchOne(self, sql: "PRAGMA foreign_key_check") else { return }
        let table: String = violation["table"]
        let rowid: Int64? = violation["rowid"]
        let parent: String = violation["parent"]
        throw DatabaseError(
            resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
            message:
                "FOREIGN KEY constraint violation after migration \(String(reflecting: identifier)): table \(table)\(rowid.map { " (rowid \($0))" } ?? "") references a missing row of \(parent)"
        )
    }
}
