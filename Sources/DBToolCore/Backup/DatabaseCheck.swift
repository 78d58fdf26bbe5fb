import DatabaseKit
import FoundationEssentials

/// The checks of a restored database.
enum DatabaseCheck {
    /// Opens the database (recovering its WAL), and runs `integrity_check`,
    /// and `foreign_key_check` if asked. Returns "ok" or throws 65. The
    /// file must exist (a missing one is never created as an empty
    /// database) and must not be a link.
    static func run(database: String, archive: String, foreignKeys: Bool) throws -> String {
        do {
            var configuration = Configuration()
            configuration.createsMissingFile = false
            configuration.followsSymbolicLinks = false
            let queue = try DatabaseQueue(path: database, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw DBToolError(
                        .dataError,
                        "the database in \(archive) fails PRAGMA integrity_check: \(integrity.prefix(3).joined(separator: "; "))",
                        hint: "Use another backup.")
                }
                if foreignKeys {
                    let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    if let first = violations.first {
                        throw DBToolError(
                            .dataError,
                            "the database in \(archive) fails PRAGMA foreign_key_check: \(violations.count) violation(s), the first in table \(first[0] as String? ?? "?")",
                            hint: "Use another backup, or repair the rows after restoring it.")
                    }
                }
                return "ok"
            }
        } catch let error as DatabaseError {
            throw DBToolError(
                .dataError, "the database in \(archive) can not be read: \(error.message ?? "\(error.resultCode)")",
                hint: "The archive does not hold a valid database; use another backup.")
        }
    }

    /// `PRAGMA quick_check` of a live database; throws 65 naming what it
    /// found when the database is corrupt.
    static func quickCheck(_ dbQueue: DatabaseQueue, path: String) throws {
        let lines: [String]
        do {
            lines = try dbQueue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            lines = [error.message ?? "database disk image is malformed"]
        }
        guard lines == ["ok"] else {
            throw DBToolError(
                .dataError, "the database \(path) is corrupt (quick_check: \(lines.prefix(3).joined(separator: "; "))): nothing was changed",
                hint: "Restore it from a backup (`dbtool backup list`), then migrate.")
        }
    }
}
