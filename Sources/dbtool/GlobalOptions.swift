import ArgumentParser
import DBToolCore
import DatabaseKit
import FoundationEssentials

/// The configuration files read in this run, by path.
private let loadedConfigurations = Locked<[String: LitestreamConfig]>([:])

/// Where the database is, and how long to wait for it.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The database directory created by `dbtool init`, or a database file (default: $DBTOOL_DATABASE); repeated, or a quoted glob, where the command runs over several.",
            valueName: "path"),
        completion: .databases, transform: nonEmptyPath)
    var database: [String] = []

    @Option(name: .long, help: "The name of the database file inside its directory.", transform: plainFileName)
    var fileName: String = DatabaseLocation.defaultFileName

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "How long to wait for a locked database before exiting with 75 (0 to \(Int(DatabaseLocation.maximumTimeout)); default 5).",
            valueName: "seconds"))
    var timeout: Double = DatabaseHandle.defaultTimeout

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A Litestream configuration file, such as /etc/litestream.yml: its dbs are the databases (its dbtool: section, their metrics file and retention).",
            valueName: "file"),
        completion: .file(), transform: nonEmptyPath)
    var config: String?

    func validate() throws {
        try validateTimeout(timeout)
        if config != nil && !database.isEmpty {
            throw ValidationError("--config and --database exclude each other: the configuration file names the databases")
        }
        if config == nil && patterns.isEmpty {
            throw ValidationError("no database: pass --database PATH (or --config FILE) or set DBTOOL_DATABASE")
        }
    }

    /// The paths and globs given, or $DBTOOL_DATABASE.
    private var patterns: [String] {
        if !database.isEmpty { return database }
        return RunEnvironment.value("DBTOOL_DATABASE").map { [$0] } ?? []
    }

    /// The configuration file named by `--config`, read once per run; its
    /// warnings go to stderr the first time.
    var configuration: LitestreamConfig? {
        get throws {
            guard let config else { return nil }
            return try loadedConfigurations.withLock { loaded in
                if let known = loaded[config] { return known }
                let read = try LitestreamConfig.read(config)
                for warning in read.warnings { StandardStreams.writeError("dbtool: warning: \(warning)\n") }
                loaded[config] = read
                return read
            }
        }
    }

    /// The paths of the databases, from `--config` or the patterns.
    private var names: [String] {
        get throws { try configuration.map { $0.databases.map(\.path) } ?? patterns }
    }

    /// True when several databases are named (or a glob, or a configuration file).
    var namesFleet: Bool { config != nil || Fleet.namesSeveral(patterns) }

    /// The database these options name, with their wait.
    ///
    /// - throws: 64 when they name several (the command works on one).
    var handle: DatabaseHandle {
        get throws {
            let names = try self.names
            if config != nil ? names.count > 1 : namesFleet {
                throw DBToolError(
                    .usage,
                    "this command works on one database, and \(config != nil ? "--config" : "--database") names several: \(names.joined(separator: " "))",
                    hint: "init, migrate, backup, snapshot, checkpoint, check, optimize and stats run over several.")
            }
            return DatabaseHandle(location: try DatabaseLocation(path: names.first ?? "", fileName: fileName), timeout: timeout)
        }
    }

    /// Every database these options name, globs expanded.
    var handles: [DatabaseHandle] {
        get throws {
            guard let configuration = try configuration else {
                return try Fleet.databases(matching: patterns, fileName: fileName, timeout: timeout)
            }
            // Listed, not matched: a database that is missing is reported as such.
            var handles = try configuration.databases.map {
                DatabaseHandle(location: try DatabaseLocation(path: $0.path, fileName: fileName), timeout: timeout)
            }
            let gate = WriteGate(protecting: handles.map(\.location))
            for index in handles.indices { handles[index].gate = gate }
            return handles
        }
    }
}

/// The format of a command's report.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json

    /// Parses `--format`; an archive format name gets the option it belongs
    /// to (`--format` named the archive format of `backup` before 0.4).
    static func parse(_ argument: String) throws -> ReportFormat {
        if let format = ReportFormat(rawValue: argument) { return format }
        if let archive = ArchiveFormat(rawValue: argument) {
            throw ValidationError(
                "--format is the report format (text or json); the archive format is --archive-format \(archive.rawValue)")
        }
        throw ValidationError("use text or json")
    }
}

/// How a command prints its report: the same two options on every command.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .long, help: "text for people, json for machines (exactly one JSON document on stdout).",
        completion: .list(ReportFormat.allValueStrings), transform: ReportFormat.parse)
    var format: ReportFormat = .text

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// Prints a notice on stderr, unless --quiet.
    var notice: @Sendable (String) -> Void {
        if quiet { return { _ in } }
        return printNotice
    }
}

/// The `transform:` of every path argument and option: an empty path (which
/// would mean the working directory) is a usage error, 64.
@Sendable func nonEmptyPath(_ value: String) throws -> String {
    if value.isEmpty { throw ValidationError("an empty path is not a path; write . for the working directory") }
    return value
}

/// The `transform:` of `--file-name`: one file name, no directory.
@Sendable func plainFileName(_ value: String) throws -> String {
    do {
        try LocalPath.checkFileName(value, what: "--file-name")
    } catch let error as DBToolError {
        throw ValidationError(error.message)
    }
    return value
}

/// Checks a --timeout: NaN, negative, infinite or beyond a day exits 64.
func validateTimeout(_ timeout: Double) throws {
    // NaN fails both comparisons.
    guard timeout >= 0, timeout <= DatabaseLocation.maximumTimeout else {
        throw ValidationError(
            "--timeout must be a number of seconds from 0 to \(Int(DatabaseLocation.maximumTimeout)) (one day); got \(timeout)")
    }
}

/// Prints one notice line on stderr.
@Sendable func printNotice(_ text: String) {
    StandardStreams.writeError("dbtool: notice: \(text)\n")
}
