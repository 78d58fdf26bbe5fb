/// A view of a row's columns: a subset, renamed, reordered, with named
/// scopes, that fetching methods apply to each fetched row.
///
/// ```swift
/// // SELECT player.*, team.* ... : the team columns from index 3.
/// let adapter = ScopeAdapter(["team": SuffixRowAdapter(fromIndex: 3)])
/// for row in try Row.fetchAll(db, sql: sql, adapter: adapter) {
///     let teamName: String? = row.scopes["team"]?["name"]
/// }
/// ```
///
/// Adapters are resolved once per fetch, against the statement's columns:
/// the per-row cost is an index lookup.
public protocol RowAdapter: Sendable {
    /// The adapted columns and scopes of rows that have these columns.
    ///
    /// - throws: ``DatabaseError`` when the adapter does not fit the
    ///   columns, such as a ``ColumnMapping`` of a missing column.
    func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter
}

/// An adapter resolved against the columns of a base row: the base index of
/// each adapted column, and the scopes, themselves resolved against the
/// same base row.
public struct LayoutedRowAdapter: Sendable {
    /// The base row index of each adapted column.
    public let baseIndexes: [Int]
    /// The names of the adapted columns.
    public let columnNames: [String]
    /// The scopes, by name.
    public let scopes: [String: LayoutedRowAdapter]

    /// A layout.
    public init(baseIndexes: [Int], columnNames: [String], scopes: [String: LayoutedRowAdapter] = [:]) {
        precondition(baseIndexes.count == columnNames.count, "one name per column")
        self.baseIndexes = baseIndexes
        self.columnNames = columnNames
        self.scopes = scopes
    }

    /// The same columns with other scopes.
    func with(scopes: [String: LayoutedRowAdapter]) -> LayoutedRowAdapter {
        LayoutedRowAdapter(baseIndexes: baseIndexes, columnNames: columnNames, scopes: scopes)
    }
}

/// Renames and selects columns: each key is a new name, each value the
/// base column it reads (case-insensitive). Columns keep the base order.
///
/// ```swift
/// let adapter = ColumnMapping(["name": "playerName", "score": "playerScore"])
/// ```
public struct ColumnMapping: RowAdapter {
    /// New name → base column name.
    public let mapping: [String: String]

    /// An adapter from new names to base column names.
    public init(_ mapping: [String: String]) { self.mapping = mapping }

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        var columns: [(index: Int, name: String)] = []
        for (newName, baseName) in mapping {
            guard let index = leftmostIndex(ofColumn: baseName, in: columnNames) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "ColumnMapping: no column \(baseName) in [\(columnNames.joined(separator: ", "))]")
            }
            columns.append((index, newName))
        }
        columns.sort { ($0.index, $0.name) < ($1.index, $1.name) }
        return LayoutedRowAdapter(baseIndexes: columns.map(\.index), columnNames: columns.map(\.name))
    }
}

/// The columns from an index to the end.
public struct SuffixRowAdapter: RowAdapter {
    /// The first base column.
    public let index: Int

    /// The columns from `index` on.
    public init(fromIndex index: Int) {
        precondition(index >= 0, "negative index")
        self.index = index
    }

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        try RangeRowAdapter(index..<max(index, columnNames.count)).layoutedAdapter(from: columnNames)
    }
}

/// The columns of a range of indexes.
public struct RangeRowAdapter: RowAdapter {
    /// The base columns.
    public let range: Range<Int>

    /// The columns of `range`.
    public init(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0, "negative index")
        self.range = range
    }

    /// The columns of `range`.
    public init(_ range: ClosedRange<Int>) { self.init(range.lowerBound..<(range.upperBound + 1)) }

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        guard range.upperBound <= columnNames.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "RangeRowAdapter: range \(range) out of the \(columnNames.count) columns of the row")
        }
        return LayoutedRowAdapter(baseIndexes: Array(range), columnNames: Array(columnNames[range]))
    }
}

/// No column at all.
public struct EmptyRowAdapter: RowAdapter {
    /// The adapter.
    public init() {}

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(baseIndexes: [], columnNames: [])
    }
}

/// Every column, renamed by a function.
///
/// ```swift
/// let adapter = RenameColumnAdapter { $0.replacingOccurrences(of: "player_", with: "") }
/// ```
public struct RenameColumnAdapter: RowAdapter {
    let transform: @Sendable (String) -> String

    /// An adapter that renames each column with `transform`.
    public init(_ transform: @escaping @Sendable (String) -> String) { self.transform = transform }

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(baseIndexes: Array(columnNames.indices), columnNames: columnNames.map(transform))
    }
}

/// Named scopes on top of a base adapter (every column by default): each
/// scope is a row of its own, read with ``Row/scopes``.
///
/// ```swift
/// let adapter = ScopeAdapter([
///     "player": RangeRowAdapter(0..<3),
///     "team": SuffixRowAdapter(fromIndex: 3),
/// ])
/// let row = try Row.fetchOne(db, sql: "SELECT player.*, team.* FROM ...", adapter: adapter)!
/// let player: Player = try Player(row: row.scopes["player"]!)
/// ```
///
/// Scopes apply to the fetched row, not to the base adapter's columns.
public struct ScopeAdapter: RowAdapter {
    /// The adapter of the row's own columns.
    public let base: any RowAdapter
    /// The scopes.
    public let scopes: [String: any RowAdapter]

    /// Scopes on a row that keeps all its columns.
    public init(_ scopes: [String: any RowAdapter]) {
        self.init(base: IdentityAdapter(), scopes: scopes)
    }

    /// Scopes on a row whose columns are those of `base`.
    public init(base: any RowAdapter, scopes: [String: any RowAdapter]) {
        self.base = base
        self.scopes = scopes
    }

    public func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        let layout = try base.layoutedAdapter(from: columnNames)
        var scopes = layout.scopes
        for (name, adapter) in self.scopes {
            scopes[name] = try adapter.layoutedAdapter(from: columnNames)
        }
        return layout.with(scopes: scopes)
    }
}

/// Adapters that split a row's columns into consecutive groups of
/// `columnCounts` columns, plus one last adapter for the columns left: the
/// pieces of a row that joins several tables, to scope with ``ScopeAdapter``.
///
/// ```swift
/// // SELECT player.*, team.* ... : 3 columns of player, then team's.
/// let adapters = splittingRowAdapters(columnCounts: [3])
/// let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
/// ```
///
/// An empty `columnCounts` gives one adapter of every column.
public func splittingRowAdapters(columnCounts: [Int]) -> [any RowAdapter] {
    guard !columnCounts.isEmpty else { return [SuffixRowAdapter(fromIndex: 0)] }
    var starts = [0]
    for count in columnCounts { starts.append(starts[starts.count - 1] + count) }
    let ranges: [any RowAdapter] = zip(starts, starts.dropFirst()).map { RangeRowAdapter($0..<$1) }
    return ranges + [SuffixRowAdapter(fromIndex: starts[starts.count - 1])]
}

extension RowAdapter {
    /// This adapter with more scopes.
    public func addingScopes(_ scopes: [String: any RowAdapter]) -> any RowAdapter {
        ScopeAdapter(base: self, scopes: scopes)
    }
}

/// Every column, unchanged.
private struct IdentityAdapter: RowAdapter {
    func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(baseIndexes: Array(columnNames.indices), columnNames: columnNames)
    }
}

/// Two adapters, the second applied to the rows of the first; see
/// ``FetchRequest/adapted(_:)``.
struct ChainedAdapter: RowAdapter {
    let first: any RowAdapter
    let second: any RowAdapter

    func layoutedAdapter(from columnNames: [String]) throws -> LayoutedRowAdapter {
        let firstLayout = try first.layoutedAdapter(from: columnNames)
        let secondLayout = try second.layoutedAdapter(from: firstLayout.columnNames)
        return firstLayout.composed(with: secondLayout)
    }
}

extension LayoutedRowAdapter {
    /// The layout of `next` over the rows of this layout, expressed over the
    /// base row of this layout.
    func composed(with next: LayoutedRowAdapter) -> LayoutedRowAdapter {
        LayoutedRowAdapter(
            baseIndexes: next.baseIndexes.map { baseIndexes[$0] },
            columnNames: next.columnNames,
            scopes: next.scopes.mapValues { composed(with: $0) })
    }
}
