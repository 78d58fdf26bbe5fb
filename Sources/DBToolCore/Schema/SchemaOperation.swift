import DatabaseKit
import FoundationEssentials

/// `dbtool schema`: reads the schema of an existing database, without writing.
///
/// The connection is not opened with SQLITE_OPEN_READONLY: a read-only
/// connection to a WAL database creates `-wal` and `-shm` files that it may
/// not delete on close, which would leave the directory changed. A read
/// access (`query_only`) on a read-write connection writes nothing, and the
/// last connection to close removes those files, as they were.
public struct SchemaOperation: Sendable {
    /// The database.
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// The tables to report; all when empty.
    public var tableNames: [String] = []

    /// An operation on the database at `location`.
    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// - throws: ``DBToolError``: 66 when there is no database, 65 for a
    ///   table that does not exist or a file that is not a database.
    public func run() throws -> SchemaReport {
        let dbQueue = try database.openForReading(readonly: false)
        return try database.reportingErrors {
            try dbQueue.read { db in
                try SchemaReport(db, path: database.location.filePath, tableNames: tableNames)
            }
        }
    }

    /// The SQL of the schema, one statement per line (`Database.schemaSQL()`).
    public func runSQL() throws -> String {
        let dbQueue = try database.openForReading(readonly: false)
        return try database.reportingErrors {
            try dbQueue.read { db in try db.schemaSQL() }
        }
    }
}

extension SchemaReport {
    /// The report for people: one block per table, with its columns,
    /// indexes and foreign keys, then the views and triggers.
    public var text: String {
        var lines: [String] = []
        for table in tables {
            var header = "table \(table.name)"
            if table.withoutRowID { header += " (WITHOUT ROWID)" }
            if let module = table.virtualModule { header += " (virtual, \(module))" }
            lines.append(header)
            let nameWidth = table.columns.map(\.name.count).max() ?? 0
            let typeWidth = table.columns.map(\.type.count).max() ?? 0
            for column in table.columns {
                var line = "  " + column.name.padded(to: nameWidth)
                line += "  " + column.type.padded(to: typeWidth)
                var attributes: [String] = []
                if column.primaryKeyIndex > 0 {
                    attributes.append(table.primaryKey.count > 1 ? "PRIMARY KEY (\(column.primaryKeyIndex))" : "PRIMARY KEY")
                }
                if column.notNull { attributes.append("NOT NULL") }
                if let defaultValue = column.defaultValue { attributes.append("DEFAULT \(defaultValue)") }
                if !attributes.isEmpty { line += "  " + attributes.joined(separator: " ") }
                lines.append(line.trimmingTrailingSpaces())
            }
            for index in table.indexes {
                let kind = index.unique ? "unique index" : "index"
                let partial = index.partial ? " (partial)" : ""
                lines.append("  \(kind) \(index.name) on (\(index.columns.joined(separator: ", ")))\(partial)")
            }
            for key in table.foreignKeys {
                // No destination columns: the referenced table does not exist.
                let destination =
                    key.destinationColumns.isEmpty
                    ? key.table : "\(key.table)(\(key.destinationColumns.joined(separator: ", ")))"
                lines.append(
                    "  foreign key (\(key.columns.joined(separator: ", "))) references \(destination) on delete \(key.onDelete.lowercased()) on update \(key.onUpdate.lowercased())"
                )
            }
        }
        for view in views { lines.append("view \(view)") }
        for trigger in triggers { lines.append("trigger \(trigger.name) on \(trigger.table)") }
        if lines.isEmpty { lines.append("no tables in \(database)") }
        // Names come from the database: no control character reaches the terminal.
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }
}
