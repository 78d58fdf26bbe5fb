import Foundation

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
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
