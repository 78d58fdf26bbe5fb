internal import DatabaseKitSQLite

/// The values of statement arguments, stored for binding.
///
/// Arguments are built, bound and dropped once per execution, so their
/// storage is chosen for that: numbers and NULL sit in an array of plain
/// words, which costs nothing to copy or destroy, and only texts and blobs,
/// which hold references, go to a side array (nil for the usual all-numbers
/// arguments, so that copying the arguments retains one buffer). An array of
/// ``DatabaseValue`` would make the runtime destroy each value in turn
/// through its witnesses.
struct ArgumentValues: Sendable {
    /// A value, or where to find it among the references.
    enum Slot: Sendable {
        case null
        case int64(Int64)
        case double(Double)
        /// A text or a blob: its position in `references`.
        case reference(Int)
    }

    private(set) var slots: [Slot] = []

    /// The texts and blobs, in the order of their slots; nil when there is
    /// none. Every `.reference` slot points into it: the forced unwraps
    /// below rely on that.
    private var references: [DatabaseValue]?

    init() {}

    init(_ values: some Sequence<DatabaseValue>) {
        slots.reserveCapacity(values.underestimatedCount)
        for value in values { append(value) }
    }

    init(minimumCapacity: Int) {
        slots.reserveCapacity(minimumCapacity)
    }

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// Appends a value.
    @inline(__always)
    mutating func append(_ value: DatabaseValue) {
        switch value.storage {
        case .null: slots.append(.null)
        case .int64(let int64): slots.append(.int64(int64))
        case .double(let double): slots.append(.double(double))
        case .string, .blob:
            if references == nil { references = [] }
            slots.append(.reference(references!.count))
            references!.append(value)
        }
    }

    /// Appends the values of `other`.
    mutating func append(contentsOf other: ArgumentValues) {
        guard other.references != nil else {
            slots.append(contentsOf: other.slots)
            return
        }
        slots.reserveCapacity(slots.count + other.count)
        for index in other.slots.indices { append(other[index]) }
    }

    /// The value at `index`.
    subscript(index: Int) -> DatabaseValue {
        switch slots[index] {
        case .null: return .null
        case .int64(let int64): return DatabaseValue(storage: .int64(int64))
        case .double(let double): return DatabaseValue(storage: .double(double))
        case .reference(let position): return references![position]
        }
    }

    /// The values, in order.
    var databaseValues: [DatabaseValue] {
        slots.indices.map { self[$0] }
    }

    /// Binds the value at `index` to the 1-based `parameter`, and returns
    /// SQLite's result code.
    @inline(__always)
    func bind(_ index: Int, to sqliteStatement: OpaquePointer, at parameter: CInt) -> CInt {
        switch slots[index] {
        case .null: return sqlite3_bind_null(sqliteStatement, parameter)
        case .int64(let int64): return sqlite3_bind_int64(sqliteStatement, parameter, int64)
        case .double(let double): return sqlite3_bind_double(sqliteStatement, parameter, double)
        case .reference(let position): return references![position].bindInline(to: sqliteStatement, at: parameter)
        }
    }
}
