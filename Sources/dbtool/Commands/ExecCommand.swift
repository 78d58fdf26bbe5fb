import ArgumentParser
import DBToolCore
import FoundationEssentials

struct ExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run SQL, all or nothing, and print the rows.",
        discussion: """
            The SQL comes from the argument, --file, or stdin. Arguments are bound, never spliced: \
            --arg VALUE fills `?` parameters in order, --arg NAME=VALUE fills :NAME. A value is an \
            integer or a real only when it reads back as the same text (42, -7, 1.5; 0171 and 1.50 \
            stay text); NULL is NULL; anything else is text. A prefix gives the exact type: \
            text:0171, text:NULL, int:5, real:1e3, blob:CAFE (hex), null:.

            All statements run in one transaction: on error, the failing statement and SQLite's \
            message are printed, nothing is committed, and the exit status is 65. A script that \
            begins its own transactions (BEGIN or SAVEPOINT, as `sqlite3 db .dump` writes) runs as \
            written, and a transaction it leaves open is rolled back (65).

            Formats: table (the default on a terminal; NULL is NULL, an empty text '', newlines and \
            tabs escaped as \\n and \\t), csv (the default otherwise; NULL is an empty field, an \
            empty text ""), tsv (NULL is \\N), json (an array of objects per statement that returns \
            rows, as `sqlite3 -json`; one array when only one does, [] when none does), jsonl (one \
            object per line). Blobs are hex in text formats, base64 in JSON.

            Examples:
              dbtool exec --database db "SELECT * FROM book WHERE author_id = ?" --arg 1
              dbtool exec --database db "SELECT * FROM place WHERE zip = ?" --arg text:0171
              sqlite3 old.db .dump > dump.sql && dbtool exec --database db --file dump.sql
              echo "SELECT 1" | dbtool exec --database db --format json
            """)

    @Argument(help: "The SQL to run (default: --file, or stdin).")
    var sql: String?

    @Option(name: .long, help: "Read the SQL from this file.", completion: .file(), transform: nonEmptyPath)
    var file: String?

    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
                "A bound argument: VALUE, or NAME=VALUE; VALUE may be typed: text:, int:, real:, blob:HEX, null:. Repeat as needed.",
                valueName: "value"))
    var arguments: [String] = []

    @Flag(name: .long, help: "Run each statement on its own instead of in one transaction.")
    var noTransaction = false

    @Flag(name: .long, help: "Open the database read-only.")
    var readonly = false

    @Option(name: .long, help: "table, csv, tsv, json or jsonl.")
    var format: RowFormat?

    @Flag(name: .shortAndLong, help: "Print nothing but errors (the statements still run).")
    var quiet = false

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if sql != nil && file != nil {
            throw ValidationError("give the SQL as an argument or with --file, not both")
        }
    }

    func run() throws {
        let source: SQLSource = sql.map { .text($0) } ?? file.map { .file($0) } ?? .standardInput
        var operation = ExecOperation(database: try database.handle, sql: try source.read())
        operation.arguments = try ExecArgumentParser.parse(arguments)
        operation.usesTransaction = !noTransaction
        operation.readonly = readonly
        operation.format = format ?? (Terminal.isAttached(1) ? .table : .csv)
        let quiet = quiet
        try operation.run { text in if !quiet { try StandardStreams.write(text) } }
    }
}

extension RowFormat: ExpressibleByArgument {}
