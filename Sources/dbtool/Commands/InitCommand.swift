import ArgumentParser
import DBToolCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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

    @Argument(help: "The database directory (several: each is initialized, --jobs at a time).", completion: .directory, transform: nonEmptyPath)
    var directories: [String]

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

    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try directoryMode
        if directories.isEmpty { throw ValidationError("give the database directory: dbtool init DIR") }
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
        let (fileName, journalMode, directoryMode, migrations, notice) = (self.fileName, self.journalMode, try self.directoryMode, self.migrations, output.notice)
        let directories = self.directories
        let initialize = { @Sendable (directory: String) throws -> InitOperation.Report in
            var operation = InitOperation(directory: directory)
            operation.fileName = fileName
            operation.journalMode = journalMode
            operation.directoryMode = directoryMode
            operation.migrationsPath = migrations
            operation.notice = notice
            return try operation.run()
        }
        guard directories.count > 1 else {
            return try runReporting(output, operation: { try initialize(directories[0]) }, text: summary)
        }
        try runFleet("init", names: directories, fleet, output, text: summary) { index in try initialize(directories[index]) }
    }

    private func summary(_ report: InitOperation.Report) -> String {
        var text =
            report.created
            ? "Initialized \(report.database) (journal mode \(report.journalMode))."
            : "Already initialized: \(report.database) (journal mode \(report.journalMode)); nothing changed."
        if let migrate = report.migrate { text += "\n" + describe(migrate) }
        return text
    }
}

extension InitOperation.JournalMode: ExpressibleByArgument {}
