import ArgumentParser
import DBToolCore

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the tables, columns, indexes and foreign keys of the database.",
        discussion: """
            Read-only: nothing is written, and the directory is left as it was. Tables are listed by \
            name; --format json gives one document with every table's columns (name, type, \
            notNull, defaultValue, primaryKeyIndex), primaryKey, indexes and foreignKeys, for \
            scripts that compare schemas. --sql prints the CREATE statements instead, each ending with a semicolon, \
            the same text for the same schema. A --table that does not exist exits 65 and \
            lists the tables.

            Examples:
              dbtool schema --database /var/lib/myapp/db
              dbtool schema --database /var/lib/myapp/db --table book --format json
              dbtool schema --database /var/lib/myapp/db --sql > schema.sql
            """)

    @Option(name: .long, help: "Only this table (repeatable).")
    var table: [String] = []

    @Flag(name: .long, help: "Print the CREATE statements instead of the summary.")
    var sql = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if sql && output.format == .json {
            throw ValidationError("--sql prints SQL text: it does not combine with --format json")
        }
        if sql && !table.isEmpty {
            throw ValidationError("--sql prints the whole schema: it does not combine with --table")
        }
    }

    func run() throws {
        var operation = SchemaOperation(database: try database.handle)
        operation.tableNames = table
        if sql {
            // print adds the final newline the SQL text already ends with.
            let readSQL = { SQLText(text: try operation.runSQL()) }
            try runReporting(output, operation: readSQL) { $0.text.hasSuffix("\n") ? String($0.text.dropLast()) : $0.text }
        } else {
            try runReporting(output, operation: operation.run) { $0.text }
        }
    }
}

/// The schema SQL, as a report whose text is printed as it is.
private struct SQLText: Encodable {
    var text: String
}
