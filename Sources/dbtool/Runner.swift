import ArgumentParser
import DBToolCore
import FoundationEssentials

/// Runs one command line: parses it, runs the command, and turns whatever
/// it throws into the documented exit status. This is the one place where
/// an error becomes output: a ``DBToolError`` (or any error that says which
/// one it is) prints `dbtool: error: ...` on stderr and exits with its
/// status; ArgumentParser's own errors (usage, help, version) are printed by
/// ArgumentParser. Nothing thrown ever reaches ArgumentParser's generic
/// "Error: ... (exit 1)".
enum CommandRunner {
    /// The error to exit with: nil for success, an `ExitCode` once the
    /// error was printed, or ArgumentParser's own error for it to print.
    static func run(_ arguments: [String]) -> (any Error)? {
        let json = requestsJSON(arguments)
        if let suggestion = SubcommandSuggestion.message(for: arguments) ?? OptionSuggestion.message(for: arguments) {
            let error = DBToolError(.usage, suggestion, hint: "See 'dbtool --help' for the commands, and 'dbtool COMMAND --help' for their options.")
            if json { try? StandardStreams.write(jsonDocument(ErrorDocument(error: error.summary)) + "\n") }
            try? StandardStreams.flush()
            return failed(error)
        }
        var command: any ParsableCommand
        do {
            command = try DBTool.parseAsRoot(arguments)
        } catch {
            if let glob = GlobSuggestion.message(for: arguments) {
                let error = DBToolError(.usage, glob, hint: GlobSuggestion.hint)
                if json { try? StandardStreams.write(jsonDocument(ErrorDocument(error: error.summary)) + "\n") }
                try? StandardStreams.flush()
                return failed(error)
            }
            if json {
                reportJSON(usageError: error)
                try? StandardStreams.flush()
            }
            return error
        }
        let outcome: (any Error)?
        var reported: DBToolError?
        do {
            try command.run()
            outcome = nil
        } catch let code as ExitCode {
            // A status that is not a failure to report (`migrate status --exit-code`).
            outcome = code
        } catch let error where error is any ReportableError || error is any PartialFailure || DBTool.exitCode(for: error) == .failure {
            // dbtool's errors, and any other (70): printed here.
            reported = toolError(error)
            outcome = failed(error)
        } catch {
            // ArgumentParser's own, thrown from `run()` (help, a ValidationError
            // of a check that needed the disk): it prints them.
            if json { reportJSON(usageError: error) }
            outcome = error
        }
        if json, let reported, !StandardStreams.wroteOutput {
            try? StandardStreams.write(jsonDocument(ErrorDocument(error: reported.summary)) + "\n")
        }
        do {
            try StandardStreams.flush()
        } catch {
            return outcome ?? failed(error)
        }
        return outcome
    }

    /// Whether the command line asks for `--format json` (before a `--`):
    /// then a failure prints one JSON document on stdout too, even one
    /// found while parsing.
    static func requestsJSON(_ arguments: [String]) -> Bool {
        let options = arguments.prefix { $0 != "--" }
        guard !options.contains("--quiet") else { return false }  // nothing on stdout, even then
        return options.contains("--format=json") || zip(options, options.dropFirst()).contains { $0 == "--format" && $1 == "json" }
    }

    /// Prints the JSON document of an error ArgumentParser reports (a usage
    /// error: status 64), unless it is help or a version, which succeed.
    private static func reportJSON(usageError error: any Error) {
        guard let document = usageErrorDocument(error) else { return }
        try? StandardStreams.write(document + "\n")
    }

    /// The JSON document of an error ArgumentParser reports, or nil for help
    /// and a version (they succeed).
    static func usageErrorDocument(_ error: any Error) -> String? {
        let status = DBTool.exitCode(for: error)
        guard status != .success else { return nil }
        let summary = DBToolError(ExitStatus(rawValue: status.rawValue) ?? .usage, DBTool.message(for: error)).summary
        return jsonDocument(ErrorDocument(error: summary))
    }
}

/// What `--format json` prints on stdout for a failure that made no report.
struct ErrorDocument: Encodable {
    var error: DBToolError.Summary
}

/// Runs an operation and prints its report in `output.format` (nothing with
/// `--quiet`). A failure that carries what was done before it
/// (``PartialFailure``) prints that report first; ``CommandRunner`` prints
/// every error and exits with its documented status.
func runReporting<Report: Encodable>(
    _ output: OutputOptions,
    operation: () throws -> Report,
    text: (Report) -> String
) throws {
    do {
        try printReport(try operation(), output, text: text)
    } catch let failure as any PartialFailure {
        // What ran before the failure stays done: report it, then the error.
        if let report = failure.partialReport as? Report { try printReport(report, output, text: text) }
        throw failure
    }
}

/// Prints a report on stdout in `output.format`, unless `--quiet`.
///
/// - throws: ``DBToolError`` 74 when stdout can not be written.
func printReport<Report: Encodable>(_ report: Report, _ output: OutputOptions, text: (Report) -> String) throws {
    if output.quiet { return }
    switch output.format {
    case .text: try StandardStreams.write(text(report) + "\n")
    case .json: try StandardStreams.write(jsonDocument(report) + "\n")
    }
}

/// The documented error an error stands for: its own, or 70 for one dbtool
/// did not expect.
func toolError(_ error: any Error) -> DBToolError {
    (error as? any ReportableError)?.toolError ?? (error as? any PartialFailure)?.error
        ?? DBToolError(.software, "unexpected error: \(error)")
}

/// Prints an error on stderr and returns its exit status.
func failed(_ error: any Error) -> ExitCode {
    let toolError = toolError(error)
    // Messages quote paths, SQL and names: no control character reaches the terminal.
    let hint = toolError.hint.map { "\n" + TerminalText.escaped($0) } ?? ""
    StandardStreams.writeError("dbtool: error: \(TerminalText.escaped(toolError.message))\(hint)\n")
    return ExitCode(toolError.status.rawValue)
}

/// One JSON document with sorted keys; times as RFC 3339 strings, in UTC
/// with milliseconds (`2026-11-28T02:04:21.123Z`), as every report writes them.
func jsonDocument(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(ISOTime.text(date))
    }
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
}
