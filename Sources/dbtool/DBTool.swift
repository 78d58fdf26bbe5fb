import ArgumentParser
import DatabaseKit

/// The dbtool command suite. Subcommands (init, migrate, exec, checkpoint,
/// snapshot, backup) arrive with their issues; for now it prints its help and
/// its version.
@main
struct DBTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbtool",
        abstract: "Maintain SQLite databases: init, migrate, exec, checkpoint, snapshot, backup.",
        version: "dbtool \(DBToolVersion.current) (SQLite \(Database.sqliteLibVersion))")
}

/// The version of the tool.
enum DBToolVersion {
    static let current = "0.1.0"
}
