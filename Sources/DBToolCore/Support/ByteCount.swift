import FoundationEssentials

/// Sizes as dbtool prints them: "1.5 GiB", "12.0 MiB", "512 B".
public enum ByteCount {
    /// `bytes` in the largest binary unit that keeps the value at 1 or more, to one decimal.
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : Decimals.text(value, places: 1) + " " + units[unit]
    }

    /// The bytes `text` names: a whole number with an optional unit, `512`,
    /// `64KiB`, `256MiB`, `1GiB` (KB, MB, GB and K, M, G mean the same
    /// binary units); nil when it names none.
    public static func parse(_ text: String) -> Int64? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int64(digits) else { return nil }
        let unit = text.dropFirst(digits.count).trimmingSpaces().uppercased()
        let shifts: [String: Int64] = [
            "": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30,
        ]
        guard let shift = shifts[unit], value <= Int64.max >> shift else { return nil }
        return value << shift
    }
}
