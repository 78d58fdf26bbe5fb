import ArgumentParser
import DBToolCore
import Foundation

/// Where the migration files are.
struct MigrationsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The directory of VERSION_name.sql files (default: $DBTOOL_MIGRATIONS).", valueName: "dir"),
        completion: .directory)
    var migrations: String?

    func validate() throws {
        _ = try path
    }

    /// The directory: --migrations, or $DBTOOL_MIGRATIONS.
    var path: String {
        get throws {
            let path = migrations ?? ProcessInfo.processInfo.environment["DBTOOL_MIGRATIONS"].flatMap { $0.isEmpty ? nil : $0 }
            guard let path else { throw ValidationError("no migrations directory: pass --migrations DIR or set DBTOOL_MIGRATIONS") }
            return path
        }
    }

    /// The maintenance operations on this directory and database.
    func maintenance(_ database: DatabaseOptions) throws -> MigrationMaintenance {
        var maintenance = MigrationMaintenance(location: database.location, migrationsPath: try path)
        maintenance.timeout = database.timeout
        return maintenance
    }
}

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply SQL-file migrations, each exactly once, all or nothing.",
        discussion: """
            Files are VERSION_name.sql, ordered by VERSION (digits), with `-- migrate:up` and \
            optionally `-- migrate:down` sections. Each migration runs in its own IMMEDIATE \
            transaction with its record; foreign keys are disabled during it and fully checked \
            before it commits. One run at a time per database (a lock file in its directory): a \
            run that waited reports that nothing was left to do. A failing migration rolls back \
            entirely, names the file, line and statement, and exits 65.

            Before changing anything, migrate refuses (65) when an applied file was modified or is \
            missing, or when a pending file is older than the newest applied one (unless \
            --allow-out-of-order).

            Examples:
              dbtool migrate --database /var/lib/myapp/db --migrations ./migrations
              dbtool migrate --database db --migrations m --to 3
              dbtool migrate --database db --migrations m --dry-run
              dbtool migrate status --database db --migrations m --exit-code
            """,
        subcommands: [
            MigrateUp.self, MigrateStatus.self, MigrateRollback.self, MigrateRepair.self, MigrateBaseline.self, MigrateNew.self,
            MigrateRestoreSnapshot.self,
        ],
        defaultSubcommand: MigrateUp.self)
}

struct MigrateUp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up", abstract: "Apply pending migrations (the default), or move to --to VERSION.")

    @Option(name: .long, help: ArgumentHelp("Migrate up or down to this version (0: none).", valueName: "version"))
    var to: UInt64?

    @Flag(name: .long, help: "Print the migrations and SQL that would run; change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Apply pending migrations older than the newest applied one.")
    var allowOutOfOrder = false

    @Flag(
        name: .long,
        help: "Snapshot the database before migrating, for `migrate restore-snapshot` (default when DBTOOL_MIGRATE_SNAPSHOT=1).")
    var snapshot = false

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = MigrateOperation(location: database.location, migrationsPath: try migrations.path)
        operation.timeout = database.timeout
        operation.target = to
        operation.dryRun = dryRun
        operation.allowOutOfOrder = allowOutOfOrder
        operation.takesSnapshot = snapshot || ProcessInfo.processInfo.environment["DBTOOL_MIGRATE_SNAPSHOT"] == "1"
        runReporting(output, operation: operation.run, text: describe)
    }
}

/// The text of a migrate report.
func describe(_ report: MigrateOperation.Report) -> String {
    if report.steps.isEmpty {
        return "Nothing to do: \(report.database) is at version \(report.version.map(String.init) ?? "none")."
    }
    var lines: [String] = []
    for step in report.steps {
        let arrow = step.direction == "up" ? "applied" : "rolled back"
        if report.dryRun {
            lines.append("would run \(step.direction) \(step.file):")
            lines.append((step.sql ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            lines.append("\(arrow) \(step.file) (\(step.durationMs ?? 0) ms)")
        }
    }
    if let snapshot = report.snapshot { lines.insert("snapshot taken first: \(snapshot)", at: 0) }
    if !report.dryRun { lines.append("\(report.database) is at version \(report.version.map(String.init) ?? "none").") }
    return lines.joined(separator: "\n")
}

struct MigrateStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "List applied, pending, modified, missing and out-of-order migrations.")

    @Flag(name: .long, help: "Exit 1 when migrations are pending (for CI and readiness probes).")
    var exitCode = false

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database)
        let report: MigrationMaintenance.StatusReport
        do { report = try maintenance.status() } catch { fail(error) }
        if !output.quiet {
            switch output.format {
            case .json: print(jsonDocument(report))
            case .text:
                for entry in report.migrations {
                    print(
                        "\(entry.status.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(entry.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "\(entry.version)_\(entry.name) (no file)")\(entry.appliedAt.map { "  (\($0))" } ?? "")"
                    )
                }
                print("\(report.pendingCount) pending.")
            }
        }
        Foundation.exit(exitCode && report.pendingCount > 0 ? 1 : 0)
    }
}

struct MigrateRollback: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Run the down sections of the newest applied migrations, newest first.")

    @Option(name: .long, help: "How many migrations to roll back.")
    var steps = 1

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if steps < 1 { throw ValidationError("--steps must be 1 or more (got \(steps))") }
    }

    func run() throws {
        let maintenance = try migrations.maintenance(database)
        runReporting(output, operation: { try maintenance.rollback(steps: steps) }, text: describe)
    }
}

struct MigrateRepair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair", abstract: "Record the new checksum of an applied migration whose file was edited on purpose.")

    @Argument(help: "The version of the edited migration.")
    var version: UInt64

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database)
        runReporting(
            output, operation: { try maintenance.repair(version: version) },
            text: { record in
                "Recorded the new checksum of migration \(record.version)_\(record.name) (repaired at \(record.repairedAt ?? "?"))."
            })
    }
}

struct MigrateBaseline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline", abstract: "Mark an existing database as migrated up to VERSION, running nothing.")

    @Argument(help: "The newest version the database already has.")
    var version: UInt64

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let maintenance = try migrations.maintenance(database)
        runReporting(
            output, operation: { try maintenance.baseline(version: version) },
            text: { records in
                "Recorded \(records.count) migration(s) up to \(version) as applied, without running them."
            })
    }
}

struct MigrateNew: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Create the next migration file, with up and down markers.")

    @Argument(help: "The name, such as add_users.")
    var name: String

    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var output: OutputOptions

    struct Report: Codable { var file: String }

    func run() throws {
        runReporting(
            output, operation: { Report(file: try MigrationMaintenance.newFile(in: try migrations.path, name: name)) },
            text: { "Created \($0.file)." })
    }
}

struct MigrateRestoreSnapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore-snapshot",
        abstract: "Put back the snapshot taken by `migrate --snapshot` (the way back without down sections).")

    @Option(name: .long, help: "The snapshot to restore (default: the latest taken before migrating).", completion: .file())
    var snapshot: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let location = database.location
        let timeout = database.timeout
        let path = snapshot
        runReporting(
            output, operation: { try MigrationSnapshots.restore(location, snapshot: path, timeout: timeout) },
            text: { report in
                "Restored \(report.snapshot) into \(report.database): it is at version \(report.version.map(String.init) ?? "none")."
            })
    }
}
