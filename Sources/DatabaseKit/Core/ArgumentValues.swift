internal import DatabaseKitSQLite

/// The values of statement arguments, stored for binding.
///
/// Arguments are built, bound and dropped once per execution, so their
/// storage is chosen for that. Values converted one by one (literals,
/// sequences) are stored as slots: numbers and NULL in an array of plain
/// words, which costs nothing to copy or destroy, and only texts and blobs,
/// which hold references, in a side array (nil for the usual all-numbers
/// arguments, so that copying the arguments retains one buffer). An array of
/// ``DatabaseValue`` would make the runtime destroy each value in turn
/// through its witnesses. The slots of an argument literal go into the
/// buffer the statement's previous arguments left (see
/// ``SpareArgumentSlots``), so that a loop of executions allocates none.
/// Values that already are such an array (a record's columns) are kept as
/// they are: converting them would cost more than binding them.
struct ArgumentValues: Sendable {
    /// A value, or where to find it among the references.
    enum Slot: Sendable {
        case null
        case int64(Int64)
        case double(Double)
        /// A text or a blob: its position in `references`.
        case reference(Int)
    }

    /// The slots, in order; empty when the values are kept as an array.
    private var slots: [Slot] = []

    /// With slots, the texts and blobs in the order of their slots (every
    /// `.reference` slot points into it, which the forced unwraps below rely
    /// on), and nil when there is none. Without slots, every value, or nil
    /// when there is none.
    private var references: [DatabaseValue]?

    /// True when the values are kept as an array, in `references`.
    private var isArray: Bool { slots.isEmpty && references != nil }

    init() {}

    /// Values converted one by one.
    init(_ values: some Sequence<DatabaseValue>) {
        slots.reserveCapacity(values.underestimatedCount)
        for value in values { append(value) }
    }

    /// Values kept as they are.
    init(databaseValues: [DatabaseValue]) {
        references = databaseValues.isEmpty ? nil : databaseValues
    }

    /// The values kept as an array, moved out of these values, which are
    /// left empty; nil when the values are slots.
    mutating func takeArray() -> [DatabaseValue]? {
        guard isArray else { return nil }
        let array = references
        references = nil
        return array
    }

    init(minimumCapacity: Int) {
        slots.reserveCapacity(minimumCapacity)
    }

    /// The values of an argument literal, each read in place (see
    /// `databaseValue(inPlace:)`) and written into the spare buffer of slots
    /// (see ``SpareArgumentSlots``).
    init(convertingInPlace elements: UnsafeMutableBufferPointer<(any DatabaseValueConvertible)?>) {
        let count = elements.count
        if count == 0 { return }
        SpareArgumentSlots.shared.swap(&slots)
        if slots.count != count {
            slots.removeAll(keepingCapacity: true)
            slots.append(contentsOf: repeatElement(.null, count: count))
        }
        // The mapping of `append(_:)`, written out: through a shared helper,
        // each value was destroyed by an outlined call (positional inserts
        // 354.5 M -> 361.5 M instructions).
        var references: [DatabaseValue]?
        slots.withUnsafeMutableBufferPointer { slots in
            for index in 0..<count {
                let value = databaseValue(inPlace: &elements[index])
                switch value.storage {
                case .null: slots[index] = .null
                case .int64(let int64): slots[index] = .int64(int64)
                case .double(let double): slots[index] = .double(double)
                case .string, .blob:
                    if references == nil { references = [] }
                    slots[index] = .reference(references!.count)
                    references!.append(value)
                }
            }
        }
        self.references = references
    }

    /// Leaves the buffer of slots to the next argument literal (see
    /// ``SpareArgumentSlots``), when these values have slots and their
    /// buffer is not too large to keep. For values about to be dropped.
    mutating func leaveSpareSlots() {
        if slots.isEmpty || slots.capacity > SpareArgumentSlots.maximumCapacity { return }
        SpareArgumentSlots.shared.swap(&slots)
    }

    var count: Int { isArray ? references!.count : slots.count }
    var isEmpty: Bool { count == 0 }

    /// Appends a value.
    @inline(__always)
    mutating func append(_ value: DatabaseValue) {
        if isArray {
            references!.append(value)
            return
        }
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
        if !isArray && !other.isArray && other.references == nil {
            slots.append(contentsOf: other.slots)
            return
        }
        for index in 0..<other.count { append(other[index]) }
    }

    /// The value at `index`.
    subscript(index: Int) -> DatabaseValue {
        if isArray { return references![index] }
        switch slots[index] {
        case .null: return .null
        case .int64(let int64): return DatabaseValue(storage: .int64(int64))
        case .double(let double): return DatabaseValue(storage: .double(double))
        case .reference(let position): return references![position]
        }
    }

    /// The values, in order.
    var databaseValues: [DatabaseValue] {
        if isArray { return references! }
        return slots.indices.map { self[$0] }
    }

    /// Binds the values to the parameters 1, 2, ... in order, and returns
    /// SQLite's result code: that of the first failure, or `SQLITE_OK`.
    func bindAll(to sqliteStatement: OpaquePointer) -> CInt {
        if let references, slots.isEmpty {
            for index in references.indices {
                let code = references[index].bindInline(to: sqliteStatement, at: CInt(truncatingIfNeeded: index + 1))
                if code != SQLITE_OK { return code }
            }
            return SQLITE_OK
        }
        for index in slots.indices {
            let parameter = CInt(truncatingIfNeeded: index + 1)
            let code: CInt
            switch slots[index] {
            case .null: code = sqlite3_bind_null(sqliteStatement, parameter)
            case .int64(let int64): code = sqlite3_bind_int64(sqliteStatement, parameter, int64)
            case .double(let double): code = sqlite3_bind_double(sqliteStatement, parameter, double)
            case .reference(let position): code = references![position].bindInline(to: sqliteStatement, at: parameter)
            }
            if code != SQLITE_OK { return code }
        }
        return SQLITE_OK
    }
}
