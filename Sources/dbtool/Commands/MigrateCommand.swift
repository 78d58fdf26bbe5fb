import ArgumentParser
import DBToolCore
import DatabaseKit
import FoundationEssentials

/// Where the migration files are.
struct MigrationsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).", valueName: "dir"),
        completion: .directory, transform: nonEmptyPath)
    var migrations: String?

    /// The directory: --migrations, or $DBTOOL_MIGRATIONS. Not checked in
    /// `validate()`: `restore-snapshot` accepts the option without needing it.
    var path: String {
        get throws {
            let path = migrations ?? RunEnvironment.value("DBTOOL_MIGRATIONS")
            guard let path else { throw ValidationError("no migrations directory: pass --migrations DIR or set DBTOOL_MIGRATIONS") }
            return path
        }
    }

    /// The maintenance operations on this directory and database.
    func maintenance(_ database: DatabaseOptions, _ output: OutputOptions) throws -> MigrationMaintenance {
        var maintenance = MigrationMaintenance(database: try database.handle, migrationsPath: try path)
        maintenance.notice = output.notice
        return maintenance
    }
}

/// A `migrate` subcommand that reads the migrations directory: a missing
/// one is a usage error before anything runs, shown with the subcommand's usage.
protocol ReadsMigrations: ParsableCommand {
    var migrations: MigrationsOptions { get }
}

extension ReadsMigrations {
    func validate() throws { _ = try migrations.path }
}

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply SQL-file migrations, each exactly once, all or nothing.",
        discussion: """
            Files are VERSION_name.sql, ordered by VERSION (digits), with `-- migrate:up` and \
            optionally `-- migrate:down` sections. dbmate files (`transaction:false`), goose files \
            (`-- +goose Up`/`Down`, StatementBegin/End, NO TRANSACTION) and golang-migrate pairs \
            (VERSION_name.up.sql + VERSION_name.down.sql) are read as they are. Files that are not \
            .sql are skipped with one notice. Each migration runs in its own IMMEDIATE \
            transaction with its record; foreign keys are disabled during it, and the violations it \
            adds fail it before it commits (violations that were there before are a notice). One \
            run at a time per database (a lock file in its directory): a run that waited reports \
            that nothing was left to do. A failing migration rolls back entirely, names the file, \
            line and statement, and exits 65; the migrations done before it are reported and stay.

            Before changing anything, migrate refuses (65) when an applied file was modified or is \
            missing, when a pending file is older than the newest applied one (unless \
            --allow-out-of-order), or when another tool (goose, golang-migrate, dbmate) migrated \
            the database and `migrate adopt` has not recorded its history.

            Examples:
              dbtool migrate --database /var/lib/myapp/db --migrations ./migrations
              dbtool migrate --database db --migrations m --to 3
              dbtool migrate --database db --migrations m --to none
              dbtool migrate --database db --migrations m --dry-run
              dbtool migrate status --database db --migrations m --exit-code

            Exit status: 0 migrated, or nothing to do; 64 usage error; 65 a migration failed (it \
            was rolled back) or migrate refused; 66 no database or migrations directory; 73 or 74 \
            cannot write (74: disk full); 75 the database, or another migrate run, held it past \
            --timeout; 77 permission denied. `migrate status --exit-code` adds 1 and 3.
            """,
        subcommands: [
            MigrateUp.self, MigrateStatus.self, MigrateRollback.self, MigrateRepair.self, MigrateBaseline.self, MigrateAdopt.self,
            MigrateNew.self, MigrateRestoreSnapshot.self,
        ],
        defaultSubcommand: MigrateUp.self)
}

struct MigrateUp: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "up", abstract: "Apply pending migrations (the default), or move to --to VERSION.")

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Migrate up or down to this version, included; `none` rolls back every migration (0 is a version like any other).",
            valueName: "version|none"),
        completion: .migrationVersions(includingNone: true))
    var to: MigrationTarget?

    @Flag(name: .long, help: "Print the migrations and SQL that would run; change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Apply pending migrations older than the newest applied one.")
    var allowOutOfOrder = false

    @Flag(
        name: .long,
        help: "Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).")
    var snapshot = false

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let migrationsPath = try migrations.path
        let isFleet = database.namesFleet
        // A fleet reads the files (and their checksums) once.
        let directory = isFleet ? try MigrationDirectory(path: migrationsPath) : nil
        let (target, dryRun, allowOutOfOrder, printNotice) = (to, self.dryRun, self.allowOutOfOrder, output.notice)
        // The notices of the shared files (skipped entries) once for a fleet, not once per database.
        let printed = Locked(Set<String>())
        let notice: @Sendable (String) -> Void = { text in if printed.withLock({ $0.insert(text).inserted }) { printNotice(text) } }
        let takesSnapshot = snapshot || RunEnvironment.value("DBTOOL_MIGRATE_SNAPSHOT") == "1"
        try runOverDatabases("migrate", database, fleet, output, metrics: metrics) { handle in
            var operation = MigrateOperation(database: handle, migrationsPath: migrationsPath)
            operation.directory = directory
            operation.target = target
            operation.dryRun = dryRun
            operation.allowOutOfOrder = allowOutOfOrder
            operation.takesSnapshot = takesSnapshot
            operation.notice = notice
            return (try operation.run(), nil)
        } text: { report in
            isFleet ? describeBriefly(report) : describe(report)
        }
    }
}

/// One line of a migrate report, for a fleet's.
func describeBriefly(_ report: MigrateOperation.Report) -> String {
    let version = report.version.map(String.init) ?? "none"
    if report.steps.isEmpty && report.failed == nil { return "\(report.database): nothing to do, at version \(version)" }
    let verb = report.dryRun ? "would run" : "ran"
    return "\(report.database): \(verb) \(report.steps.count) migration(s)\(report.failed.map { ", failed at \($0.file)" } ?? ""), at version \(version)"
}

/// The text of a migrate report.
func describe(_ report: MigrateOperation.Report) -> String {
    if report.steps.isEmpty && report.failed == nil {
        return "Nothing to do: \(report.database) is at version \(report.version.map(String.init) ?? "none")."
    }
    var lines: [String] = []
    for step in report.steps {
        let arrow = step.direction == "up" ? "applied" : "rolled back"
        if report.dryRun {
            lines.append("would run \(step.direction) \(step.file):")
            lines.append((step.sql ?? "").trimmingWhitespace())
        } else {
            lines.append("\(arrow) \(step.file) (\(step.durationMs ?? 0) ms)")
        }
    }
    if let failed = report.failed {
        lines.append(
            "failed \(failed.direction) \(failed.file): nothing of it was \(failed.direction == "up" ? "applied" : "rolled back") (see the error)"
        )
    }
    if let snapshot = report.snapshot { lines.insert("snapshot taken first: \(snapshot)", at: 0) }
    if !report.dryRun { lines.append("\(report.database) is at version \(report.version.map(String.init) ?? "none").") }
    return lines.joined(separator: "\n")
}

struct MigrateStatus: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "List applied, pending, modified, missing and out-of-order migrations.",
        discussion: """
            With --exit-code, the exit status says what `migrate` would do: 0 nothing (up to \
            date), 1 apply pending migrations, 3 refuse: an applied file was modified or is \
            missing, a pending file is older than the newest applied one (unless \
            --allow-out-of-order), or another tool migrated the database and its history is not \
            adopted. Without it, status exits 0 whatever the state. --format json adds \
            pendingCount, modifiedCount, missingCount, outOfOrderCount and otherTool.

            Examples:
              dbtool migrate status --database /var/lib/myapp/db --migrations ./migrations
              dbtool migrate status --database db --migrations m --exit-code -q || echo $?
            """)

    @Flag(name: .long, help: "Exit 1 when migrations are pending, 3 when migrate would refuse (for CI and readiness probes).")
    var exitCode = false

    @Flag(name: .long, help: "With --exit-code: out-of-order migrations count as pending, not as drift.")
    var allowOutOfOrder = false

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database, output)
        let report = try maintenance.status()
        try printReport(report, output, text: describe)
        // An ExitCode ends the run with its status, printing nothing.
        let status = exitCode ? report.exitCode(allowOutOfOrder: allowOutOfOrder) : 0
        if status != 0 { throw ExitCode(status) }
    }
}

/// The text of a status report.
func describe(_ report: MigrationMaintenance.StatusReport) -> String {
    var lines: [String] = []
    if let other = report.otherTool {
        lines.append(
            "migrated by \(other.description) up to version \(other.version.map(String.init) ?? "none"); dbtool has no record yet: run `dbtool migrate adopt`"
        )
    }
    for entry in report.migrations {
        let file = entry.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "\(entry.version)_\(entry.name) (no file)"
        lines.append(
            "\(entry.status.rawValue.padded(to: 12)) \(file)\(entry.appliedAt.map { "  (\($0))" } ?? "")"
        )
    }
    var counts = ["\(report.pendingCount) pending"]
    if report.modifiedCount > 0 { counts.append("\(report.modifiedCount) modified") }
    if report.missingCount > 0 { counts.append("\(report.missingCount) missing") }
    if report.outOfOrderCount > 0 { counts.append("\(report.outOfOrderCount) out of order") }
    lines.append(counts.joined(separator: ", ") + ".")
    return lines.joined(separator: "\n")
}

struct MigrateRollback: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Run the down sections of the newest applied migrations, newest first.")

    @Option(name: .long, parsing: .unconditional, help: "How many migrations to roll back.", completion: .rollbackSteps)
    var steps = 1

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try migrations.path
        if steps < 1 { throw ValidationError("--steps must be 1 or more (got \(steps))") }
    }

    func run() throws {
        let maintenance = try migrations.maintenance(database, output)
        try runReporting(output, operation: { try maintenance.rollback(steps: steps) }, text: describe)
    }
}

struct MigrateRepair: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "repair", abstract: "Record the new checksum of an applied migration whose file was edited on purpose.")

    @Argument(help: "The version of the edited migration.", completion: .migrationVersions())
    var version: UInt64

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database, output)
        try runReporting(
            output, operation: { try maintenance.repair(version: version) },
            text: { record in
                "Recorded the new checksum of migration \(record.version)_\(record.name) (repaired at \(record.repairedAt ?? "?"))."
            })
    }
}

struct MigrateBaseline: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "baseline", abstract: "Mark an existing database as migrated up to VERSION, running nothing.")

    @Argument(help: "The newest version the database already has.", completion: .migrationVersions())
    var version: UInt64

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database, output)
        try runReporting(
            output, operation: { try maintenance.baseline(version: version) }, text: describeRecorded)
    }
}

struct MigrateAdopt: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract: "Record the history of goose, golang-migrate or dbmate as applied, running nothing.",
        discussion: """
            For a database another tool migrated: reads goose's goose_db_version, or the \
            schema_migrations table of golang-migrate or dbmate, and records each version it says \
            is applied in dbtool's table, with the checksum of its file (as `baseline` does). The \
            other tool's table is left as it was. Refused (65) when dbtool already has a history, \
            when golang-migrate marked its version dirty, or when an applied version has no file.

            Examples:
              dbtool migrate adopt --database /var/lib/myapp/db --migrations ./migrations
              dbtool migrate status --database /var/lib/myapp/db --migrations ./migrations
            """)

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database, output)
        try runReporting(
            output, operation: maintenance.adopt, text: describeRecorded)
    }
}

/// The text of `baseline` and `adopt`: the records written without running anything.
func describeRecorded(_ records: [MigrationsTable.Record]) -> String {
    let newest = records.last.map { String($0.version) } ?? "none"
    return "Recorded \(records.count) migration(s) up to \(newest) as applied, without running them."
}

struct MigrateNew: ReadsMigrations {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Create the next migration file, with up and down markers.")

    @Argument(help: "The name, such as add_users.")
    var name: String

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var output: OutputOptions

    struct Report: Codable { var file: String }

    func run() throws {
        try runReporting(
            output, operation: { Report(file: try MigrationMaintenance.newFile(in: try migrations.path, name: name)) },
            text: { "Created \($0.file)." })
    }
}

struct MigrateRestoreSnapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore-snapshot",
        abstract: "Put back the snapshot taken by `migrate --snapshot` (the way back without down sections).")

    @Option(
        name: .long, help: "The snapshot to restore (default: the latest taken before migrating).", completion: .migrationSnapshots,
        transform: nonEmptyPath)
    var snapshot: String?

    /// Accepted as by every `migrate` subcommand; a snapshot needs no migration file.
    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let database = try database.handle
        let path = snapshot
        try runReporting(
            output, operation: { try MigrationSnapshots.restore(database, snapshot: path) },
            text: { report in
                "Restored \(report.snapshot) into \(report.database): it is at version \(report.version.map(String.init) ?? "none")."
            })
    }
}

extension MigrationTarget: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
