import BenchSQLite
import DatabaseKit
import Foundation
import GRDB

// The association workloads: a to-many prefetch and a to-one join, against
// the hand-written queries and decoding of the raw C API.

extension Fixtures {
    /// 1,000 authors of 10 books each.
    var libraryPath: String { directory + "/library.sqlite" }
    static let authorCount = 1_000
    static let booksPerAuthor = 10
    static let associationRuns = 20

    /// The sum of the books' years, once per run.
    static var libraryChecksum: Int64 {
        let years = (1...(authorCount * booksPerAuthor)).reduce(Int64(0)) { $0 + Int64(1800 + $1 % 200) }
        return Int64(associationRuns) * years
    }

    /// Creates the library database on first use.
    func prepareLibrary() throws {
        if FileManager.default.fileExists(atPath: libraryPath) { return }
        let temporary = libraryPath + ".tmp"
        Fixtures.removeDatabase(temporary)
        let db = try RawConnection(path: temporary)
        try db.execute(
            """
            CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
            CREATE INDEX book_authorId ON book(authorId);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Fixtures.authorCount))
            INSERT INTO author SELECT i, 'author ' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Fixtures.authorCount * Fixtures.booksPerAuthor))
            INSERT INTO book SELECT i, (i - 1) % \(Fixtures.authorCount) + 1, 'book ' || i, 1800 + i % 200 FROM n;
            """)
        try FileManager.default.moveItem(atPath: temporary, toPath: libraryPath)
    }
}

struct RawAuthor { var id: Int64; var name: String }
struct RawBook { var id: Int64; var authorId: Int64; var title: String; var year: Int }

extension RawWorkloads {
    static func book(_ s: OpaquePointer, from column: CInt) -> RawBook {
        RawBook(
            id: sqlite3_column_int64(s, column), authorId: sqlite3_column_int64(s, column + 1),
            title: String(cString: sqlite3_column_text(s, column + 2)), year: Int(sqlite3_column_int64(s, column + 3)))
    }

    /// `SELECT * FROM author`, then the books of those authors, grouped.
    static func prefetchBooks(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let db = try RawConnection(path: fixtures.libraryPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            var sum: Int64 = 0
            for _ in 0..<Fixtures.associationRuns {
                let authorQuery = try db.prepare("SELECT * FROM author")
                var authors: [RawAuthor] = []
                while try authorQuery.step() {
                    let s = authorQuery.handle
                    authors.append(RawAuthor(id: sqlite3_column_int64(s, 0), name: String(cString: sqlite3_column_text(s, 1))))
                }
                let marks = Array(repeating: "?", count: authors.count).joined(separator: ", ")
                let bookQuery = try db.prepare("SELECT * FROM book WHERE authorId IN (\(marks))")
                for (index, author) in authors.enumerated() { try bookQuery.bind(author.id, at: CInt(index + 1)) }
                var books: [Int64: [RawBook]] = [:]
                while try bookQuery.step() {
                    let book = book(bookQuery.handle, from: 0)
                    books[book.authorId, default: []].append(book)
                }
                let infos = authors.map { (author: $0, books: books[$0.id] ?? []) }
                for info in infos { sum &+= info.books.reduce(0) { $0 + Int64($1.year) } }
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// The books joined to their authors, both decoded.
    static func joinAuthors(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let db = try RawConnection(path: fixtures.libraryPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            var sum: Int64 = 0
            for _ in 0..<Fixtures.associationRuns {
                let query = try db.prepare("SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId")
                var infos: [(book: RawBook, author: RawAuthor)] = []
                while try query.step() {
                    let s = query.handle
                    infos.append(
                        (book(s, from: 0), RawAuthor(id: sqlite3_column_int64(s, 4), name: String(cString: sqlite3_column_text(s, 5)))))
                }
                sum &+= infos.reduce(0) { $0 + Int64($1.book.year) }
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

// MARK: DatabaseKit

struct DKAuthor: DatabaseKit.FetchableRecord, DatabaseKit.TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(DKBook.self)
    var id: Int64
    var name: String
    init(row: DatabaseKit.Row) {
        id = row["id"]
        name = row["name"]
    }
}

struct DKBook: DatabaseKit.FetchableRecord, DatabaseKit.TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(DKAuthor.self)
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int
    init(row: DatabaseKit.Row) {
        id = row["id"]
        authorId = row["authorId"]
        title = row["title"]
        year = row["year"]
    }
}

struct DKAuthorInfo: DatabaseKit.FetchableRecord {
    var author: DKAuthor
    var books: [DKBook]
    init(row: DatabaseKit.Row) {
        author = DKAuthor(row: row)
        books = row["books"]
    }
}

struct DKBookInfo: DatabaseKit.FetchableRecord {
    var book: DKBook
    var author: DKAuthor
    init(row: DatabaseKit.Row) {
        book = DKBook(row: row)
        author = row["author"]
    }
}

extension DatabaseKitWorkloads {
    static func prefetchBooks(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let dbQueue = try DatabaseKit.DatabaseQueue(path: fixtures.libraryPath)
        return try dbQueue.read { db in
            let (sum, seconds) = try measuredRegion { () throws -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.associationRuns {
                    let infos = try DKAuthor.including(all: DKAuthor.books).asRequest(of: DKAuthorInfo.self).fetchAll(db)
                    for info in infos { sum &+= info.books.reduce(0) { $0 + Int64($1.year) } }
                }
                return sum
            }
            return Outcome(seconds: seconds, checksum: sum)
        }
    }

    static func joinAuthors(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let dbQueue = try DatabaseKit.DatabaseQueue(path: fixtures.libraryPath)
        return try dbQueue.read { db in
            let (sum, seconds) = try measuredRegion { () throws -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.associationRuns {
                    let infos = try DKBook.including(required: DKBook.author).asRequest(of: DKBookInfo.self).fetchAll(db)
                    sum &+= infos.reduce(0) { $0 + Int64($1.book.year) }
                }
                return sum
            }
            return Outcome(seconds: seconds, checksum: sum)
        }
    }
}

// MARK: GRDB

struct GRDBAuthor: GRDB.FetchableRecord, GRDB.TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(GRDBBook.self)
    var id: Int64
    var name: String
    init(row: GRDB.Row) {
        id = row["id"]
        name = row["name"]
    }
}

struct GRDBBook: GRDB.FetchableRecord, GRDB.TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(GRDBAuthor.self)
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int
    init(row: GRDB.Row) {
        id = row["id"]
        authorId = row["authorId"]
        title = row["title"]
        year = row["year"]
    }
}

struct GRDBAuthorInfo: GRDB.FetchableRecord {
    var author: GRDBAuthor
    var books: [GRDBBook]
    init(row: GRDB.Row) {
        author = GRDBAuthor(row: row)
        books = row["books"]
    }
}

struct GRDBBookInfo: GRDB.FetchableRecord {
    var book: GRDBBook
    var author: GRDBAuthor
    init(row: GRDB.Row) {
        book = GRDBBook(row: row)
        author = row["author"]
    }
}

extension GRDBWorkloads {
    static func prefetchBooks(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let dbQueue = try GRDB.DatabaseQueue(path: fixtures.libraryPath)
        return try dbQueue.read { db in
            let (sum, seconds) = try measuredRegion { () throws -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.associationRuns {
                    let infos = try GRDBAuthor.including(all: GRDBAuthor.books).asRequest(of: GRDBAuthorInfo.self).fetchAll(db)
                    for info in infos { sum &+= info.books.reduce(0) { $0 + Int64($1.year) } }
                }
                return sum
            }
            return Outcome(seconds: seconds, checksum: sum)
        }
    }

    static func joinAuthors(_ fixtures: Fixtures) throws -> Outcome {
        try fixtures.prepareLibrary()
        let dbQueue = try GRDB.DatabaseQueue(path: fixtures.libraryPath)
        return try dbQueue.read { db in
            let (sum, seconds) = try measuredRegion { () throws -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.associationRuns {
                    let infos = try GRDBBook.including(required: GRDBBook.author).asRequest(of: GRDBBookInfo.self).fetchAll(db)
                    sum &+= infos.reduce(0) { $0 + Int64($1.book.year) }
                }
                return sum
            }
            return Outcome(seconds: seconds, checksum: sum)
        }
    }
}

let associationWorkloads: [Workload] = [
    Workload(
        id: "assoc-prefetch", title: "19. 20 x Author.including(all: Author.books).fetchAll(db), 1,000 authors, 10,000 books",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.libraryChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.prefetchBooks(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.prefetchBooks(fixtures)
            case .grdb: return try GRDBWorkloads.prefetchBooks(fixtures)
            case .sqliteNIO: return nil  // no associations
            }
        }),
    Workload(
        id: "assoc-join", title: "20. 20 x Book.including(required: Book.author).fetchAll(db), 10,000 books",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.libraryChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.joinAuthors(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.joinAuthors(fixtures)
            case .grdb: return try GRDBWorkloads.joinAuthors(fixtures)
            case .sqliteNIO: return nil  // no associations
            }
        }),
]
