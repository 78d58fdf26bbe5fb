import DBToolCore
import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("dbtool schema")
struct SchemaCommandTests {
    /// A database with the example migrations applied: tables, indexes, a
    /// partial unique index, foreign keys, a view and a trigger.
    private func makeLibrary(_ scratch: TemporaryDirectory) throws -> String {
        let directory = scratch.file("db")
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../migrations-examples").standardized.path
        let result = try dbtool(["init", directory, "--migrations", migrations, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        return directory
    }

    @Test("JSON lists tables, columns, keys, indexes and foreign keys from the introspection API")
    func json() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeLibrary(scratch)
        let result = try dbtool(["schema", "--database", directory, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONDecoder().decode(SchemaReport.self, from: Data(result.stdout.utf8))
        #expect(report.tables.map(\.name) == ["author", "book", "dbtool_migrations", "loan"])
        // The report equals what the library reads from the same file.
        let dbQueue = try DatabaseQueue(path: directory + "/db.sqlite")
        let expected = try dbQueue.read { db in try SchemaReport(db, path: directory + "/db.sqlite") }
        #expect(report == expected)
        let book = try #require(report.tables.first { $0.name == "book" })
        #expect(book.columns.map(\.name) == ["id", "author_id", "title", "published_year"])
        #expect(book.primaryKey == ["id"])
        #expect(book.columns[1].notNull && book.columns[1].type == "INTEGER")
        #expect(book.indexes.map(\.name) == ["book_author_id"])
        #expect(book.foreignKeys.first?.table == "author")
        #expect(book.foreignKeys.first?.destinationColumns == ["id"])
        #expect(book.foreignKeys.first?.onDelete == "CASCADE")
        let loan = try #require(report.tables.first { $0.name == "loan" })
        #expect(loan.indexes.first?.unique == true && loan.indexes.first?.partial == true)
        #expect(loan.columns.first { $0.name == "loaned_at" }?.defaultValue == "datetime('now')")
        #expect(report.views == ["book_on_loan"])
        #expect(report.triggers.map(\.name) == ["book_year_check"])
        #expect(report.userVersion == 0 && report.schemaVersion > 0)
        try dbQueue.close()
    }

    @Test("text: one block per table; --table filters; an unknown table exits 65 and lists the tables")
    func textAndFilter() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeLibrary(scratch)
        let all = try dbtool(["schema", "--database", directory])
        #expect(all.status == 0)
        #expect(all.stdout.contains("table book\n  id              INTEGER  PRIMARY KEY\n"))
        #expect(all.stdout.contains("  foreign key (author_id) references author(id) on delete cascade"))
        #expect(all.stdout.contains("view book_on_loan"))
        let one = try dbtool(["schema", "--database", directory, "--table", "AUTHOR"])
        #expect(one.status == 0)
        #expect(one.stdout.hasPrefix("table author\n"))
        #expect(!one.stdout.contains("table book"))
        let missing = try dbtool(["schema", "--database", directory, "--table", "nothing"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("no table nothing in"))
        #expect(missing.stderr.contains("author, book, dbtool_migrations, loan"))
    }

    @Test("--sql prints the CREATE statements, the same text for the same schema")
    func sql() throws {
        let scratch = TemporaryDirectory()
        let first = try makeLibrary(scratch)
        let result = try dbtool(["schema", "--database", first, "--sql"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("CREATE TABLE \"author\""))
        #expect(result.stdout.contains("CREATE TRIGGER book_year_check"))
        // Replaying the SQL gives a database with the same schema.
        let copy = scratch.file("copy.sqlite")
        let dbQueue = try DatabaseQueue(path: copy)
        try dbQueue.write { db in try db.execute(sql: result.stdout) }
        try dbQueue.close()
        let replayed = try dbtool(["schema", "--database", copy, "--sql"])
        #expect(replayed.stdout == result.stdout)
    }

    @Test("schema never writes: the files are unchanged, a missing database exits 66")
    func readOnly() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeLibrary(scratch)
        let before = directoryFingerprint(directory)
        #expect(try dbtool(["schema", "--database", directory, "--format", "json"]).status == 0)
        #expect(directoryFingerprint(directory) == before)
        let missing = try dbtool(["schema", "--database", scratch.file("nothing")])
        #expect(missing.status == 66)
        let notADatabase = scratch.file("text.sqlite")
        try Data("hello, this is not a database at all, not even close".utf8).write(to: URL(fileURLWithPath: notADatabase))
        #expect(try dbtool(["schema", "--database", notADatabase]).status == 65)
    }
}
