import GRDB
import Testing

/// An application's own `Database` type, as many GRDB apps have: GRDB's is
/// then spelled `GRDB.Database`, which must compile unchanged.
struct Database {
    let queue: DatabaseQueue

    init() throws {
        queue = DatabaseQueue()
        try queue.write { (db: GRDB.Database) in
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("text", .text).notNull()
            }
        }
    }

    func add(_ text: String) throws {
        try queue.write { (db: GRDB.Database) in try Note(text: text).insert(db) }
    }

    func texts() throws -> [String] {
        try queue.read { (db: GRDB.Database) in try Note.order(GRDB.Column("id")).fetchAll(db).map(\.text) }
    }
}

struct Note: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var text: String

    init(text: String) { self.text = text }
}

@Suite("The GRDB module: code written for GRDB compiles with `import GRDB`")
struct GRDBModuleTests {
    @Test("GRDB.Database, GRDB.Column and the query interface resolve to DatabaseKit's")
    func qualifiedNames() throws {
        let database = try Database()
        try database.add("first")
        try database.add("second")
        #expect(try database.texts() == ["first", "second"])
        let error: GRDB.DatabaseError? = nil
        #expect(error == nil)
    }
}
