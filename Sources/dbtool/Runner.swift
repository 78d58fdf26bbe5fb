import DBToolCore
import Foundation

/// Runs an operation and prints its report, or its error on stderr with the
/// documented exit status. Nothing else prints: commands stay thin.
func runReporting<Report: Encodable>(
    _ output: OutputOptions,
    operation: () throws -> Report,
    text: (Report) -> String
) -> Never {
    do {
        let report = try operation()
        if !output.quiet {
            switch output.format {
            case .text: print(text(report))
            case .json: print(jsonDocument(report))
            }
        }
        exit(ExitStatus.success.rawValue)
    } catch {
        fail(error)
    }
}

/// Prints an error on stderr and exits with its status.
func fail(_ error: any Error) -> Never {
    let toolError = (error as? DBToolError) ?? DBToolError(.software, "unexpected error: \(error)")
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

/// A progress line on stderr, redrawn at most ten times a second, shown only
/// once the work has lasted a second.
final class ProgressLine: @unchecked Sendable {
    // Safe: `lastDraw` is only touched while holding `lock`.
    private let lock = NSLock()
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast

    init(label: String) { self.label = label }

    func update(done: Int, total: Int) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let finished = done >= total
        guard now.timeIntervalSince(start) >= 1, finished || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let percent = total > 0 ? done * 100 / total : 100
        let line = "\r\(label): \(percent)% (\(done)/\(total) pages)" + (finished ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }
}
