import Foundation
import Testing

/// A directory of its own for one test, removed when the value is released:
/// the one scratch-directory helper of every test target.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let path: String

    /// Creates an empty directory named after the test function; a failure
    /// to create it is recorded as an issue of the test (the test's own
    /// file operations then fail, naming the path).
    public init(function: String = #function) {
        let name = function.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "tests-\(name)-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            Issue.record("can not create the test directory \(path): \(error)")
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }
}

/// Runs `body` where a thrown error can not propagate to the test (a thread,
/// a dispatch block): the error is recorded as an issue of the current test,
/// and nil returned, instead of stopping the whole test process.
@discardableResult
public func recordingErrors<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
        return nil
    }
}
