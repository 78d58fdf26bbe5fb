import ArgumentParser
import DBToolCore
import Foundation

/// Runs an operation and prints its report in `output.format` (nothing with
/// `--quiet`), or its error on stderr and then throws the documented exit
/// status as an `ExitCode`: commands return to ArgumentParser, which exits;
/// nothing else prints, so commands stay thin.
func runReporting<Report: Encodable>(
    _ output: OutputOptions,
    operation: () throws -> Report,
    text: (Report) -> String
) throws {
    do {
        printReport(try operation(), output, text: text)
    } catch let failure as any PartialFailure {
        // What ran before the failure stays done: report it, then the error.
        if let report = failure.partialReport as? Report { printReport(report, output, text: text) }
        throw failed(failure.error)
    } catch {
        throw failed(error)
    }
}

/// Prints a report on stdout in `output.format`, unless `--quiet`.
func printReport<Report: Encodable>(_ report: Report, _ output: OutputOptions, text: (Report) -> String) {
    if output.quiet { return }
    switch output.format {
    case .text: print(text(report))
    case .json: print(jsonDocument(report))
    }
}

/// Prints an error on stderr and returns its exit status, for the command
/// to throw.
func failed(_ error: any Error) -> ExitCode {
    let toolError =
        (error as? any ReportableError)?.toolError ?? (error as? any PartialFailure)?.error
        ?? DBToolError(.software, "unexpected error: \(error)")
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
