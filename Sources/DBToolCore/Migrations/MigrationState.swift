import Crypto
import DatabaseKit
import FoundationEssentials

/// What the files and the migrations table say together: the input of
/// `migrate`, `migrate status` and the safety checks.
public struct MigrationState: Sendable {
    public let files: [MigrationFile]
    public let records: [MigrationsTable.Record]
    /// Another tool's bookkeeping table, when dbtool has no record yet.
    public let foreignHistory: ForeignMigrationHistory?

    /// The state of one version.
    public enum Status: String, Codable, Sendable {
        /// Applied, and the file is unchanged.
        case applied
        /// Not applied yet.
        case pending
        /// Applied, but the file's up section changed since (checksum drift).
        case modified
        /// Applied, but the file is gone.
        case missing
        /// Not applied, and older than the newest applied migration.
        case outOfOrder = "out-of-order"
    }

    /// One line of `migrate status`.
    public struct Entry: Codable, Sendable, Equatable {
        public var version: UInt64
        public var name: String
        public var status: Status
        public var appliedAt: String?
        public var file: String?
    }

    public var newestApplied: UInt64? { records.map(\.version).max() }

    public var entries: [Entry] {
        let recordByVersion = Dictionary(records.map { ($0.version, $0) }) { first, _ in first }
        let fileByVersion = Dictionary(files.map { ($0.version, $0) }) { first, _ in first }
        let newest = newestApplied ?? 0
        let versions = Set(recordByVersion.keys).union(fileByVersion.keys).sorted()
        return versions.map { version in
            let record = recordByVersion[version]
            let file = fileByVersion[version]
            let status: Status
            switch (record, file) {
            case let (record?, file?): status = record.checksum == file.checksum ? .applied : .modified
            case (_?, nil): status = .missing
            case (nil, _): status = version < newest ? .outOfOrder : .pending
            }
            return Entry(
                version: version, name: file?.name ?? record?.name ?? "", status: status, appliedAt: record?.appliedAt, file: file?.path)
        }
    }

    /// The files not applied yet, in version order.
    public var pending: [MigrationFile] {
        let applied = Set(records.map(\.version))
        return files.filter { !applied.contains($0.version) }
    }

    /// Throws when another tool's history is not adopted, when an applied
    /// file was modified or is missing, or (unless allowed) when a pending
    /// file is older than the newest applied one.
    public func checkSafety(allowOutOfOrder: Bool) throws {
        if let history = foreignHistory {
            let versions = history.appliedVersions.map(String.init).joined(separator: ", ")
            throw DBToolError(
                .dataError,
                "the database was migrated by \(history.description) up to version \(history.version.map(String.init) ?? "none") (applied: \(versions)); dbtool has no record of it, and would apply those migrations again",
                hint: "Record that history once, then migrate: `dbtool migrate adopt` (reads \(history.table), with the checksums of the files), or `dbtool migrate baseline \(history.version.map(String.init) ?? "VERSION")`."
            )
        }
        let entries = self.entries
        if let modified = entries.first(where: { $0.status == .modified }) {
            throw DBToolError(
                .dataError, "migration \(modified.version) (\(modified.file ?? modified.name)) was modified after it was applied",
                hint: "Restore the file, or record its new checksum on purpose with `dbtool migrate repair \(modified.version)`.")
        }
        if let missing = entries.first(where: { $0.status == .missing }) {
            throw DBToolError(
                .dataError,
                "migration \(missing.version) (\(missing.name)) is applied, but its file is missing from the migrations directory",
                hint: "Restore the file: migrations that ran must stay.")
        }
        if !allowOutOfOrder, let outOfOrder = entries.first(where: { $0.status == .outOfOrder }) {
            throw DBToolError(
                .dataError,
                "migration \(outOfOrder.version) (\(outOfOrder.file ?? outOfOrder.name)) is pending but older than the newest applied migration \(newestApplied ?? 0)",
                hint: "Renumber it after \(newestApplied ?? 0), or apply it anyway with --allow-out-of-order.")
        }
    }

    /// Reads the table (without creating it), and another tool's when
    /// dbtool's records nothing.
    static func load(_ db: Database, directory: MigrationDirectory) throws -> MigrationState {
        let records = try MigrationsTable.records(db)
        let history =
            records.isEmpty ? try ForeignMigrationHistory.load(db, fileVersions: directory.migrations.map(\.version)) : nil
        return MigrationState(files: directory.migrations, records: records, foreignHistory: history)
    }
}

/// Which way a migration runs.
public enum MigrationDirection: String, Codable, Sendable {
    case up, down

    /// "applied", "rolled back".
    var pastTense: String { self == .up ? "applied" : "rolled back" }
}

extension MigrationFile {
    /// Runs one section, statement by statement, turning an error into one
    /// that names the file, the line and the statement.
    ///
    /// The section is read from its file again, in chunks, and fed to
    /// SQLite in batches of whole statements: memory stays flat whatever
    /// the size of the migration. The up section is hashed as it is read: a
    /// file changed since its checksum was taken fails the migration (before
    /// it is recorded, and rolled back with its transaction).
    func run(_ direction: MigrationDirection, in db: Database) throws {
        let firstLine = direction == .up ? upFirstLine : downFirstLine ?? 1
        let file = direction == .up ? path : downFile
        var batches = StatementBatches()
        var hash = SHA256()
        let runBatch = { (sql: String, line: Int) throws in
            try run(sql, firstLine: firstLine + line, file: file, direction: direction, in: db)
        }
        let found = try forEachChunk(of: direction) { chunk in
            // Only the up section has a checksum to hold it to.
            if direction == .up { hash.update(bufferPointer: UnsafeRawBufferPointer(chunk)) }
            try batches.feed(chunk, runBatch)
        }
        guard found else { return }
        try batches.finish(runBatch)
        if direction == .up && hash.finalize().hexString != checksum {
            throw DBToolError(
                .dataError, "\(path) changed while the migration ran: its up section is no longer what was checked",
                hint: Self.nothingRanHint(direction) + " Do not edit migration files while they run; migrate again.")
        }
    }

    /// The hint of a migration that failed: nothing of it ran.
    static func nothingRanHint(_ direction: MigrationDirection) -> String {
        direction == .up ? "Fix the migration: nothing of it was applied." : "Fix its down section: nothing of it was rolled back."
    }

    private func run(_ sql: String, firstLine: Int, file: String, direction: MigrationDirection, in db: Database) throws {
        let statements = try wrappingErrors(sql: sql, firstLine: firstLine, file: file, direction: direction, statementSQL: nil) {
            try db.allStatements(sql: sql)
        }
        var searchStart = sql.startIndex
        while true {
            let statement = try wrappingErrors(
                sql: sql, firstLine: firstLine, file: file, direction: direction, statementSQL: nil, from: searchStart
            ) {
                try statements.next()
            }
            guard let statement else { break }
            let range = sql[searchStart...].firstRange(of: statement.sql)
            try wrappingErrors(
                sql: sql, firstLine: firstLine, file: file, direction: direction, statementSQL: statement.sql,
                from: range?.lowerBound ?? searchStart
            ) {
                try statement.execute()
            }
            if let range { searchStart = range.upperBound }
        }
    }

    private func wrappingErrors<T>(
        sql: String, firstLine: Int, file: String, direction: MigrationDirection, statementSQL: String?,
        from position: String.Index? = nil,
        _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && Interruption.isRequested {
            // A signal stopped the statement (a deploy's timeout, a systemd
            // stop): the transaction rolls back; nothing is wrong with the file.
            let name = URL(fileURLWithPath: path).lastPathComponent
            throw DBToolError(.interrupted, "interrupted by \(Interruption.signalName): nothing of \(name) was \(direction.pastTense)")
        } catch let error as DatabaseError {
            // A compile error carries the rest of the section from the failing
            // statement on: name only that statement.
            let failingSQL = statementSQL ?? error.sql.map(Self.firstStatement)
            var start = position ?? sql.startIndex
            if let failingSQL, let range = sql[start...].firstRange(of: failingSQL) { start = range.lowerBound }
            let line = firstLine + sql[..<start].filter { $0 == "\n" }.count
            let statementText = failingSQL.map { " in `\(Self.quoted($0))`" } ?? ""
            throw DBToolError(
                .dataError, "\(file):\(line): \(error.message ?? "SQLite error")\(statementText)",
                hint: MigrationFile.nothingRanHint(direction))
        }
    }

    /// At most ``quoteLimit`` bytes of a statement, for an error message:
    /// a whole file is never echoed.
    static func quoted(_ sql: String) -> String {
        guard sql.utf8.count > quoteLimit else { return sql }
        var end = sql.utf8.index(sql.utf8.startIndex, offsetBy: quoteLimit)
        while end > sql.startIndex && !sql.unicodeScalars.indices.contains(end) { end = sql.utf8.index(before: end) }
        return String(sql[..<end]) + "…"
    }

    /// The longest part of a statement an error quotes, in bytes.
    static let quoteLimit = 200

    /// The first statement of `sql`, without the blank and comment lines
    /// before it: the lines up to the first one that ends with `;`.
    static func firstStatement(of sql: String) -> String {
        var lines: [Substring] = []
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingSpaces()
            if lines.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("--")) { continue }
            lines.append(line)
            if trimmed.hasSuffix(";") { break }
        }
        return lines.joined(separator: "\n").trimmingWhitespace()
    }
}
