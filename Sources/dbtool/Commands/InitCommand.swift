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

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard mode.allSatisfy({ ("0"..."7").contains($0) }), mode_t(mode, radix: 8) != nil else {
            throw ValidationError("--mode must be octal permissions such as 0700 (got \(mode))")
        }
    }

    func run() throws {
        var operation = InitOperation(directory: directory)
        operation.fileName = fileName
        operation.journalMode = journalMode
        operation.directoryMode = mode_t(mode, radix: 8)!
        runReporting(output, operation: operation.run) { report in
            report.created
                ? "Initialized \(report.database) (journal mode \(report.journalMode))."
                : "Already initialized: \(report.database) (journal mode \(report.journalMode)); nothing changed."
        }
    }
}

extension InitOperation.JournalMode: ExpressibleByArgument {}
