import Foundation

/// The passphrase of an encrypted archive, read from a file
/// (`--passphrase-file`): never from the command line, where `ps` shows it.
public enum Passphrase {
    /// The file's first line.
    ///
    /// - throws: ``DBToolError`` 66 for a missing file, 77 for one that can
    ///   not be read, 64 for an empty passphrase.
    public static func read(file path: String) throws -> String {
        guard FileSystem.exists(path) else {
            throw DBToolError(.noInput, "no passphrase file \(path)", hint: "Write the passphrase in a file only you can read (chmod 600).")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DBToolError(.noPermission, "can not read the passphrase file \(path)", hint: "Check its permissions.")
        }
        let passphrase = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        guard !passphrase.isEmpty else {
            throw DBToolError(.usage, "the passphrase file \(path) is empty", hint: "Write the passphrase on its first line.")
        }
        return passphrase
    }
}
