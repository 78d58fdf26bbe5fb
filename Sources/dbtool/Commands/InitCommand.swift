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

    @Argument(help: "The database directory.", completion: .directory, transform: nonEmptyPath)
    var directory: String

    @Option(name: .long, help: "The name of the database file.", transform: plainFileName)
    var fileName: String = "db.sqlite"

    @Option(name: .long, help: "The journal mode of a new database.")
    var journalMode: InitOperation.JournalMode = .wal

    @Option(name: .long, help: ArgumentHelp("The permissions of created directories, in octal.", valueName: "octal"))
    var mode: String = "0700"

    @Option(
        name: .long, help: ArgumentHelp("Apply the migrations of this directory right after.", valueName: "dir"), completion: .directory,
        transform: nonEmptyPath)
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
        operation.migrationsPath = migrations
        operation.notice = output.notice
        try runReporting(
            output,
            operation: operation.run,
            text: { report in
                var text =
                    report.created
                    ? "Initialized \(report.database) (journal mode \(report.journalMode))."
                    : "Already initialized: \(report.database) (journal mode \(report.journalMode)); nothing changed."
                if let migrate = report.migrate { text += "\n" + describe(migrate) }
                return text
            })
    }
}

extension InitOperation.JournalMode: ExpressibleByArgument {}
