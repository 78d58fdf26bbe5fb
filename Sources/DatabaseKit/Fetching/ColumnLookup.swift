/// The index of the leftmost column whose name matches `name`, ignoring ASCII
/// case as SQLite does for identifiers.
///
/// Allocation-free: this runs once per column access by name, in hot loops.
@inline(__always)
func leftmostIndex(ofColumn name: String, in columnNames: [String]) -> Int? {
    for (index, columnName) in columnNames.enumerated() where columnNameMatches(columnName, name) {
        return index
    }
    return nil
}

/// True when two identifiers are equal, ignoring ASCII case.
@inline(__always)
func columnNameMatches(_ a: String, _ b: String) -> Bool {
    // Identical strings are the common case, and cheap to compare.
    if a == b { return true }
    var aIterator = a.utf8.makeIterator()
    var bIterator = b.utf8.makeIterator()
    while true {
        switch (aIterator.next(), bIterator.next()) {
        case (nil, nil):
            return true
        case let (x?, y?):
            if x != y && asciiLowercase(x) != asciiLowercase(y) { return false }
        default:
            return false
        }
    }
}

@inline(__always)
private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
}
