/// The column values of a record, in the order the record encodes them:
/// what ``EncodableRecord/encode(to:)`` fills and the persistence methods
/// write. Column names are case-insensitive, as in SQLite.
public struct PersistenceContainer: Sendable {
    /// The column names, in encoding order.
    public var columns: [String] {
        if let predictedCount, predictedCount != storedColumns.count { return Array(storedColumns[..<predictedCount]) }
        return storedColumns
    }

    /// The values, aligned with ``columns``.
    public private(set) var databaseValues: [DatabaseValue] = []

    /// The columns, or, while ``predictedCount`` is set, the columns the
    /// previous record of the same table encoded: records of one type
    /// encode the same columns in the same order, and a container that
    /// follows the prediction builds no array of names, looks up no name
    /// (a name the previous container held once can not repeat an earlier
    /// one), and hands the record statement cache the very array its last
    /// key holds.
    private var storedColumns: [String] = []

    /// How many of the predicted columns were set, in order; nil once a
    /// set column strays from the prediction, or without one.
    private var predictedCount: Int?

    /// An empty container.
    public init() {
        storedColumns.reserveCapacity(8)
        databaseValues.reserveCapacity(8)
    }

    /// An empty container that reserves nothing: what an encoder holds
    /// between two records.
    init(unreserved: ()) {}

    /// True when the container holds exactly the columns it was predicted
    /// to hold.
    var followedPrediction: Bool {
        predictedCount == storedColumns.count
    }

    /// An empty container that expects the columns of the previous record
    /// of the same table, in their order.
    ///
    /// `values` is empty, and may have capacity (a spare buffer); otherwise
    /// the values are reserved by the first one set.
    init(predictedColumns: [String], values: [DatabaseValue]) {
        storedColumns = predictedColumns
        predictedCount = 0
        databaseValues = values
    }

    /// A copy for an encoder to fill. When this container has no value,
    /// it stops sharing its (empty) buffer of values with the copy, which
    /// then appends in place rather than copying the buffer first.
    mutating func copyForEncoding() -> PersistenceContainer {
        let copy = self
        if databaseValues.isEmpty { databaseValues = [] }
        return copy
    }

    /// The value of a column, as a ``DatabaseValue``, nil when the column is
    /// absent; setting appends the column, or replaces its value. The getter
    /// returns a value that is stored identically, not necessarily the value
    /// that was set.
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get { index(of: column).map { databaseValues[$0] } }
        set {
            // Read in place: `newValue?.databaseValue` would copy the optional
            // existential first (see `databaseValue(inPlace:)`).
            let value = withUnsafePointer(to: newValue) { pointer in
                DatabaseKit.databaseValue(inPlace: &UnsafeMutablePointer(mutating: pointer).pointee)
            }
            setValue(value, forColumn: column)
        }
    }

    /// The value of a column; see ``subscript(_:)-(String)``.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        get { self[column.name] }
        set { self[column.name] = newValue }
    }

    /// The stored value of a column, nil when the column is absent.
    public func databaseValue(forColumn column: String) -> DatabaseValue? {
        index(of: column).map { databaseValues[$0] }
    }

    /// Sets the value of a column, appending the column when it is new.
    public mutating func setValue(_ value: DatabaseValue, forColumn column: String) {
        if let predictedCount {
            if predictedCount < storedColumns.count && storedColumns[predictedCount] == column {
                self.predictedCount = predictedCount + 1
                if predictedCount == 0 { databaseValues.reserveCapacity(storedColumns.count) }
                databaseValues.append(value)
                return
            }
            // Not the predicted column: the container owns its names from now on.
            storedColumns = Array(storedColumns[..<predictedCount])
            self.predictedCount = nil
        }
        if let index = index(of: column) {
            databaseValues[index] = value
        } else {
            storedColumns.append(column)
            databaseValues.append(value)
        }
    }

    /// The position of a column: an exact match first, the usual case, then a
    /// case-insensitive one, as SQLite compares identifiers (ASCII letters
    /// only), without allocating.
    ///
    /// One pass, and only names of the same UTF-8 length are compared: an
    /// encoding sets columns that are all new, whose names mostly differ in
    /// length (a string comparison that fails costs more than the count).
    func index(of column: String) -> Int? {
        let count = column.utf8.count
        var caseInsensitiveMatch: Int?
        let columnCount = databaseValues.count
        for index in 0..<columnCount where storedColumns[index].utf8.count == count {
            if storedColumns[index] == column { return index }
            if caseInsensitiveMatch == nil && identifiersAreEqual(storedColumns[index], column) {
                caseInsensitiveMatch = index
            }
        }
        return caseInsensitiveMatch
    }

    /// The columns whose value differs in `other` (a column `other` lacks
    /// compares as NULL), with the values of `other`, in column order.
    func changes(from other: PersistenceContainer) -> [(String, DatabaseValue)] {
        var changes: [(String, DatabaseValue)] = []
        for (column, value) in zip(storedColumns, databaseValues) {
            let otherValue = other.databaseValue(forColumn: column) ?? .null
            if otherValue != value { changes.append((column, otherValue)) }
        }
        return changes
    }
}

extension PersistenceContainer: RandomAccessCollection {
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { databaseValues.count }

    /// The column and the value at `position`.
    public subscript(position: Int) -> (String, DatabaseValue) {
        (storedColumns[position], databaseValues[position])
    }
}

/// True when two identifiers are equal for SQLite: ASCII letters compare
/// case-insensitively, other characters exactly.
func identifiersAreEqual(_ lhs: String, _ rhs: String) -> Bool {
    // Most different names differ from their first byte: decided without
    // the byte loop.
    if let a = lhs.utf8.first, let b = rhs.utf8.first, a != b, a | 0x20 != b | 0x20 { return false }
    var lhs = lhs
    var rhs = rhs
    return lhs.withUTF8 { lhs in
        rhs.withUTF8 { rhs in
            guard lhs.count == rhs.count else { return false }
            for index in 0..<lhs.count {
                let a = lhs[index]
                let b = rhs[index]
                if a == b { continue }
                // 0x20 is the only bit that differs between an ASCII upper- and lowercase letter.
                guard a | 0x20 == b | 0x20, (0x61...0x7A).contains(a | 0x20) else { return false }
            }
            return true
        }
    }
}
