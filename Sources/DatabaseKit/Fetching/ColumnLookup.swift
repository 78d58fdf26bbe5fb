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
///
/// Identical strings are the common case, and cheap to compare: that test is
/// inlined in the caller, and the byte loop stays out of line.
@inline(__always)
func columnNameMatches(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    return columnNameMatchesIgnoringCase(a, b)
}

/// The byte loop of ``columnNameMatches(_:_:)``.
@inline(never)
private func columnNameMatchesIgnoringCase(_ a: String, _ b: String) -> Bool {
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

/// Finds columns by name in a statement's result, fast when a record reads
/// its columns in order (the usual case): each lookup first tries the column
/// after the previous hit.
final class ColumnNameIndex {
    let names: [String]

    /// When two columns share a name the leftmost must win, so the hint is
    /// not used.
    private let hasDuplicates: Bool
    private var hint = 0

    init(names: [String]) {
        self.names = names
        hasDuplicates = names.enumerated().contains { offset, name in
            names[(offset + 1)...].contains { columnNameMatches($0, name) }
        }
    }

    /// The index of the leftmost column named `name` (ASCII case-insensitive).
    @inline(__always)
    func index(of name: String) -> Int? {
        let hint = self.hint
        if !hasDuplicates, hint < names.count, columnNameMatches(names[hint], name) {
            self.hint = hint + 1
            return hint
        }
        guard let index = leftmostIndex(ofColumn: name, in: names) else { return nil }
        self.hint = index + 1
        return index
    }
}
