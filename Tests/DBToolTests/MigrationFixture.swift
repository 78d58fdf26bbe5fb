import DatabaseKit
import Foundation
import Testing
import TestSupport

// The migration project the `migrate` tests and the reliability tests share.

/// A database directory (initialized) and a copy of the example migrations, in `scratch`.
func makeMigrationProject(_ scratch: TemporaryDirectory) throws -> (database: String, migrations: String) {
    let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("migrations-examples").path
    let migrations = scratch.file("migrations")
    try FileManager.default.copyItem(atPath: examples, toPath: migrations)
    let database = scratch.file("db")
    #expect(try dbtool(["init", database, "--quiet"]).status == 0)
    return (database, migrations)
}

func migrate(_ database: String, _ migrations: String, _ extra: [String] = []) throws -> ToolResult {
    try dbtool(["migrate", "--database", database, "--migrations", migrations] + extra)
}

func appliedVersions(_ database: String) throws -> [Int] {
    try DatabaseQueue(path: database + "/db.sqlite").read { db in
        try Int.fetchAll(db, sql: "SELECT version FROM dbtool_migrations ORDER BY version")
    }
}

func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}
