import FoundationEssentials

/// The passphrase of an encrypted archive, from a file (`--passphrase-file`),
/// the output of a command (`--passphrase-command "pass show backup"`), or
/// `DBTOOL_PASSPHRASE`: never from the command line, where `ps` shows it.
/// The file may be a pipe (`--passphrase-file <(pass show backup)`,
/// `/dev/stdin`), the usual way a secret manager hands a secret over.
public enum Passphrase {
    /// The longest passphrase read.
    static let limit = 64 * 1024
    /// The variable a passphrase may come from when no option names one.
    public static let variable = "DBTOOL_PASSPHRASE"

    /// The passphrase from `file` or `command` (at most one of them), else
    /// from ``variable`` in `environment` (an empty one counts as unset);
    /// nil when none is given.
    public static func resolve(file: String?, command: String?, environment: [String: String]) throws -> String? {
        if let file { return try read(file: file) }
        if let command { return try run(command: command) }
        if isSet(in: environment), let value = environment[variable] { return try check(Array(value.utf8), from: variable) }
        return nil
    }

    /// Whether ``variable`` gives a passphrase (an empty one counts as unset).
    public static func isSet(in environment: [String: String]) -> Bool {
        !(environment[variable] ?? "").isEmpty
    }

    /// The first line a command prints, the command run without a shell:
    /// its words split as a shell would split them (quotes and backslashes),
    /// nothing expanded. Its standard error reaches the terminal (a
    /// secret manager may ask for a PIN there).
    ///
    /// - throws: ``DBToolError`` 77 when the command can not run or fails,
    ///   64 for a command that can not be split, or an empty passphrase.
    public static func run(command: String) throws -> String {
        guard let words = ShellWords.split(command), !words.isEmpty else {
            throw DBToolError(
                .usage, "--passphrase-command \"\(command)\" is not a command line: a quote is not closed, or it is empty",
                hint: "Give the program and its arguments, quoted as for a shell: --passphrase-command \"pass show backup\".")
        }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(words, outputLimit: limit)
        } catch let error as FileSystemError {
            if error.errno == .interrupted { throw Interruption.error }
            throw DBToolError(
                .noPermission, "can not run the passphrase command \(words[0]): \(error.errno)",
                hint: "Check that \(words[0]) is installed and on PATH.")
        }
        guard outcome.output.count <= limit else {
            throw DBToolError(
                .usage, "the passphrase command \"\(command)\" printed more than \(limit / 1024) KiB: that is not a passphrase",
                hint: "Give a command that prints the passphrase alone, on one line.")
        }
        guard outcome.status == 0 else {
            throw DBToolError(
                .noPermission, "the passphrase command \"\(command)\" failed with exit status \(outcome.status)",
                hint: "Run it by hand: it must print the passphrase and exit 0.")
        }
        return try check(outcome.output, from: "the output of the passphrase command \"\(command)\"")
    }

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
        return try check(bytes, from: "the passphrase file \(path)")
    }

    /// `bytes` without one trailing newline (LF or CRLF), checked to be one
    /// non-empty line of UTF-8; `source` names where it came from.
    private static func check(_ bytes: [UInt8], from source: String) throws -> String {
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw DBToolError(.usage, "\(source) is empty", hint: "Give the passphrase alone, on one line.")
        }
        guard bytes.count <= limit, !bytes.contains(UInt8(ascii: "\n")), let passphrase = String(validating: bytes, as: UTF8.self) else {
            throw DBToolError(.usage, "\(source) holds more than one line of UTF-8 text", hint: "Give the passphrase alone, on one line.")
        }
        return passphrase
    }
}
