import DatabaseKit

#if canImport(Glibc)
    import Glibc
#endif

/// dbtool's standard output and error, written with `write(2)`: a write
/// that fails is reported, never a trap (Foundation's `FileHandle` traps on
/// a full disk or a closed descriptor).
///
/// - Standard output is buffered (64 KiB) until ``flush()``; a failed write
///   is a ``DBToolError`` 74 (a full disk, `/dev/full`, a closed stdout).
///   A reader that went away (`EPIPE`, `dbtool exec ... | head`) ends the
///   process with SIGPIPE (status 141), as every tool of a pipeline does.
/// - Standard error is written at once, and its failures are ignored:
///   there is nowhere left to report them.
public enum StandardStreams {
    private static let buffer = Locked<(bytes: [UInt8], wroteAny: Bool)>(([], false))
    private static let bufferSize = 64 * 1024

    /// Appends `text` to standard output, writing it out when the buffer is full.
    ///
    /// - throws: ``DBToolError`` 74 when standard output can not be written.
    public static func write(_ text: String) throws {
        try buffer.withLock { buffer in
            buffer.bytes.append(contentsOf: text.utf8)
            buffer.wroteAny = true
            if buffer.bytes.count >= bufferSize { try drain(&buffer.bytes) }
        }
    }

    /// Whether anything was written to standard output so far: a failure
    /// under `--format json` prints its error document only when no report
    /// came first, so that stdout always holds one document.
    public static var wroteOutput: Bool { buffer.withLock { $0.wroteAny } }

    /// Writes out what standard output has buffered.
    ///
    /// - throws: ``DBToolError`` 74 when standard output can not be written.
    public static func flush() throws {
        try buffer.withLock { try drain(&$0.bytes) }
    }

    /// Writes `text` to standard error at once; a failure is ignored.
    public static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = writeAll(2, &bytes)
    }

    private static func drain(_ buffer: inout [UInt8]) throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard let failure = writeAll(1, &buffer) else { return }
        if failure == EPIPE {
            // The reader is gone: end as `yes | head` does.
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        throw DBToolError(
            failure == EINTR ? .interrupted : .ioError, "can not write to the standard output: \(Errno(failure))",
            hint: "Check where the output goes (a full disk, a closed descriptor).")
    }

    /// Writes every byte; returns the errno of a failure.
    private static func writeAll(_ descriptor: Int32, _ bytes: inout [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let written = retryingInterrupted { Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
    }
}
