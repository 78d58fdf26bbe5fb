import Foundation

/// The passphrase of an encrypted archive, read from a file
/// (`--passphrase-file`): never from the command line, where `ps` shows it.
/// The file may be a pipe (`--passphrase-file <(pass show backup)`,
/// `/dev/stdin`), the usual way a secret manager hands a secret over.
public enum Passphrase {
    /// The longest passphrase file read.
    static let limit = 64 * 1024

    /// The file's content, without one trailing newline (LF or CRLF).
    ///
    /// - throws: ``DBToolError`` 66 for a missing file, 77 for one that can
    ///   not be read, 64 for an empty passphrase, a directory, or several lines.
    public static func read(file path: String) throws -> String {
        let descriptor: FileDescriptor
        do {
            // Blocking: a pipe's writer may be slow. SIGINT or SIGTERM end the wait (130).
            descriptor = try FileDescriptor.open(path, .readOnly)
        } catch {
            switch error.errno {
            case .noSuchFileOrDirectory:
                throw DBToolError(.noInput, "no passphrase file \(path)", hint: "Write the passphrase in a file only you can read (chmod 600).")
            case .interrupted: throw Interruption.error
            default:
                throw DBToolError(.noPermission, "can not read the passphrase file \(path): \(error.errno)", hint: "Check its permissions.")
            }
        }
        defer { descriptor.close() }
        var bytes: [UInt8]
        do {
            guard try descriptor.status().kind != .directory else {
                throw DBToolError(.usage, "the passphrase file \(path) is a directory", hint: "Give the file that holds the passphrase.")
            }
            bytes = try descriptor.readToEnd(limit: limit)
        } catch let error as FileSystemError {
            if error.errno == .interrupted { throw Interruption.error }
            throw DBToolError(.noPermission, "can not read the passphrase file \(path): \(error.errno)", hint: "Check its permissions.")
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw DBToolError(.usage, "the passphrase file \(path) is empty", hint: "Write the passphrase on its only line.")
        }
        guard bytes.count <= limit, !bytes.contains(UInt8(ascii: "\n")), let passphrase = String(validating: bytes, as: UTF8.self) else {
            throw DBToolError(
                .usage, "the passphrase file \(path) holds more than one line of UTF-8 text",
                hint: "Write the passphrase alone, on one line.")
        }
        return passphrase
    }
}
