import ArgumentParser
import DBToolCore
import DatabaseKit

/// The dbtool command suite.
struct DBTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbtool",
        abstract: "Maintain SQLite databases: init, migrate, exec, checkpoint, snapshot, backup, restore, replicate, check, vacuum, stats.",
        discussion: """
            The database is named with --database PATH (or DBTOOL_DATABASE): the directory \
            created by `dbtool init` (its file is db.sqlite unless --file-name), or a database file.

            Examples:
              dbtool init /var/lib/myapp/db --migrations ./migrations
              dbtool migrate --database /var/lib/myapp/db --migrations ./migrations
              dbtool exec --database /var/lib/myapp/db "SELECT COUNT(*) FROM book"
              dbtool checkpoint --database /var/lib/myapp/db --mode truncate
              dbtool snapshot --database /var/lib/myapp/db --output-dir /backups --keep 7
              dbtool backup --database /var/lib/myapp/db --output-dir /backups --keep 14
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst /var/lib/myapp/db
              dbtool schema --database /var/lib/myapp/db --format json
              dbtool check --database /var/lib/myapp/db --metrics-file /var/lib/dbtool.prom

            \(ExitStatus.documentation)
            """,
        version: "dbtool \(DBToolVersion.current) (SQLite \(Database.sqliteLibVersion))",
        subcommands: [
            InitCommand.self, MigrateCommand.self, ExecCommand.self, CheckpointCommand.self, SnapshotCommand.self,
            BackupCommand.self, RestoreCommand.self, ReplicateCommand.self, SchemaCommand.self, CheckCommand.self,
            VacuumCommand.self, OptimizeCommand.self, StatsCommand.self,
        ])
}
