import ArgumentParser
import DBToolCore
import Foundation

/// Runs an operation and prints its report, or its error on stderr and then
/// throws the documented exit status as an `ExitCode`: commands return to
/// ArgumentParser, which exits; nothing else prints, so commands stay thin.
func runReporting<Report: Encodable>(
    _ output: OutputOptions,
    operation: () throws -> Report,
    text: (Report) -> String
) throws {
    try runReporting(format: output.format, quiet: output.quiet, operation: operation, text: text)
}

/// Runs an operation and prints its report in `format`, unless `quiet`.
func runReporting<Report: Encodable>(
    format: ReportFormat,
    quiet: Bool,
    operation: () throws -> Report,
    text: (Report) -> String
) throws {
    do {
        let report = try operation()
        if !quiet {
            switch format {
            case .text: print(text(report))
            case .json: print(jsonDocument(report))
            }
        }
    } catch let failure as any PartialFailure {
        // What ran before the failure stays done: report it, then the error.
        if !quiet, let report = failure.partialReport as? Report {
            switch format {
            case .text: print(text(report))
            case .json: print(jsonDocument(report))
            }
        }
        throw failed(failure.error)
    } catch {
        throw failed(error)
    }
}

/// Prints an error on stderr and returns its exit status, for the command
/// to throw.
func failed(_ error: any Error) -> ExitCode {
    let toolError =
        (error as? DBToolError) ?? (error as? any PartialFailure)?.error ?? DBToolError(.software, "unexpected error: \(error)")
    FileHandle.standardError.write(Data("dbtool: error: \(toolError.description)\n".utf8))
    return ExitCode(toolError.status.rawValue)
}

/// One JSON document with sorted keys.
func jsonDocument(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
}

/// True when the file descriptor is a terminal.
func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
