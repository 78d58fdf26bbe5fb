import FoundationEssentials

/// The names of a series of files written at different times:
/// `<stem>-<yyyyMMdd>T<HHmmss>.<mmm>Z.<extension>`, in UTC, to the
/// millisecond, so that names sort by time. Names to the second
/// (`...T<HHmmss>Z...`, written by snapshots before 0.4) still belong to
/// the series.
struct TimestampedName: Equatable {
    let stem: String
    /// Without the leading dot (`sqlite`, `tar.zst`).
    let fileExtension: String
    /// The extensions of the series: a backup's archives are one series
    /// whatever their format.
    var seriesExtensions: [String]

    init(stem: String, fileExtension: String, seriesExtensions: [String]? = nil) {
        self.stem = stem
        self.fileExtension = fileExtension
        self.seriesExtensions = seriesExtensions ?? [fileExtension]
    }

    /// The name of the file written at `date`.
    func name(at date: Date) -> String {
        "\(stem)-\(Self.timestamp(date)).\(fileExtension)"
    }

    /// `yyyyMMdd'T'HHmmss.SSS'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        func digits(_ value: Int?, _ count: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2) + "T" + digits(parts.hour, 2)
            + digits(parts.minute, 2) + digits(parts.second, 2) + "." + digits((milliseconds + 1000) % 1000, 3) + "Z"
    }

    /// The sortable timestamp of a name of the series (`yyyyMMddHHmmssSSS`),
    /// or nil for any other name.
    func timestamp(of name: String) -> String? {
        let prefix = stem + "-"
        // The longest matching extension: `.tar.gz` rather than `.gz`.
        let suffixes = seriesExtensions.map { "." + $0 }.filter { name.hasSuffix($0) }
        guard name.hasPrefix(prefix), let suffix = suffixes.max(by: { $0.count < $1.count }),
            name.count > prefix.count + suffix.count
        else { return nil }
        let middle = Array(name.dropFirst(prefix.count).dropLast(suffix.count).utf8)
        // yyyyMMdd T HHmmss [.SSS] Z
        guard middle.count == 16 || middle.count == 20, middle[8] == UInt8(ascii: "T"), middle.last == UInt8(ascii: "Z") else {
            return nil
        }
        let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        let date = middle[0..<8], time = middle[9..<15]
        guard date.allSatisfy(isDigit), time.allSatisfy(isDigit) else { return nil }
        var milliseconds: ArraySlice<UInt8> = Array("000".utf8)[...]
        if middle.count == 20 {
            guard middle[15] == UInt8(ascii: "."), middle[16..<19].allSatisfy(isDigit) else { return nil }
            milliseconds = middle[16..<19]
        }
        return String(decoding: date + time + milliseconds, as: UTF8.self)
    }
}

extension TimestampedName {
    /// The date of a sortable timestamp (`yyyyMMddHHmmssSSS`, UTC).
    static func date(ofTimestamp timestamp: String) -> Date? {
        let digits = Array(timestamp.utf8).map { Int($0) - 48 }
        guard digits.count == 17, digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        let components = DateComponents(
            year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: number(8..<10), minute: number(10..<12),
            second: number(12..<14))
        return RetentionPolicy.calendar.date(from: components).map { $0.addingTimeInterval(Double(number(14..<17)) / 1000) }
    }
}
