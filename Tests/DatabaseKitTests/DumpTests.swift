import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Collects what a dump prints. A class: the dump methods take the stream
/// by value, as GRDB's do.
private final class TextCollector: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
}

/// The text `dump` prints to a fresh collector.
private func printed(_ dump: (TextCollector) throws -> Void) rethrows -> String {
    let collector = TextCollector()
    try dump(collector)
    return collector.text
}

@Suite("Dumps of SQL, tables, schema and content, in every format")
struct DumpTests {
    /// A file database with a table of books, an index, a view, a trigger,
    /// and the migrations table.
    private func library(in directory: TemporaryDirectory) throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue(path: directory.file("library.sqlite"))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("books") { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("year", .integer)
            }
            try db.execute(sql: "INSERT INTO book (title, year) VALUES ('Dune', 1965), ('L''Étranger', 1942), ('Untitled', NULL)")
        }
        try migrator.migrate(dbQueue)
        return dbQueue
    }

    // MARK: Copies and migrations

    @Test("a migration tried on an in-memory copy: the quote dump shows the schema and rows, the file is unchanged")
    func migrationOnInMemoryCopy() throws {
        let directory = TemporaryDirectory()
        let source = try library(in: directory)
        let before = try printed { try source.dumpContent(format: .quote(), to: $0) }
        #expect(before == """
            sqlite_master
            CREATE TABLE "book" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "year" INTEGER);

            book
            1,'Dune',1965
            2,'L''Étranger',1942
            3,'Untitled',NULL

            """)

        var migrator = DatabaseMigrator()
        migrator.registerMigration("books") { _ in }
        migrator.registerMigration("authors") { db in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
            try db.execute(sql: "INSERT INTO author (name) VALUES ('Herbert')")
        }
        migrator.registerMigration("no years") { db in
            try db.execute(sql: "UPDATE book SET year = NULL")
        }
        let copy = try DatabaseQueue.inMemoryCopy(fromPath: source.path)
        try migrator.migrate(copy, upTo: "authors")
        #expect(try printed { try copy.dumpContent(format: .quote(), to: $0) } == """
            sqlite_master
            CREATE TABLE "author" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT);
            CREATE TABLE "book" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "year" INTEGER);

            author
            1,'Herbert'

            book
            1,'Dune',1965
            2,'L''Étranger',1942
            3,'Untitled',NULL

            """)
        try migrator.migrate(copy)
        #expect(try printed { try copy.dumpTables(["book"], format: .quote(), to: $0) } == """
            1,'Dune',NULL
            2,'L''Étranger',NULL
            3,'Untitled',NULL

            """)
        // The file the copy came from is as it was.
        #expect(try printed { try source.dumpContent(format: .quote(), to: $0) } == before)
    }

    @Test("a temporary copy is a writable file of its own; a read-only in-memory copy refuses writes")
    func temporaryAndReadOnlyCopies() throws {
        let directory = TemporaryDirectory()
        let source = try library(in: directory)
        let temporary = try DatabaseQueue.temporaryCopy(fromPath: source.path)
        try temporary.write { db in try db.execute(sql: "DELETE FROM book WHERE year IS NULL") }
        #expect(try printed { try temporary.dumpTables(["book"], format: .quote(header: true), to: $0) } == """
            'id','title','year'
            1,'Dune',1965
            2,'L''Étranger',1942

            """)
        #expect(try source.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") } == 3)

        var configuration = Configuration()
        configuration.readonly = true
        let readOnly = try DatabaseQueue.inMemoryCopy(fromPath: source.path, configuration: configuration)
        let error = #expect(throws: DatabaseError.self) {
            try readOnly.write { db in try db.execute(sql: "DELETE FROM book") }
        }
        #expect(error?.message == "attempt to write a readonly database")
        #expect(try printed { try readOnly.dumpTables(["book"], format: .list(), to: $0) }.split(separator: "\n").count == 3)
    }

    // MARK: Formats

    @Test("quote writes each value as SQLite's quote() does, reals included")
    func quoteMatchesSQLite() throws {
        let dbQueue = DatabaseQueue()
        var generator = SystemRandomNumberGenerator()
        var doubles: [Double] = [0, -0.0, 1, -1, 0.1, 1.0 / 3, 1e20, 1e-300, 1.5e300, 123456789012345680, .pi, .infinity, -.infinity,
                                 .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.30000000000000004]
        for _ in 0..<2000 {
            let double = Double(bitPattern: generator.next())
            if double.isFinite { doubles.append(double) }
        }
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE v(x)")
            for double in doubles { try db.execute(sql: "INSERT INTO v VALUES (?)", arguments: [double]) }
            try db.execute(sql: "INSERT INTO v VALUES (NULL), (42), (-9223372036854775808), ('it''s'), (x'00FF10'), ('')")
            let expected = try String.fetchAll(db, sql: "SELECT quote(x) FROM v ORDER BY rowid")
            let dumped = try printed { try db.dumpSQL("SELECT x FROM v ORDER BY rowid", format: .quote(), to: $0) }
            let lines = dumped.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.count == expected.count)
            let differences = zip(lines, expected).filter { $0 != $1 }
            #expect(differences.isEmpty, "dumped, quote(): \(differences.prefix(5))")
        }
    }

    @Test("debug, list and line print values as text; debug shows binary blobs as UUIDs or literals")
    func plainFormats() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE t(label, value);
                INSERT INTO t VALUES ('real', 2.5), ('null', NULL), ('text', 'a|b'), ('int', -7),
                    ('utf8 blob', CAST('été' AS BLOB)), ('uuid blob', x'0123456789ABCDEF0123456789ABCDEF'), ('binary blob', x'FF00');
                """)
            let sql: SQL = "SELECT label, value, 0 AS grdb_hidden FROM t ORDER BY rowid"
            #expect(try printed { try db.dumpSQL(sql, format: .debug(header: true, nullValue: "∅"), to: $0) } == """
                label|value
                real|2.5
                null|∅
                text|a|b
                int|-7
                utf8 blob|été
                uuid blob|01234567-89AB-CDEF-0123-456789ABCDEF
                binary blob|X'FF00'

                """)
            #expect(try printed { try db.dumpSQL("SELECT label, value FROM t WHERE rowid <= 3", format: .list(separator: ";"), to: $0) } == """
                real;2.5
                null;
                text;a|b

                """)
            #expect(try printed { try db.dumpSQL("SELECT label, value AS v FROM t WHERE rowid <= 2", format: .line(nullValue: "NULL"), to: $0) } == """
                label = real
                    v = 2.5

                label = null
                    v = NULL

                """)
            // No rows, no columns: nothing at all.
            #expect(try printed { try db.dumpSQL("SELECT * FROM t WHERE 0", format: .debug(header: true), to: $0) } == "")
        }
    }

    @Test("json: one array per statement, one object per line; [] for no rows; nothing for statements without columns")
    func jsonFormat() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            let script: SQL = """
                CREATE TABLE t(id INTEGER PRIMARY KEY, name, data);
                INSERT INTO t VALUES (1, 'a/b', x'0102'), (2, NULL, NULL);
                SELECT * FROM t ORDER BY id;
                SELECT name FROM t WHERE 0;
                """
            let compact = try printed { try db.dumpSQL(script, format: .json(), to: $0) }
            #expect(compact == """
                [{"id":1,"name":"a/b","data":"AQI="},
                {"id":2,"name":null,"data":null}]
                []

                """)
            let encoder = JSONDumpFormat.defaultEncoder
            encoder.outputFormatting = .prettyPrinted
            let pretty = try printed { try db.dumpSQL("SELECT id, 'x' AS id FROM t WHERE id = 1", format: .json(encoder: encoder), to: $0) }
            #expect(pretty == """
                [
                  {
                    "id":1,
                    "id":"x"
                  }
                ]

                """)
        }
    }

    // MARK: Tables, schema, content

    @Test("dumpTables: tables by primary key, views in a stable order on request, headers when asked or when several")
    func tablesAndViews() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE pair(a, b, PRIMARY KEY (b, a)) WITHOUT ROWID;
                INSERT INTO pair VALUES (1, 'y'), (2, 'x'), (0, 'y');
                CREATE TABLE plain(v);
                INSERT INTO plain(rowid, v) VALUES (3, 'c'), (1, 'a'), (2, 'b');
                CREATE VIEW reversed AS SELECT v FROM plain ORDER BY v DESC;
                """)
            #expect(try printed { try db.dumpTables(["pair"], to: $0) } == "2|x\n0|y\n1|y\n")
            #expect(try printed { try db.dumpTables(["plain", "pair"], format: .list(), to: $0) } == """
                plain
                a
                b
                c

                pair
                2|x
                0|y
                1|y

                """)
            #expect(try printed { try db.dumpTables(["reversed"], tableHeader: .always, to: $0) } == "reversed\nc\nb\na\n")
            #expect(try printed { try db.dumpTables(["reversed"], stableOrder: true, to: $0) } == "a\nb\nc\n")
            #expect(throws: DatabaseError.self) { try db.dumpTables(["missing"], to: TextCollector()) }
        }
    }

    @Test("dumpSchema and dumpContent leave out SQLite's, DatabaseKit's and shadow tables; objects grouped by table")
    func schemaAndContent() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try library(in: directory)
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE INDEX book_on_year ON book(year);
                CREATE VIEW old_book AS SELECT * FROM book WHERE year < 1950;
                CREATE TRIGGER old_book_insert INSTEAD OF INSERT ON old_book BEGIN SELECT 1; END;
                CREATE VIRTUAL TABLE search USING fts5(body);
                INSERT INTO search VALUES ('sand');
                """)
        }
        let schema = try printed { try dbQueue.dumpSchema(to: $0) }
        #expect(schema == """
            sqlite_master
            CREATE TABLE "book" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "year" INTEGER);
            CREATE INDEX book_on_year ON book(year);
            CREATE TRIGGER old_book_insert INSTEAD OF INSERT ON old_book BEGIN SELECT 1; END;
            CREATE VIEW old_book AS SELECT * FROM book WHERE year < 1950;
            CREATE VIRTUAL TABLE search USING fts5(body);

            """)
        let content = try printed { stream in try dbQueue.read { db in try db.dumpContent(to: stream) } }
        #expect(content == schema + """

            book
            1|Dune|1965
            2|L'Étranger|1942
            3|Untitled|

            search
            sand

            """)
    }

    @Test("dumpRequest prints the rows of an SQL request with its arguments")
    func request() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try library(in: directory)
        let request = SQLRequest<Row>(sql: "SELECT title FROM book WHERE year > ? ORDER BY year", arguments: [1950])
        #expect(try printed { try dbQueue.dumpRequest(request, format: .quote(), to: $0) } == "'Dune'\n")
    }
}
