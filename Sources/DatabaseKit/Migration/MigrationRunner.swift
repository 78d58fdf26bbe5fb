import FoundationEssentials

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
    /// Earlier migrations this one replaces: those already applied are
    /// given to `migrate`, and their records deleted once it is applied.
    package let mergedIdentifiers: Set<String>
    /// The migration; its second argument is the applied merged identifiers.
    package let migrate: @Sendable (Database, Set<String>) throws -> Void

    package init(
        identifier: String,
        foreignKeyChecks: MigrationForeignKeyChecks,
        runsInTransaction: Bool = true,
        mergedIdentifiers: Set<String> = [],
        migrate: @escaping @Sendable (Database, Set<String>) throws -> Void
    ) {
        self.identifier = identifier
        self.foreignKeyChecks = foreignKeyChecks
        self.runsInTransaction = runsInTransaction
        self.mergedIdentifiers = mergedIdentifiers
        self.migrate = migrate
    }

    package init(
        identifier: String,
        foreignKeyChecks: MigrationForeignKeyChecks,
        runsInTransaction: Bool = true,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        self.init(
            identifier: identifier, foreignKeyChecks: foreignKeyChecks, runsInTransaction: runsInTransaction
        ) { db, _ in try migrate(db) }
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
    /// Deletes the records of migrations merged into another one, or reverted.
    func forget(_ identifiers: Set<String>, in db: Database) throws
}

extension MigrationRecorder {
    /// Recorders whose steps merge and revert no migration have nothing to forget.
    package func forget(_ identifiers: Set<String>, in db: Database) throws {
        throw DatabaseError.misuse("this migrations table does not support merged migrations")
    }
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
        try withForeignKeyHandling(of: step, in: db) { checksForeignKeys in
            if step.runsInTransaction {
                var applied = false
                try db.inTransaction(.immediate) {
                    applied = try applyUnlessRecorded(step, checkingForeignKeys: checksForeignKeys, in: db)
                    return .commit
                }
                return applied
            }
            // Outside a transaction: the check and the record are still atomic
            // with each other, but the migration's statements are not.
            guard let appliedMerged = try pendingMergedIdentifiers(step, in: db) else { return false }
            let start = Date()
            try step.migrate(db, appliedMerged)
            if checksForeignKeys { try db.checkForeignKeys() }
            try db.inTransaction(.immediate) {
                try recorder.prepare(db)
                try record(step, replacing: appliedMerged, since: start, in: db)
                return .commit
            }
            return true
        }
    }

    /// Reverts `step` (whose `migrate` undoes the migration) unless it is not
    /// applied, and deletes its record: in one IMMEDIATE transaction that
    /// reads the applied set again under the write lock, with the step's
    /// foreign key handling. Outside a transaction (`runsInTransaction`
    /// false) the record is deleted after the statements ran.
    ///
    /// - returns: True when the step was reverted by this call.
    @discardableResult
    package func revert(_ step: MigrationStep, in db: Database) throws -> Bool {
        try withForeignKeyHandling(of: step, in: db) { checksForeignKeys in
            func isApplied() throws -> Bool {
                try recorder.prepare(db)
                return try recorder.appliedIdentifiers(db).contains(step.identifier)
            }
            var reverted = false
            if step.runsInTransaction {
                try db.inTransaction(.immediate) {
                    guard try isApplied() else { return .commit }
                    try step.migrate(db, [])
                    try recorder.forget([step.identifier], in: db)
                    if checksForeignKeys { try db.checkForeignKeys() }
                    reverted = true
                    return .commit
                }
                return reverted
            }
            try db.inTransaction(.immediate) {
                reverted = try isApplied()
                return .commit
            }
            guard reverted else { return false }
            try step.migrate(db, [])
            if checksForeignKeys { try db.checkForeignKeys() }
            try db.inTransaction(.immediate) {
                try recorder.forget([step.identifier], in: db)
                return .commit
            }
            return true
        }
    }

    /// Runs `body` with foreign keys disabled when the step asks for it (and
    /// they are enabled), re-enabled afterwards; `body` is told whether to
    /// check them before commit.
    private func withForeignKeyHandling<T>(of step: MigrationStep, in db: Database, _ body: (Bool) throws -> T) throws -> T {
        // The connection's actual setting: `prepareDatabase` may have changed it.
        let foreignKeysEnabled = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        let disablesForeignKeys = step.foreignKeyChecks != .immediate && foreignKeysEnabled
        if disablesForeignKeys {
            // PRAGMA foreign_keys has no effect inside a transaction.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
        }
        defer {
            if disablesForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        return try body(step.foreignKeyChecks == .deferred && foreignKeysEnabled)
    }

    private func applyUnlessRecorded(_ step: MigrationStep, checkingForeignKeys: Bool, in db: Database) throws -> Bool {
        try recorder.prepare(db)
        let applied = try recorder.appliedIdentifiers(db)
        let appliedMerged = step.mergedIdentifiers.intersection(applied)
        if applied.contains(step.identifier) {
            // Applied before the merge was declared: only the merged records go.
            if !appliedMerged.isEmpty { try recorder.forget(appliedMerged, in: db) }
            return false
        }
        let start = Date()
        try step.migrate(db, appliedMerged)
        try record(step, replacing: appliedMerged, since: start, in: db)
        if checkingForeignKeys { try db.checkForeignKeys() }
        return true
    }

    private func record(_ step: MigrationStep, replacing merged: Set<String>, since start: Date, in db: Database) throws {
        if !merged.isEmpty { try recorder.forget(merged, in: db) }
        try recorder.record(step, duration: Date().timeIntervalSince(start), in: db)
    }

    /// The applied merged identifiers of a step that is not applied yet;
    /// nil when it is (after forgetting its merged records).
    private func pendingMergedIdentifiers(_ step: MigrationStep, in db: Database) throws -> Set<String>? {
        var pending: Set<String>?
        try db.inTransaction(.immediate) {
            try recorder.prepare(db)
            let applied = try recorder.appliedIdentifiers(db)
            let appliedMerged = step.mergedIdentifiers.intersection(applied)
            if applied.contains(step.identifier) {
                if !appliedMerged.isEmpty { try recorder.forget(appliedMerged, in: db) }
            } else {
                pending = appliedMerged
            }
            return .commit
        }
        return pending
    }
}
