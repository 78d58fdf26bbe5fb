import DatabaseKit

/// The rows that reference missing rows (`PRAGMA foreign_key_check`), to
/// tell the violations a migration introduces from those that were there
/// before it (common in databases used without `foreign_keys = ON`).
struct ForeignKeyViolations: Sendable, Equatable {
    /// One row of `PRAGMA foreign_key_check`.
    struct Violation: Hashable, Sendable {
        var table: String
        /// Nil for a WITHOUT ROWID table.
        var rowid: Int64?
        var parent: String

        /// "child rowid 4 -> parent".
        var description: String {
            "\(table) \(rowid.map { "rowid \($0)" } ?? "row") -> \(parent)"
        }
    }

    let violations: [Violation]

    var isEmpty: Bool { violations.isEmpty }

    /// Every violation of the main database.
    init(_ db: Database) throws {
        violations = try Row.fetchAll(db, sql: "PRAGMA main.foreign_key_check").map { row in
            Violation(table: try row.decode(atIndex: 0), rowid: try row.decode(atIndex: 1), parent: try row.decode(atIndex: 2))
        }
    }

    private init(violations: [Violation]) {
        self.violations = violations
    }

    /// The violations of `self` that `earlier` did not have. Counted per
    /// (table, parent): a migration that rebuilds a table changes the rowids
    /// of its old violations without adding any.
    func introduced(since earlier: ForeignKeyViolations) -> ForeignKeyViolations {
        var earlierCounts: [String: Int] = [:]
        for violation in earlier.violations { earlierCounts[violation.table + "\u{0}" + violation.parent, default: 0] += 1 }
        var counts: [String: Int] = [:]
        for violation in violations { counts[violation.table + "\u{0}" + violation.parent, default: 0] += 1 }
        let earlierSet = Set(earlier.violations)
        var introduced: [Violation] = []
        for (key, count) in counts where count > earlierCounts[key, default: 0] {
            let group = violations.filter { $0.table + "\u{0}" + $0.parent == key }
            let new = group.filter { !earlierSet.contains($0) }
            // Rebuilt rows may all be "new": name as many as were added.
            introduced += (new.isEmpty ? group : new).prefix(count - earlierCounts[key, default: 0])
        }
        return ForeignKeyViolations(violations: introduced)
    }

    /// "child rowid 4 -> parent, child rowid 5 -> parent (and 3 more)".
    var summary: String {
        let shown = violations.prefix(5).map(\.description).joined(separator: ", ")
        return violations.count > 5 ? "\(shown) (and \(violations.count - 5) more)" : shown
    }

    /// "1 row references" / "3 rows reference".
    var countText: String {
        violations.count == 1 ? "1 row references a missing row" : "\(violations.count) rows reference missing rows"
    }
}
