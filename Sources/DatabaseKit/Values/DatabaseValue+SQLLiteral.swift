import FoundationEssentials

extension DatabaseValue {
    /// The value as an SQL literal, for the places where SQLite accepts no
    /// parameter, such as `DEFAULT` clauses: `NULL`, `42`, `1.5`, `'O''Brien'`,
    /// `X'00FF'`.
    public var sqlLiteral: String {
        switch storage {
        case .null:
            return "NULL"
        case .int64(let int64):
            return String(int64)
        case .double(let double):
            if double.isNaN { return "NULL" }  // SQLite stores NaN as NULL
            if double.isInfinite { return double < 0 ? "-9e999" : "9e999" }
            return "\(double)"  // the shortest text that reads back the same double
        case .string(let string):
            return "'" + string.replacing("'", with: "''") + "'"
        case .blob(let data):
            let hexDigits = Array("0123456789ABCDEF".utf8)
            var hex = [UInt8]()
            hex.reserveCapacity(data.count * 2)
            for byte in data {
                hex.append(hexDigits[Int(byte >> 4)])
                hex.append(hexDigits[Int(byte & 0x0F)])
            }
            return "X'" + String(decoding: hex, as: UTF8.self) + "'"
        }
    }
}
