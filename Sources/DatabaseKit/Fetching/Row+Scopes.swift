extension Row {
    /// The scopes of a row fetched with a ``ScopeAdapter``, by name.
    ///
    /// ```swift
    /// let teamRow: Row? = row.scopes["team"]
    /// ```
    public var scopes: ScopesView { ScopesView(row: self) }

    /// The scopes of the row and of its scopes, searched breadth-first: the
    /// nearest scope with a name wins.
    public var scopesTree: ScopesTreeView { ScopesTreeView(row: self) }

    /// The fetched row, before any adapter.
    public var unadapted: Row {
        var row = self
        while let adaptation = row.adaptation { row = adaptation.base }
        return row
    }

    /// The row of a scope. The scope of a view of a statement row (the row
    /// a fetch reads) is made on first use and kept: a fetch that reads a
    /// joined record from each of its rows makes its scope rows once. Those
    /// rows are confined to their database access; a copied row may be read
    /// by several threads at once, and its reads never write.
    @usableFromInline
    func scopeRow(named name: String) -> Row? {
        if let firstScope, firstScope.name == name { return firstScope.row }
        if let otherScopes, let row = otherScopes.row(named: name) { return row }
        guard let adaptedBase, let scopeLayout = layout?.scopes[name] else { return nil }
        let isLive = adaptedBase.sqliteStatement != nil
        // A view of a statement row is read once per fetched row: it finds
        // its columns by name through an index. A copied row is read once.
        let row = Row(base: adaptedBase, layout: scopeLayout, indexed: isLive)
        // A joined record's own prefetches: `Book.including(required:
        // Book.author.including(all: Author.awards))`.
        row.prefetches = prefetches?.subtree(name)
        guard isLive else { return row }
        if firstScope == nil {
            firstScope = (name, row)
        } else {
            let others = otherScopes ?? ScopeRows()
            others.names.append(name)
            others.rows.append(row)
            otherScopes = others
        }
        return row
    }

    /// The row of a scope of the row itself that holds a value other than
    /// NULL: what a joined record decodes from, in one call from the
    /// inlined ``decode(_:forKey:)->Record``.
    @usableFromInline
    func nonNullScopeRow(named name: String) -> Row? {
        guard let row = scopeRow(named: name), row.containsNonNullValue else { return nil }
        return row
    }

    /// The scopes of a row, by name.
    public struct ScopesView: Collection {
        fileprivate let row: Row
        private var layouts: [String: LayoutedRowAdapter] { row.layout?.scopes ?? [:] }
        private var sortedNames: [String] { layouts.keys.sorted() }

        /// The scope names.
        public var names: Set<String> { Set(layouts.keys) }

        /// The scope with this name, or nil.
        public subscript(_ name: String) -> Row? { row.scopeRow(named: name) }

        public typealias Index = Int
        public var startIndex: Int { 0 }
        public var endIndex: Int { layouts.count }
        public func index(after index: Int) -> Int { index + 1 }

        /// The scope name and row at a position, in name order.
        public subscript(position: Int) -> (name: String, row: Row) {
            let name = sortedNames[position]
            return (name, self[name]!)
        }
    }

    /// The scopes of a row and of its scopes; see ``Row/scopesTree``.
    public struct ScopesTreeView {
        fileprivate let row: Row

        /// Every scope name in the tree.
        public var names: Set<String> {
            var names: Set<String> = []
            var rows = [row]
            while !rows.isEmpty {
                let scopes = rows.map(\.scopes)
                for scope in scopes { names.formUnion(scope.names) }
                rows = scopes.flatMap { $0.map(\.row) }
            }
            return names
        }

        /// The nearest scope with this name, breadth-first, or nil.
        public subscript(_ name: String) -> Row? {
            // The common case: a scope of the row itself.
            if let found = row.scopeRow(named: name) { return found }
            if row.layout?.scopes.isEmpty ?? true { return nil }
            var rows = [row]
            while !rows.isEmpty {
                let scopes = rows.map(\.scopes)
                for scope in scopes { if let found = scope[name] { return found } }
                rows = scopes.flatMap { $0.map(\.row) }
            }
            return nil
        }
    }
}

extension Row {
    /// The row without its scopes and prefetched rows: the same columns,
    /// adapted the same way.
    public var unscoped: Row {
        if let adaptation, !adaptation.layout.scopes.isEmpty {
            return Row(base: adaptation.base, layout: adaptation.layout.with(scopes: [:]))
        }
        guard prefetches != nil else { return self }
        // Without its prefetched rows either, as in GRDB.
        if let adaptation { return Row(base: adaptation.base, layout: adaptation.layout) }
        return Row(columnNames: columnNames, values: databaseValues, isFetched: true)
    }

    // MARK: Records in scopes

    /// The record of a scope (searched in the whole tree of scopes); nil when
    /// the scope is missing or holds only NULL values.
    public func decodeIfPresent<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws
        -> Record?
    {
        guard let scopedRow = scopeRow(named: scope) ?? scopesTree[scope], scopedRow.containsNonNullValue else { return nil }
        return try Record(row: scopedRow)
    }

    /// The record of a scope (searched in the whole tree of scopes).
    ///
    /// - throws: ``RowDecodingError`` when the scope is missing, or holds
    ///   only NULL values.
    @inlinable
    public func decode<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws -> Record {
        // The joined record of each row of a fetch: a scope of the row
        // itself. Inlinable, so that the application's code calls the
        // record's `init(row:)` directly.
        if let scopedRow = nonNullScopeRow(named: scope) { return try Record(row: scopedRow) }
        return try decodeFromScopesTree(Record.self, forKey: scope)
    }

    /// ``decode(_:forKey:)->Record`` for a scope deeper in the tree, and
    /// the errors.
    @usableFromInline
    func decodeFromScopesTree<Record: FetchableRecord>(_ type: Record.Type, forKey scope: String) throws -> Record {
        guard let scopedRow = scopeRow(named: scope) ?? scopesTree[scope] else {
            let available = scopesTree.names
            var message = "scope not found: \(String(reflecting: scope))"
            if !available.isEmpty { message += " - available scopes: \(available.sorted())" }
            throw RowDecodingError.keyNotFound(.scope(scope), debugDescription: message, row: self)
        }
        guard scopedRow.containsNonNullValue else {
            throw RowDecodingError.valueMismatch(
                Record.self, debugDescription: "scope \(String(reflecting: scope)) only contains null values", row: self,
                key: .scope(scope))
        }
        return try Record(row: scopedRow)
    }

    /// The record of a scope. Stops the program when the scope is missing
    /// or holds only NULL values; see ``decode(_:forKey:)->Record``.
    @inlinable
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record {
        do { return try decode(Record.self, forKey: scope) } catch { fatalError("\(error)") }
    }

    /// The record of a scope, or nil when the scope is missing or holds only
    /// NULL values.
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record? {
        do { return try decodeIfPresent(Record.self, forKey: scope) } catch { fatalError("\(error)") }
    }
}

/// The scope rows a row has made after its first, by name: a handful at
/// most, searched by comparing names (an identical scope name compares as
/// two words).
final class ScopeRows {
    var names: [String] = []
    var rows: [Row] = []

    func row(named name: String) -> Row? {
        for index in names.indices where names[index] == name { return rows[index] }
        return nil
    }
}
