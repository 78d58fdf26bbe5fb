/// Durations as Go writes them and Litestream's configuration takes them:
/// `200ms`, `1s`, `30m`, `24h`, `1h30m` (units ns, us, µs, ms, s, m, h).
enum GoDuration {
    /// The seconds `text` names; nil when it is not a Go duration. A bare
    /// number other than 0 is refused: Go would read it as nanoseconds,
    /// which no one means.
    static func seconds(_ text: String) -> Double? {
        if text == "0" { return 0 }
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var rest = Substring(text)
        var total = 0.0
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            // The longest unit first: "ms" before "m", "ns" before "s".
            guard let (unit, scale) = units.sorted(by: { $0.0.count > $1.0.count }).first(where: { rest.hasPrefix($0.0) }) else {
                return nil
            }
            rest = rest.dropFirst(unit.count)
            total += value * scale
        }
        return total
    }
}
