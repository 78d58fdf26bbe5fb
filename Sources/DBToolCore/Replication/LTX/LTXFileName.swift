/// Where an LTX file lives in a replica, in Litestream 0.5's layout:
/// `ltx/<level>/<min TXID>-<max TXID>.ltx`, the TXIDs as sixteen lowercase
/// hex digits. Level 0 holds a file per sync, levels 1 to 8 compactions of
/// the level below, level 9 snapshots.
struct LTXFileName: Equatable, Hashable, Sendable, Comparable {
    /// The level of snapshots.
    static let snapshotLevel = 9

    /// The compaction level, 0 to 9.
    let level: Int
    /// The first transaction the file holds.
    let minTXID: UInt64
    /// The last transaction the file holds.
    let maxTXID: UInt64

    /// A name for a level and a range of transactions.
    init(level: Int, minTXID: UInt64, maxTXID: UInt64) {
        self.level = level
        self.minTXID = minTXID
        self.maxTXID = maxTXID
    }

    /// The file's name, without its level directory.
    var fileName: String { "\(Self.hex(minTXID))-\(Self.hex(maxTXID)).ltx" }

    /// The file's path under the replica's root.
    var path: String { "ltx/\(level)/\(fileName)" }

    /// Parses a file name of `level`; nil for anything else (another tool's
    /// file, a temp file), which a replica never counts.
    init?(level: Int, fileName: String) {
        let bytes = Array(fileName.utf8)
        guard (0...Self.snapshotLevel).contains(level), bytes.count == 37, bytes[16] == UInt8(ascii: "-"),
            fileName.hasSuffix(".ltx"),
            let minTXID = Self.parseHex(bytes[0..<16]), let maxTXID = Self.parseHex(bytes[17..<33]),
            minTXID > 0, maxTXID >= minTXID
        else { return nil }
        self.init(level: level, minTXID: minTXID, maxTXID: maxTXID)
    }

    static func < (lhs: LTXFileName, rhs: LTXFileName) -> Bool {
        (lhs.level, lhs.minTXID, lhs.maxTXID) < (rhs.level, rhs.minTXID, rhs.maxTXID)
    }

    /// Sixteen lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func parseHex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }
}
