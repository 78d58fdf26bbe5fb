// Trimming, padding and numbers without Foundation's CharacterSet,
// `padding(toLength:)` and `String(format:)`, which come with the part of
// Foundation that links ICU.

extension StringProtocol {
    /// The text without the spaces and tabs at either end (what Foundation's
    /// `.whitespaces` trims: Unicode horizontal whitespace, not line breaks).
    package func trimmingSpaces() -> String {
        trimming(where: { $0.isWhitespace && !$0.isNewline })
    }

    /// The text without whitespace or line breaks at either end.
    package func trimmingWhitespace() -> String {
        trimming(where: { $0.isWhitespace })
    }

    /// The text without the `characters` at either end.
    package func trimming(_ characters: Character...) -> String {
        trimming(where: { characters.contains($0) })
    }

    /// The text without the characters at either end for which `isTrimmed` holds.
    package func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension StringProtocol {
    /// The text followed by spaces up to `width` characters; a longer text
    /// is cut to `width`, as Foundation's `padding(toLength:)` does.
    package func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}

/// Numbers as `printf` would write them with `%.Nf` and `%0NX`.
package enum Decimals {
    /// `value` with `places` digits after the point, rounded half away from
    /// zero: `text(2.25, places: 1)` is `"2.3"`.
    package static func text(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        let sign = value < 0 && units > 0 ? "-" : ""
        guard places > 0 else { return sign + String(units) }
        let fraction = String(units % divisor)
        return sign + String(units / divisor) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `value` in hexadecimal, zero-padded to `width` digits.
    package static func hex(_ value: some BinaryInteger, width: Int, uppercase: Bool = false) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
