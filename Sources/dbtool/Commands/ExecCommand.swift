import ArgumentParser
import DBToolCore
import Foundation

struct ExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run SQL, all or nothing, and print the rows.",
        discussion: """
            The SQL comes from the argument, --file, or stdin. Arguments are bound, never spliced: \
            --arg VALUE fills `?` parameters in order, --arg NAME=VALUE fills :NAME. A value that reads \
            as an integer or a real is bound as one; NULL is NULL; anything else is text.

            All statements run in one transaction: on error, the failing statement and SQLite's \
            message are printed, nothing is committed, and the exit status is 65.

            Formats: table (the default on a terminal; NULL is NULL, an empty text ''), csv (the \
            default otherwise; NULL is an empty field, an empty text ""), tsv (NULL is \\N), json (one \
            array of objects), jsonl (one object per line). Blobs are hex in text formats, base64 in JSON.

            Examples:
              dbtool exec --database db "SELECT * FROM player WHERE score > ?" --arg 100
              dbtool exec --database db --file migrate.sql
              echo "SELECT 1" | dbtool exec --database db --format json
            """)

    @Argument(help: "The SQL to run (default: --file, or stdin).")
    var sql: String?

    @Option(name: .long, help: "Read the SQL from this file.", completion: .file())
    var file: String?

    @Option(name: .customLong("arg"), help: ArgumentHelp("A bound argument: VALUE, or NAME=VALUE. Repeat as needed.", valueName: "value"))
    var arguments: [String] = []

    @Flag(name: .long, help: "Run each statement on its own instead of in one transaction.")
    var noTransaction = false

    @Flag(name: .long, help: "Open the database read-only.")
    var readonly = false

    @Option(name: .long, help: "table, csv, tsv, json or jsonl.")
    var format: RowFormat?

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if sql != nil && file != nil {
            throw ValidationError("give the SQL as an argument or with --file, not both")
        }
    }

    func run() throws {
        let text: String
        do {
            if let sql {
                text = sql
            } else if let file {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                    throw DBToolError(.noInput, "no SQL file at \(file)")
                }
                guard !isDirectory.boolValue else {
                    throw DBToolError(.noInput, "\(file) is a directory, not a SQL file", hint: "Check --file.")
                }
                guard let data = FileManager.default.contents(atPath: file), let decoded = String(data: data, encoding: .utf8) else {
                    throw DBToolError(.dataError, "\(file) is not readable UTF-8 text")
                }
                text = decoded
            } else {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            }
        } catch {
            fail(error)
        }
        var operation = ExecOperation(location: database.location, sql: text)
        operation.arguments = ExecArgumentParser.parse(arguments)
        operation.usesTransaction = !noTransaction
        operation.readonly = readonly
        operation.timeout = database.timeout
        operation.format = format ?? (isTerminal(STDOUT_FILENO) ? .table : .csv)
        do {
            try operation.run { FileHandle.standardOutput.write(Data($0.utf8)) }
        } catch {
            fail(error)
        }
    }
}

extension RowFormat: ExpressibleByArgument {}
