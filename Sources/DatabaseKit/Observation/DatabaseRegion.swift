/// A region of the database: tables, some of their columns, and some of
/// their rows.
///
/// A statement knows the region it reads (``Statement/databaseRegion``), and
/// a region tells whether a change touches it:
///
/// ```swift
/// let statement = try db.makeStatement(sql: "SELECT name FROM player")
/// statement.databaseRegion.description                          // "player(name)"
/// statement.databaseRegion.isModified(byEventsOfKind: .delete(tableName: "player")) // true
/// ```
///
/// Table and column names are compared case-insensitively, as in SQLite.
public struct DatabaseRegion: Sendable {
    /// The tables of the region; nil for the full database.
    private let tableRegions: [CaseInsensitiveIdentifier: TableRegion]?

    private init(tableRegions: [CaseInsensitiveIdentifier: TableRegion]?) {
        self.tableRegions = tableRegions
    }

    /// The empty region.
    public init() {
        self.init(tableRegions: [:])
    }

    /// The full database: every table, column and row.
    public static let fullDatabase = DatabaseRegion(tableRegions: nil)

    /// Every column and row of a table.
    init(table: String) {
        self.init(tableRegions: [CaseInsensitiveIdentifier(table): TableRegion(columns: nil, rowIDs: nil)])
    }

    /// Some columns of a table, all rows.
    init(table: String, columns: Set<String>) {
        self.init(tableRegions: [
            CaseInsensitiveIdentifier(table): TableRegion(columns: Set(columns.map { CaseInsensitiveIdentifier($0) }), rowIDs: nil)
        ])
    }

    /// Some rows of a table, all columns.
    init(table: String, rowIds: Set<Int64>) {
        self.init(tableRegions: [CaseInsensitiveIdentifier(table): TableRegion(columns: nil, rowIDs: rowIds)])
    }

    /// True when the region holds nothing.
    public var isEmpty: Bool {
        guard let tableRegions else { return false }
        return tableRegions.isEmpty
    }

    /// True for the full database.
    public var isFullDatabase: Bool { tableRegions == nil }

    /// The union of two regions.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let tableRegions, let otherRegions = other.tableRegions else { return .fullDatabase }
        var result = tableRegions
        for (table, region) in otherRegions {
            result[table] = result[table].map { $0.union(region) } ?? region
        }
        return DatabaseRegion(tableRegions: result)
    }

    /// Adds `other` to this region.
    public mutating func formUnion(_ other: DatabaseRegion) {
        self = union(other)
    }

    /// The part of this region that is also in `other`.
    func intersection(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let tableRegions else { return other }
        guard let otherRegions = other.tableRegions else { return self }
        var result: [CaseInsensitiveIdentifier: TableRegion] = [:]
        for (table, region) in tableRegions {
            guard let otherRegion = otherRegions[table] else { continue }
            let common = region.intersection(otherRegion)
            if !common.isEmpty { result[table] = common }
        }
        return DatabaseRegion(tableRegions: result)
    }

    /// The region with the part of `table` restricted to the rows of
    /// these rowids; the other tables are unchanged. What a request
    /// filtered by primary key reads: `player(id,name)[1]`.
    func tableIntersection(_ table: String, rowIDs: Set<Int64>) -> DatabaseRegion {
        guard var result = tableRegions else {
            return DatabaseRegion(table: table, rowIds: rowIDs)
        }
        let key = CaseInsensitiveIdentifier(table)
        guard let region = result[key] else { return self }
        let restricted = region.intersection(TableRegion(columns: nil, rowIDs: rowIDs))
        result[key] = restricted.isEmpty ? nil : restricted
        return DatabaseRegion(tableRegions: result)
    }

    /// The region of the table named `name` (in any case): a scan of a few
    /// tables costs less than folding the name and hashing it.
    private static func region(of name: String, in tableRegions: [CaseInsensitiveIdentifier: TableRegion]) -> TableRegion? {
        guard tableRegions.count > 4 else {
            for (table, region) in tableRegions where table.matches(name) { return region }
            return nil
        }
        return tableRegions[CaseInsensitiveIdentifier(name)]
    }

    /// True when events of this kind may modify the region.
    ///
    /// Asked for each statement that writes, by each observation: one
    /// lookup, no allocation.
    public func isModified(byEventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let updatedColumns: Set<String>?
        if case .update(_, let columnNames) = eventKind {
            if columnNames.isEmpty { return false }
            updatedColumns = columnNames
        } else {
            updatedColumns = nil
        }
        guard let tableRegions else { return true }
        guard !tableRegions.isEmpty, let region = Self.region(of: eventKind.tableName, in: tableRegions), !region.isEmpty else {
            return false
        }
        guard let updatedColumns, let columns = region.columns else { return true }
        return updatedColumns.contains { columns.contains(CaseInsensitiveIdentifier($0)) }
    }

    /// True when the event modifies the region.
    ///
    /// An event on a table the region does not name counts as a change: some
    /// virtual tables (FTS4) report their changes on shadow tables.
    public func isModified(by event: DatabaseEvent) -> Bool {
        guard let tableRegions else { return true }
        guard let region = Self.region(of: event.tableName, in: tableRegions) else { return true }
        return region.contains(rowID: event.rowID)
    }

    /// True when a row of the region leaves its rowid: it is deleted, or
    /// updated to another rowid.
    ///
    /// SQLite's update hook reports an update with the rowid after it only
    /// (`UPDATE player SET id = 10 WHERE id = 1` is an update of row 10),
    /// and does not report the rows that `REPLACE` deletes to resolve a
    /// conflict. The pre-update hook reports both with the rowid before, so
    /// that an observation of row 1 sees it go.
    func isModified(byRowRemovedIn event: DatabasePreUpdateEvent) -> Bool {
        guard event.kind != .insert, let initialRowID = event.initialRowID, initialRowID != event.finalRowID,
            let tableRegions, let region = Self.region(of: event.tableName, in: tableRegions), region.rowIDs != nil
        else { return false }
        return region.contains(rowID: initialRowID)
    }

    /// The region with the table names SQLite knows (views and unknown
    /// tables are left out), and without SQLite's internal tables.
    func observableRegion(_ db: Database) throws -> DatabaseRegion {
        guard let tableRegions else { return .fullDatabase }
        var result: [CaseInsensitiveIdentifier: TableRegion] = [:]
        for (table, region) in tableRegions where !Database.isSQLiteInternalTable(table.rawValue) {
            guard let name = try db.canonicalTableName(table.rawValue) else { continue }
            let key = CaseInsensitiveIdentifier(name)
            result[key] = result[key].map { $0.union(region) } ?? region
        }
        return DatabaseRegion(tableRegions: result)
    }

    /// The kinds of events that modify the region: inserts, deletes and
    /// updates of its tables (of every table of the database for the full
    /// database).
    func impactfulEventKinds(_ db: Database) throws -> [DatabaseEventKind] {
        var kinds: [DatabaseEventKind] = []
        func addKinds(table: String, columns: Set<String>) {
            kinds.append(.delete(tableName: table))
            kinds.append(.insert(tableName: table))
            kinds.append(.update(tableName: table, columnNames: columns))
        }
        if let tableRegions {
            for (table, region) in tableRegions {
                let columns =
                    try region.columns.map { Set($0.map(\.rawValue)) }
                    ?? Set(db.columns(in: table.rawValue).map(\.name))
                addKinds(table: table.rawValue, columns: columns)
            }
        } else {
            for table in try db.allTableNames() {
                addKinds(table: table, columns: Set(try db.columns(in: table).map(\.name)))
            }
        }
        return kinds
    }
}

extension DatabaseRegion: Equatable {
    public static func == (lhs: DatabaseRegion, rhs: DatabaseRegion) -> Bool {
        lhs.tableRegions == rhs.tableRegions
    }
}

extension DatabaseRegion: CustomStringConvertible {
    /// "full database", "empty", or the tables with their columns and rows,
    /// such as `player(*),team(id,name)[1,2]`.
    public var description: String {
        guard let tableRegions else { return "full database" }
        if tableRegions.isEmpty { return "empty" }
        return
            tableRegions
            .sorted { $0.key.rawValue < $1.key.rawValue }
            .map { table, region in
                var text = table.rawValue
                if let columns = region.columns {
                    text += "(" + columns.map(\.rawValue).sorted().joined(separator: ",") + ")"
                } else {
                    text += "(*)"
                }
                if let rowIDs = region.rowIDs {
                    text += "[" + rowIDs.sorted().map(String.init).joined(separator: ",") + "]"
                }
                return text
            }
            .joined(separator: ",")
    }
}

/// The part of one table in a region.
private struct TableRegion: Equatable, Sendable {
    /// nil for all columns.
    var columns: Set<CaseInsensitiveIdentifier>?
    /// nil for all rows.
    var rowIDs: Set<Int64>?

    var isEmpty: Bool {
        if let columns, columns.isEmpty { return true }
        if let rowIDs, rowIDs.isEmpty { return true }
        return false
    }

    func intersection(_ other: TableRegion) -> TableRegion {
        TableRegion(
            columns: Self.intersect(columns, other.columns),
            rowIDs: Self.intersect(rowIDs, other.rowIDs))
    }

    func union(_ other: TableRegion) -> TableRegion {
        TableRegion(
            columns: Self.unite(columns, other.columns),
            rowIDs: Self.unite(rowIDs, other.rowIDs))
    }

    func contains(rowID: Int64) -> Bool {
        rowIDs?.contains(rowID) ?? true
    }

    /// nil is "everything".
    private static func intersect<T>(_ a: Set<T>?, _ b: Set<T>?) -> Set<T>? {
        guard let a else { return b }
        guard let b else { return a }
        return a.intersection(b)
    }

    private static func unite<T>(_ a: Set<T>?, _ b: Set<T>?) -> Set<T>? {
        guard let a, let b else { return nil }
        return a.union(b)
    }
}

/// An identifier compared case-insensitively (ASCII), that keeps its spelling.
struct CaseInsensitiveIdentifier: Hashable, Sendable {
    let rawValue: String
    private let folded: String

    init(_ rawValue: String) {
        self.rawValue = rawValue
        self.folded = rawValue.lowercased()
    }

    /// Whether `name` is this identifier, in any case, without a folded copy
    /// of `name` (a check that runs for every statement an observation sees).
    func matches(_ name: String) -> Bool {
        var candidate = name.utf8.makeIterator()
        for byte in folded.utf8 {
            guard let other = candidate.next() else { return false }
            if other == byte { continue }
            // ASCII letters in either case; anything else the slow way.
            if other >= 0x80 || byte >= 0x80 { return folded == name.lowercased() }
            guard other | 0x20 == byte, byte >= 0x61, byte <= 0x7A else { return false }
        }
        return candidate.next() == nil
    }

    init(rawValue: String) { self.init(rawValue) }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.folded == rhs.folded }
    func hash(into hasher: inout Hasher) { hasher.combine(folded) }
}

/// A type that designates a region of the database, for
/// ``Database/notifyChanges(in:)``.
public protocol DatabaseRegionConvertible: Sendable {
    /// The region.
    func databaseRegion(_ db: Database) throws -> DatabaseRegion
}

extension DatabaseRegionConvertible where Self == DatabaseRegion {
    /// The full database.
    public static var fullDatabase: Self { DatabaseRegion.fullDatabase }
}

extension DatabaseRegion: DatabaseRegionConvertible {
    /// Returns self.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { self }
}

/// A type-erased ``DatabaseRegionConvertible``.
public struct AnyDatabaseRegionConvertible: DatabaseRegionConvertible {
    private let region: @Sendable (Database) throws -> DatabaseRegion

    /// A region computed by a function.
    public init(_ region: @escaping @Sendable (Database) throws -> DatabaseRegion) {
        self.region = region
    }

    /// The region of another convertible value.
    public init(_ region: some DatabaseRegionConvertible) {
        self.region = { try region.databaseRegion($0) }
    }

    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try region(db)
    }
}
