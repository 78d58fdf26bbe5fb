import DatabaseKit
import FoundationEssentials

/// A failure after part of the work was done and stays done: the report
/// of that part is printed before the error.
public protocol PartialFailure: Error {
    /// What was done, with the failure in it.
    var partialReport: any Encodable { get }
    /// Why it stopped.
    var error: DBToolError { get }
}

/// A migration run that failed after others were applied or rolled back:
/// those stay done, and the report says which, with the failure.
public struct MigrationFailure: PartialFailure, Sendable {
    /// The steps done before the failure, the failed step and the error.
    public let report: MigrateOperation.Report
    public let error: DBToolError

    public var partialReport: any Encodable { report }
}

/// Runs a plan of migrations on one connection, each in its own
/// transaction (unless it runs outside of one), and reports what it did.
///
/// Foreign keys are disabled during each migration, so that tables can be
/// rebuilt; before it commits, the violations it introduced fail it, naming
/// them. Violations that were there before the run are notices, not errors.
struct MigrationExecution {
    let database: DatabaseHandle
    let notice: @Sendable (String) -> Void
    var warnings: [String] = []
    var snapshot: String?

    /// - throws: ``MigrationFailure`` when a migration fails, carrying the
    ///   migrations done before it.
    mutating func run(_ plan: [(MigrationFile, MigrationDirection)], in db: Database) throws -> MigrateOperation.Report {
        var steps: [MigrateOperation.Step] = []
        if !plan.isEmpty {
            let existing = try ForeignKeyViolations(db)
            if !existing.isEmpty {
                let warning =
                    "the database already has foreign key violations (\(existing.countText)): \(existing.summary); migrations do not fail on them, only on violations they add"
                notice(warning)
                warnings.append(warning)
            }
        }
        let runner = MigrationRunner(recorder: MigrationsTable(files: plan.filter { $0.1 == .up }.map(\.0)))
        // What the records must hold before each step: what the plan was made
        // from, and what this run did since. Read again under the step's write lock.
        var expected = Set(try MigrationsTable.records(db).map(\.version))
        for (file, direction) in plan {
            let start = Date()
            do {
                let ran: Bool
                switch direction {
                case .up: ran = try apply(file, with: runner, expecting: expected, in: db)
                case .down: ran = try revert(file, with: runner, expecting: expected, in: db)
                }
                if ran { steps.append(.init(file, direction, durationMs: milliseconds(since: start))) }
                if direction == .up { expected.insert(file.version) } else { expected.remove(file.version) }
            } catch {
                throw failure(error, at: file, direction, after: steps, in: db)
            }
        }
        return report(steps, in: db)
    }

    private func report(_ steps: [MigrateOperation.Step], in db: Database) -> MigrateOperation.Report {
        // Nil when the table can not be read: the steps matter more.
        let newest = (try? MigrationsTable.records(db))?.map(\.version).max()
        return MigrateOperation.Report(
            database: database.location.filePath, dryRun: false, steps: steps, version: newest, snapshot: snapshot, warnings: warnings)
    }

    /// The failure of `file`, worded for its direction and for what ran before it.
    private func failure(
        _ error: any Error, at file: MigrationFile, _ direction: MigrationDirection, after steps: [MigrateOperation.Step],
        in db: Database
    ) -> MigrationFailure {
        var toolError: DBToolError
        switch error {
        case let error as any ReportableError: toolError = error.toolError
        case let error as DatabaseError: toolError = .database(error, path: database.location.filePath, timeout: database.timeout)
        default: toolError = DBToolError(.software, "unexpected error: \(error)")
        }
        if !steps.isEmpty {
            let count = steps.count == 1 ? "The migration" : "The \(steps.count) migrations"
            let done = "\(count) \(direction.pastTense) before it \(steps.count == 1 ? "stays" : "stay") \(direction.pastTense) (listed above)."
            toolError = toolError.withHint([toolError.hint, done].compactMap { $0 }.joined(separator: " "))
        }
        var report = report(steps, in: db)
        report.failed = .init(file, direction)
        report.error = toolError.summary
        return MigrationFailure(report: report, error: toolError)
    }

    /// Throws 65 when the records no longer hold `expected`: the database
    /// was replaced or restored under the run (between two migrations), and
    /// applying the next one would record a history that never happened.
    private static func checkUnchanged(expecting expected: Set<UInt64>, before file: MigrationFile, in db: Database) throws {
        let recorded = Set(try MigrationsTable.records(db).map(\.version)).subtracting([file.version])
        let wanted = expected.subtracting([file.version])
        guard recorded != wanted else { return }
        let missing = wanted.subtracting(recorded).sorted().map(String.init)
        let added = recorded.subtracting(wanted).sorted().map(String.init)
        let changes = [missing.isEmpty ? nil : "no longer recorded: \(missing.joined(separator: ", "))", added.isEmpty ? nil : "recorded by another: \(added.joined(separator: ", "))"]
        throw DBToolError(
            .dataError,
            "the database changed during the migration (\(changes.compactMap { $0 }.joined(separator: "; "))): was it restored or replaced? Migration \(file.version) was not run",
            hint: "Check the database, then run `dbtool migrate status` and migrate again.")
    }

    /// Applies one file unless another run did; true when this call applied it.
    private func apply(_ file: MigrationFile, with runner: MigrationRunner<MigrationsTable>, expecting expected: Set<UInt64>, in db: Database)
        throws -> Bool
    {
        let step = MigrationStep(
            identifier: String(file.version), foreignKeyChecks: .deferredUnchecked, runsInTransaction: !file.runsOutsideTransaction
        ) { db in
            try MigrationExecution.checkUnchanged(expecting: expected, before: file, in: db)
            try MigrationExecution.checkingForeignKeys(of: file, .up, in: db) { try file.run(.up, in: db) }
        }
        return try runner.apply(step, in: db)
    }

    /// Runs a migration's down section and deletes its record, with the
    /// runner's transaction and foreign key handling (see ``apply(_:with:in:)``);
    /// false when another run reverted it first.
    private func revert(_ file: MigrationFile, with runner: MigrationRunner<MigrationsTable>, expecting expected: Set<UInt64>, in db: Database)
        throws -> Bool
    {
        let step = MigrationStep(
            identifier: String(file.version), foreignKeyChecks: .deferredUnchecked, runsInTransaction: !file.downRunsOutsideTransaction
        ) { db in
            try MigrationExecution.checkUnchanged(expecting: expected, before: file, in: db)
            try MigrationExecution.checkingForeignKeys(of: file, .down, in: db) { try file.run(.down, in: db) }
        }
        return try runner.revert(step, in: db)
    }

    /// Runs `body`, and throws when it left rows referencing missing rows
    /// that were not there before it.
    private static func checkingForeignKeys(
        of file: MigrationFile, _ direction: MigrationDirection, in db: Database, _ body: () throws -> Void
    ) throws {
        let before = try ForeignKeyViolations(db)
        try body()
        let introduced = try ForeignKeyViolations(db).introduced(since: before)
        guard !introduced.isEmpty else { return }
        let what = direction == .up ? "the migration" : "rolling it back"
        throw DBToolError(
            .dataError,
            "\(direction == .up ? file.path : file.downFile): \(what) leaves foreign key violations (\(introduced.countText)): \(introduced.summary)",
            hint: MigrationFile.nothingRanHint(direction) + " Keep foreign keys valid in it (delete or fix those rows).")
    }
}
