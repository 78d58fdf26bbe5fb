import ArgumentParser
import DBToolCore
import Foundation

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a database directory and its database (idempotent).",
        discussion: """
            Creates DIR (and missing parents, mode 0700 unless --mode) and DIR/db.sqlite in WAL mode. \
            On an initialized directory it changes nothing and exits 0. It refuses, changing nothing, \
            when DIR is a file (73) or holds a db.sqlite that is not a database (65).

            Examples:
              dbtool init /var/lib/myapp/db
              dbtool init ./data --journal-mode delete --format json
            """)

    @Argument(help: "The database directory.", completion: .directory)
    var directory: String

    @Option(name: .long, help: "The name of the database file.")
    var fileName: String = "db.sqlite"

    @Option(name: .long, help: "The journal mode of a new database.")
    var journalMode: InitOperation.JournalMode = .wal

    @Option(name: .long, help: ArgumentHelp("The permissions of created directories, in octal.", valueName: "octal"))
    var mode: String = "0700"

    @Option(
        name: .long, help: ArgumentHelp("Apply the migrations of this directory right after.", valueName: "dir"), completion: .directory)
    var migrations: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try directoryMode
    }

    /// --mode as permission bits.
    private var directoryMode: mode_t {
        get throws {
            guard mode.allSatisfy({ ("0"..."7").contains($0) }), let bits = mode_t(mode, radix: 8), bits <= 0o7777 else {
                throw ValidationError("--mode must be octal permissions from 0000 to 7777, such as 0700 (got \(mode))")
            }
            return bits
        }
    }

    func run() throws {
        var operation = InitOperation(directory: directory)
        operation.fileName = fileName
        operation.journalMode = journalMode
        operation.directoryMode = try directoryMode
        let migrationsPath = migrations
        try runReporting(
            output,
            operation: { () throws -> InitReport in
                // Checked first: a bad migrations directory must not leave a new database behind.
                if let migrationsPath { try MigrationDirectory(path: migrationsPath).requireMigrations() }
                let initialized = try operation.run()
                var report = InitReport(initialized: initialized, migrate: nil)
                if let migrationsPath {
                    var migrate = MigrateOperation(location: DatabaseLocation(path: initialized.database), migrationsPath: migrationsPath)
                    migrate.notice = output.notice
                    do {
                        report.migrate = try migrate.run()
                    } catch let failure as MigrationFailure {
                        throw InitFailure(report: InitReport(initialized: initialized, migrate: failure.report), error: failure.error)
                    }
                }
                return report
            },
            text: { report in
                var text =
                    report.initialized.created
                    ? "Initialized \(report.initialized.database) (journal mode \(report.initialized.journalMode))."
                    : "Already initialized: \(report.initialized.database) (journal mode \(report.initialized.journalMode)); nothing changed."
                if let migrate = report.migrate { text += "\n" + describe(migrate) }
                return text
            })
    }
}

extension InitOperation.JournalMode: ExpressibleByArgument {}

/// Init succeeded, then a migration failed.
struct InitFailure: PartialFailure {
    let report: InitReport
    let error: DBToolError
    var partialReport: any Encodable { report }
}

/// The report of `init`, with the migrations applied after it, if any.
struct InitReport: Encodable {
    var initialized: InitOperation.Report
    var migrate: MigrateOperation.Report?

    func encode(to encoder: any Encoder) throws {
        // The init report's keys, plus "migrate" when migrations ran.
        try initialized.encode(to: encoder)
        if let migrate {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(migrate, forKey: .migrate)
        }
    }

    enum CodingKeys: String, CodingKey { case migrate }
}
