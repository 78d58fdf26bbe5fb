import BenchSQLite
import DatabaseKit

// The floor of positional inserts: what GRDB's argument literal costs by
// itself. `statement.execute(arguments: [v0, ..., v9])` makes the caller build
// an array of ten `(any DatabaseValueConvertible)?` (the element type of
// GRDB's `ExpressibleByArrayLiteral` conformance), which the arguments receive
// and the runtime destroys after the call, value by value, through the
// generic witnesses of `Optional` and of the existential. No library that
// takes that literal can skip it, nor reading each value through its
// `databaseValue` witness. The floor is the raw C workload with its values
// going through such a literal, each bound as it is read: no storage, no
// check of the parameter count, no execution bookkeeping.

/// The argument floors, by the id of the workload whose raw C version they
/// extend.
let argumentFloors: [String: @Sendable (Fixtures) throws -> Outcome] = [
    "insert-positional": ArgumentFloors.insertPositional
]

enum ArgumentFloors {
    /// `RawWorkloads.insert(named: false)`, each row's values given as an
    /// argument literal.
    static func insertPositional(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("floor-insert")
        defer { Fixtures.removeDatabase(path) }
        let db = try RawConnection(path: path)
        try db.execute(RawWorkloads.createItem)
        let (_, seconds) = try measuredRegion {
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for row in 0..<Fixtures.insertRowCount {
                let base = row * 10
                let literal: ArgumentLiteral = [
                    base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9,
                ]
                try db.check(literal.bind(to: insert.handle))
                try insert.run()
            }
            try db.execute("COMMIT")
        }
        return Outcome(seconds: seconds, checksum: try RawWorkloads.sumOfItems(db))
    }
}

/// GRDB's argument literal, bound as it comes: value n to parameter n.
struct ArgumentLiteral: ExpressibleByArrayLiteral {
    let values: [(any DatabaseKit.DatabaseValueConvertible)?]

    init(arrayLiteral elements: (any DatabaseKit.DatabaseValueConvertible)?...) {
        values = elements
    }

    /// Binds each value, read in place (reading `value?.databaseValue` from
    /// the array would copy each optional existential first), and returns
    /// SQLite's first failure, or `SQLITE_OK`.
    @inline(never)
    func bind(to statement: OpaquePointer) -> CInt {
        values.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return SQLITE_OK }
            // Read only: see `readDatabaseValue(into:)`.
            let elements = UnsafeMutablePointer(mutating: base)
            for index in 0..<buffer.count {
                var value = DatabaseValue.null
                elements[index]?.readDatabaseValue(into: &value)
                let parameter = CInt(index + 1)
                let code: CInt
                switch value.storage {
                case .null: code = sqlite3_bind_null(statement, parameter)
                case .int64(let int64): code = sqlite3_bind_int64(statement, parameter, int64)
                case .double(let double): code = sqlite3_bind_double(statement, parameter, double)
                default: return SQLITE_MISMATCH  // the workload binds integers only
                }
                if code != SQLITE_OK { return code }
            }
            return SQLITE_OK
        }
    }
}

extension DatabaseKit.DatabaseValueConvertible {
    /// Stores ``databaseValue`` in `value`. Mutating, though it changes
    /// nothing, so that optional chaining opens an existential where it lies.
    @inline(__always)
    fileprivate mutating func readDatabaseValue(into value: inout DatabaseValue) {
        value = databaseValue
    }
}
