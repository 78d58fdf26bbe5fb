import Crypto
import Foundation

/// One migration file: `VERSION_name.sql`.
///
/// A file holds a `-- migrate:up` section and optionally a `-- migrate:down`
/// section; a file with no marker is all "up". Only comments and blank lines
/// may stand before the first marker. A first line `-- dbtool:no-transaction`
/// runs the migration outside of a transaction.
public struct MigrationFile: Sendable, Equatable {
    /// The version: the digits before the first underscore, without leading
    /// zeros ("0001" is 1). Orders the files numerically.
    public let version: UInt64
    /// The digits as written in the file name, such as "0001".
    public let versionText: String
    /// The file's name, as written (`0001_log.sql`): how output names the migration.
    public var fileName: String { URL(fileURLWithPath: path).lastPathComponent }
    /// The name after the version, without `.sql`.
    public let name: String
    /// The file's path.
    public let path: String
    /// The SQL that applies the migration.
    public let up: String
    /// The SQL that reverts it, if the file has a down section.
    public let down: String?
    /// The line of the file where the up SQL starts (1-based), to report
    /// errors by file line.
    public let upFirstLine: Int
    /// The line where the down SQL starts, if any.
    public let downFirstLine: Int?
    /// True when the first line is `-- dbtool:no-transaction`.
    public let runsOutsideTransaction: Bool
    /// SHA-256 of the up section, lowercase hex, with CRLF and CR line endings
    /// normalized to LF: an edit that only changes line endings is no drift.
    public let checksum: String

    static let upMarker = "-- migrate:up"
    static let downMarker = "-- migrate:down"
    static let noTransactionDirective = "-- dbtool:no-transaction"

    /// Parses a file's name and content.
    ///
    /// - throws: ``DBToolError`` (65) naming the file and the line: a name
    ///   that is not `VERSION_name.sql`, SQL before the first marker, markers
    ///   out of order or repeated.
    public init(path: String, contents: String) throws {
        let fileName = URL(fileURLWithPath: path).lastPathComponent
        guard let (versionText, name) = MigrationFile.parseName(fileName) else {
            throw DBToolError(
                .dataError, "\(path): the name is not VERSION_name.sql",
                hint: "Name migration files like 0001_create_users.sql or 20261122130500_add_index.sql.")
        }
        // Versions are stored as SQLite integers (64-bit signed).
        guard let version = UInt64(versionText), version <= UInt64(Int64.max) else {
            throw DBToolError(
                .dataError, "\(path): the version \(versionText) is too large (at most \(Int64.max))",
                hint: "Use a shorter version, like a timestamp 20261122130500.")
        }
        self.version = version
        self.versionText = versionText
        self.name = name
        self.path = path

        let text = contents.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let lines = text.components(separatedBy: "\n")
        runsOutsideTransaction = lines.first?.trimmingCharacters(in: .whitespaces) == MigrationFile.noTransactionDirective

        let markerLines = lines.indices.filter {
            let line = lines[$0].trimmingCharacters(in: .whitespaces)
            return line == MigrationFile.upMarker || line == MigrationFile.downMarker
        }
        guard let firstMarker = markerLines.first else {
            up = text
            upFirstLine = 1
            down = nil
            downFirstLine = nil
            checksum = MigrationFile.sha256(text)
            return
        }
        let markers = markerLines.map { lines[$0].trimmingCharacters(in: .whitespaces) }
        guard markers[0] == MigrationFile.upMarker, markers.count <= 2, markers.count == 1 || markers[1] == MigrationFile.downMarker else {
            throw DBToolError(
                .dataError,
                "\(path): expected one `\(MigrationFile.upMarker)` line, optionally followed by one `\(MigrationFile.downMarker)` line",
                hint: "Check the markers of the file.")
        }
        if let line = lines[..<firstMarker].firstIndex(where: { !MigrationFile.isCommentOrBlank($0) }) {
            throw DBToolError(
                .dataError, "\(path):\(line + 1): SQL before `\(MigrationFile.upMarker)`",
                hint: "Move it into the up section, or remove it.")
        }
        let downMarker = markerLines.count == 2 ? markerLines[1] : nil
        let upLines = lines[(firstMarker + 1)..<(downMarker ?? lines.count)]
        up = upLines.joined(separator: "\n")
        upFirstLine = firstMarker + 2
        if let downMarker {
            down = lines[(downMarker + 1)...].joined(separator: "\n")
            downFirstLine = downMarker + 2
        } else {
            down = nil
            downFirstLine = nil
        }
        checksum = MigrationFile.sha256(up)
    }

    /// "0001_create_users.sql" -> ("0001", "create_users").
    static func parseName(_ fileName: String) -> (String, String)? {
        guard fileName.hasSuffix(".sql"), let underscore = fileName.firstIndex(of: "_") else { return nil }
        let digits = fileName[..<underscore]
        let name = fileName[fileName.index(after: underscore)..<fileName.index(fileName.endIndex, offsetBy: -4)]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), !name.isEmpty else { return nil }
        return (String(digits), String(name))
    }

    static func isCommentOrBlank(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.hasPrefix("--")
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
