internal import DatabaseKitSQLite
import FoundationEssentials

extension Row {
    /// Calls `body` with the BLOB (or TEXT bytes) at `index` without copying
    /// it out of SQLite, or with nil for NULL.
    ///
    /// The `Data` is only valid during the call, and only for a row that reads
    /// a statement (a cursor's row): do not keep it, copy it (`Data(data)`)
    /// instead. For a copied row, `body` gets the stored value.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT image FROM photo")
    /// while let row = try rows.next() {
    ///     try row.withUnsafeData(atIndex: 0) { data in hash(data) }
    /// }
    /// ```
    public func withUnsafeData<T>(atIndex index: Int, _ body: (Data?) throws -> T) throws -> T {
        checkIndex(index)
        if let adaptation {
            return try adaptation.base.withUnsafeData(atIndex: adaptation.layout.baseIndexes[index], body)
        }
        guard let sqliteStatement else {
            let dbValue = databaseValue(atIndex: index)
            if dbValue.isNull { return try body(nil) }
            return try body(try decode(Data.self, atIndex: index))
        }
        let column = CInt(index)
        switch sqlite3_column_type(sqliteStatement, column) {
        case SQLITE_NULL:
            return try body(nil)
        case SQLITE_BLOB, SQLITE_TEXT:
            // sqlite3_column_blob first, then _bytes: the documented safe order.
            let bytes = sqlite3_column_blob(sqliteStatement, column)
            let length = Int(sqlite3_column_bytes(sqliteStatement, column))
            guard let bytes, length > 0 else { return try body(Data()) }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: length, deallocator: .none)
            return try body(data)
        default:
            return try body(try decode(Data.self, atIndex: index))
        }
    }

    /// Calls `body` with the BLOB of the named column without copying it;
    /// see ``withUnsafeData(atIndex:_:)``. A missing column gives nil.
    public func withUnsafeData<T>(named columnName: String, _ body: (Data?) throws -> T) throws -> T {
        guard let index = index(forColumn: columnName) else { return try body(nil) }
        return try withUnsafeData(atIndex: index, body)
    }

    /// Calls `body` with the BLOB of the column without copying it; see
    /// ``withUnsafeData(atIndex:_:)``.
    public func withUnsafeData<T>(at column: some ColumnExpression, _ body: (Data?) throws -> T) throws -> T {
        try withUnsafeData(named: column.name, body)
    }

    /// The BLOB at `index` without a copy, valid until the cursor moves; nil
    /// for NULL. Prefer ``withUnsafeData(atIndex:_:)``, whose scope makes
    /// the lifetime explicit.
    public func dataNoCopy(atIndex index: Int) -> Data? {
        do { return try withUnsafeData(atIndex: index) { $0 } } catch { fatalError("\(error)") }
    }

    /// The BLOB of the named column without a copy; see ``dataNoCopy(atIndex:)``.
    public func dataNoCopy(named columnName: String) -> Data? {
        guard let index = index(forColumn: columnName) else { return nil }
        return dataNoCopy(atIndex: index)
    }

    /// The BLOB of the column without a copy; see ``dataNoCopy(atIndex:)``.
    public func dataNoCopy(_ column: some ColumnExpression) -> Data? {
        dataNoCopy(named: column.name)
    }
}
