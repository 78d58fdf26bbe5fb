// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the statement's, the
// argument slots', the lock's, the encoder's and the transaction statements' (removed together), fetch-name
// runs 28% more instructions, fetch-struct 27%, qi-filter-all 14%.

/// The index of the leftmost column whose name matches `name`, ignoring ASCII
/// case as SQLite does for identifiers.
///
/// Allocation-free: this runs once per column access by name, in hot loops.
@inline(__always)
func leftmostIndex(ofColumn name: String, in columnNames: [String]) -> Int? {
    // Names of another length never match, ignoring ASCII case or not: the
    // byte loop runs only for the candidates.
    let length = name.utf8.count
    for (index, columnName) in columnNames.enumerated() where columnName.utf8.count == length && columnNameMatches(columnName, name) {
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
///
/// The test of that column is inlinable, so that a column read by name in the
/// caller's loop costs a few instructions when the name is the column's own
/// string (a literal matches the name SQLite gives: both are small strings
/// with the same bits). Every other case goes through the out-of-line lookup.
@usableFromInline
final class ColumnNameIndex {
    @usableFromInline let names: [String]

    /// The column to try first: the one after the previous hit, back to the
    /// first after the last. `Int.max` when two columns share a name: the
    /// leftmost must then win, so the hint is never used.
    ///
    /// No dynamic exclusivity check (it would cost more than the lookup): the
    /// index belongs to a statement, which is confined to its connection's
    /// thread, and no access to it spans a call.
    @exclusivity(unchecked) @usableFromInline var hint: Int

    /// True when two columns share a name (ignoring ASCII case).
    let hasDuplicates: Bool

    init(names: [String]) {
        self.names = names
        hasDuplicates = names.enumerated().contains { offset, name in
            names[(offset + 1)...].contains { columnNameMatches($0, name) }
        }
        hint = hasDuplicates ? Int.max : 0
    }

    /// The index of the leftmost column named `name` (ASCII case-insensitive).
    @inlinable @inline(__always)
    func index(of name: String) -> Int? {
        let hint = self.hint
        let names = self.names
        if hint < names.count, names[hint] == name {
            self.hint = hint + 1 == names.count ? 0 : hint + 1
            return hint
        }
        return indexSlowly(of: name)
    }

    /// The lookup when the hinted column does not have the very same name.
    @usableFromInline
    func indexSlowly(of name: String) -> Int? {
        let index: Int
        if hint < names.count, columnNameMatches(names[hint], name) {
            index = hint
        } else if let first = names.first, first == name {
            // The next record starts again from the first column, when the
            // previous one did not read the last (index 0 is the leftmost anyway).
            index = 0
        } else {
            guard let leftmost = leftmostIndex(ofColumn: name, in: names) else { return nil }
            index = leftmost
        }
        if !hasDuplicates { hint = index + 1 == names.count ? 0 : index + 1 }
        return index
    }
}
