import FoundationEssentials

/// One migration: a file `VERSION_name.sql`, or a golang-migrate pair
/// `VERSION_name.up.sql` + `VERSION_name.down.sql`.
///
/// A file holds an up section and optionally a down section, marked the way
/// dbtool and dbmate do (`-- migrate:up`, `-- migrate:down`, with dbmate's
/// `transaction:false` option), or the way goose does (`-- +goose Up`,
/// `-- +goose Down`, `StatementBegin`/`StatementEnd`, `NO TRANSACTION`), or
/// sql-migrate (`-- +migrate Up notransaction`). A file with no marker is all
/// "up". Only comments and blank lines may stand before the up marker. A
/// first line `-- dbtool:no-transaction` runs the up section outside of a
/// transaction. A line written as a marker that dbtool does not understand
/// is an error: such a file never runs.
public struct MigrationFile: Sendable, Equatable {
    /// The version: the digits before the first underscore, without leading
    /// zeros ("0001" is 1). Orders the files numerically.
    public let version: UInt64
    /// The digits as written in the file name, such as "0001".
    public let versionText: String
    /// The file's name, as written (`0001_log.sql`, `0001_log.up.sql`): how
    /// output names the migration.
    public var fileName: String { URL(fileURLWithPath: path).lastPathComponent }
    /// The name after the version, without `.sql` (or `.up.sql`).
    public let name: String
    /// The file's path (the `.up.sql` file of a golang-migrate pair).
    public let path: String
    /// The `.down.sql` file of a golang-migrate pair; nil when the down SQL,
    /// if any, is in `path`.
    public let downPath: String?
    /// Where the up section is: its file (read again when the migration
    /// runs), or the text it was made from.
    let upSource: MigrationSource
    /// Where the down section is (the `.down.sql` file of a pair).
    let downSource: MigrationSource?
    /// The up section's bytes in its source (with LF line endings).
    let upRange: Range<Int>
    /// The down section's bytes, if the file has a down section.
    let downRange: Range<Int>?
    /// True when the file has a down section.
    public var hasDown: Bool { downRange != nil }
    /// The line of the file where the up SQL starts (1-based), to report
    /// errors by file line.
    public let upFirstLine: Int
    /// The line where the down SQL starts (in `downPath` when set), if any.
    public let downFirstLine: Int?
    /// True when the up section runs outside of a transaction (first line
    /// `-- dbtool:no-transaction`, dbmate's `transaction:false`, goose's
    /// `NO TRANSACTION`, sql-migrate's `notransaction`).
    public let runsOutsideTransaction: Bool
    /// True when the down section runs outside of a transaction.
    public let downRunsOutsideTransaction: Bool
    /// SHA-256 of the up section, lowercase hex, with CRLF and CR line endings
    /// normalized to LF: an edit that only changes line endings is no drift.
    public let checksum: String

    static let noTransactionDirective = "-- dbtool:no-transaction"

    /// The file that holds the down section.
    public var downFile: String { downPath ?? path }

    /// Parses a file's name and content.
    ///
    /// - throws: ``DBToolError`` (65) naming the file and the line: a name
    ///   that is not `VERSION_name.sql`, SQL before the up marker, markers
    ///   out of order, repeated or not understood.
    public init(path: String, contents: String) throws {
        try self.init(path: path, source: .text(Array(contents.utf8)))
    }

    /// Reads the migration file at `path`, in chunks: its text is not kept.
    ///
    /// - throws: ``DBToolError`` (65) naming the file and the line, as
    ///   ``init(path:contents:)``; 65 for a file that is not UTF-8 or holds
    ///   a NUL byte; the errors of reading it.
    public init(path: String) throws {
        try self.init(path: path, source: .file(path))
    }

    init(path: String, source: MigrationSource, chunkSize: Int = MigrationSource.chunkSize) throws {
        let fileName = URL(fileURLWithPath: path).lastPathComponent
        guard let (versionText, name) = MigrationFile.parseName(fileName) else {
            throw DBToolError(
                .dataError, "\(path): the name is not VERSION_name.sql",
                hint: "Name migration files like 0001_create_users.sql or 20261122130500_add_index.sql.")
        }
        let sections = try MigrationSections(path: path, source: source, chunkSize: chunkSize)
        try self.init(
            path: path, versionText: versionText, name: name, downPath: nil, upSource: source, downSource: sections.down.map { _ in source },
            up: sections.up, down: sections.down, checksum: sections.checksum)
    }

    /// Reads a golang-migrate pair: the files hold plain SQL, no markers.
    ///
    /// - throws: ``DBToolError`` (65) naming the file: a marker in it, or a
    ///   name that is not `VERSION_name.up.sql`.
    public init(upPath: String, upContents: String, downPath: String?, downContents: String?) throws {
        try self.init(
            upPath: upPath, upSource: .text(Array(upContents.utf8)), downPath: downPath,
            downSource: downContents.map { .text(Array($0.utf8)) })
    }

    /// Reads the files of a golang-migrate pair, in chunks.
    public init(upPath: String, downPath: String?) throws {
        try self.init(upPath: upPath, upSource: .file(upPath), downPath: downPath, downSource: downPath.map { .file($0) })
    }

    private init(upPath: String, upSource: MigrationSource, downPath: String?, downSource: MigrationSource?) throws {
        guard let (versionText, name, direction) = MigrationFile.parsePairName(URL(fileURLWithPath: upPath).lastPathComponent),
            direction == "up"
        else {
            throw DBToolError(.dataError, "\(upPath): the name is not VERSION_name.up.sql")
        }
        let (up, checksum) = try MigrationSections.plain(path: upPath, source: upSource)
        var down: MigrationSections.Section?
        if let downPath, let downSource { down = try MigrationSections.plain(path: downPath, source: downSource).0 }
        try self.init(
            path: upPath, versionText: versionText, name: name, downPath: downPath, upSource: upSource,
            downSource: down == nil ? nil : downSource, up: up, down: down, checksum: checksum)
    }

    private init(
        path: String, versionText: String, name: String, downPath: String?, upSource: MigrationSource, downSource: MigrationSource?,
        up: MigrationSections.Section, down: MigrationSections.Section?, checksum: String
    ) throws {
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
        self.downPath = downPath
        self.upSource = upSource
        self.downSource = downSource
        upRange = up.range
        upFirstLine = up.firstLine
        runsOutsideTransaction = !up.inTransaction
        downRange = down?.range
        downFirstLine = down?.firstLine
        downRunsOutsideTransaction = !(down?.inTransaction ?? true)
        self.checksum = checksum
    }

    /// The SQL of a section, read whole (for a dry run's report); nil for
    /// a down section the file does not have.
    public func sql(_ direction: MigrationDirection) throws -> String? {
        var bytes: [UInt8] = []
        let found = try forEachChunk(of: direction) { bytes.append(contentsOf: $0) }
        return found ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Calls `body` with the bytes of a section, in chunks, from its source;
    /// false when the file has no such section.
    func forEachChunk(of direction: MigrationDirection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        let (source, range, file) = direction == .up ? (upSource, upRange, path) : (downSource, downRange, downFile)
        guard let source, let range else { return false }
        var offset = 0
        try source.forEachChunk(path: file) { chunk in
            defer { offset += chunk.count }
            let start = max(range.lowerBound - offset, 0)
            let end = min(range.upperBound - offset, chunk.count)
            if start < end { try body(UnsafeBufferPointer(rebasing: chunk[start..<end])) }
        }
        return true
    }

    /// "0001_create_users.sql" -> ("0001", "create_users").
    static func parseName(_ fileName: String) -> (String, String)? {
        guard fileName.hasSuffix(".sql"), let underscore = fileName.firstIndex(of: "_") else { return nil }
        let digits = fileName[..<underscore]
        let name = fileName[fileName.index(after: underscore)..<fileName.index(fileName.endIndex, offsetBy: -4)]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), !name.isEmpty else { return nil }
        return (String(digits), String(name))
    }

    /// "0001_create_users.up.sql" -> ("0001", "create_users", "up"); nil
    /// for a name that does not end with `.up.sql` or `.down.sql`.
    static func parsePairName(_ fileName: String) -> (String, String, String)? {
        for direction in ["up", "down"] where fileName.hasSuffix(".\(direction).sql") {
            let stem = String(fileName.dropLast(".\(direction).sql".count)) + ".sql"
            guard let (version, name) = parseName(stem) else { return nil }
            return (version, name, direction)
        }
        return nil
    }

    static func isCommentOrBlank(_ line: String) -> Bool {
        let trimmed = line.trimmingSpaces()
        return trimmed.isEmpty || trimmed.hasPrefix("--")
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
