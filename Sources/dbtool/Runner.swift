import DBToolCore
import Foundation

/// Runs an operation and prints its report, or its error on stderr with the
/// documented exit status. Nothing else prints: commands stay thin.
func runReporting<Report: Encodable>(
    _ output: OutputOptions,
    operation: () throws -> Report,
    text: (Report) -> String
) -> Never {
    runReporting(format: output.format, quiet: output.quiet, operation: operation, text: text)
}

/// Runs an operation and prints its report in `format`, unless `quiet`.
func runReporting<Report: Encodable>(
    format: ReportFormat,
    quiet: Bool,
    operation: () throws -> Report,
    text: (Report) -> String
) -> Never {
    do {
        let report = try operation()
        if !quiet {
            switch format {
            case .text: print(text(report))
            case .json: print(jsonDocument(report))
            }
        }
        exit(ExitStatus.success.rawValue)
    } catch let failure as any PartialFailure {
        // What ran before the failure stays done: report it, then the error.
        if !quiet, let report = failure.partialReport as? Report {
            switch format {
            case .text: print(text(report))
            case .json: print(jsonDocument(report))
            }
        }
        fail(failure.error)
    } catch {
        fail(error)
    }
}

/// Prints an error on stderr and exits with its status.
func fail(_ error: any Error) -> Never {
    let toolError =
        (error as? DBToolError) ?? (error as? any PartialFailure)?.error ?? DBToolError(.software, "unexpected error: \(error)")
    FileHandle.standardError.write(Data("dbtool: error: \(toolError.description)\n".utf8))
    exit(toolError.status.rawValue)
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
