extension Row {
    /// The rows of the `including(all:)` associations of the row, by key.
    ///
    /// ```swift
    /// let row = try Author.including(all: Author.books).asRequest(of: Row.self).fetchOne(db)!
    /// let bookRows: [Row] = row.prefetchedRows["books"]!
    /// ```
    public var prefetchedRows: PrefetchedRowsView { prefetches ?? PrefetchedRowsView() }

    /// The records of an `including(all:)` association.
    ///
    /// - throws: ``RowDecodingError`` when the key has no prefetched rows
    ///   (the request did not include the association), or a record does
    ///   not decode.
    @inlinable
    public func decode<Records: RangeReplaceableCollection>(_ type: Records.Type = Records.self, forKey key: String) throws -> Records
    where Records.Element: FetchableRecord {
        // Inlinable, so that the loop is specialized for the collection and
        // the record: a direct append and a direct (often inlined) init(row:).
        let rows = try prefetchedRecordRows(forKey: key)
        if let view = rows.view { return try Row.decode(Records.self, along: view, at: rows.indexes) }
        var records = Records()
        records.reserveCapacity(rows.rows.count)
        for row in rows.rows { records.append(try Records.Element(row: row)) }
        return records
    }

    /// The records of the rows of a batch at `indexes`, decoded from `view`,
    /// the row that moves along it as a cursor's row does.
    @inlinable
    static func decode<Records: RangeReplaceableCollection>(_ type: Records.Type, along view: Row, at indexes: ArraySlice<Int>) throws
        -> Records
    where Records.Element: FetchableRecord {
        var records = Records()
        records.reserveCapacity(indexes.count)
        for index in indexes {
            view.moveToBatchRow(index)
            records.append(try Records.Element(row: view))
        }
        return records
    }

    /// The rows the records of ``decode(_:forKey:)->Records`` decode from.
    @usableFromInline
    func prefetchedRecordRows(forKey key: String) throws -> PrefetchedRecordRows {
        guard let group = prefetchedRows.group(forKey: key) else {
            var message = "no prefetched rows under the key \(String(reflecting: key))"
            let available = prefetchedRows.keys
            if !available.isEmpty { message += " - available keys: \(available.sorted())" }
            throw RowDecodingError.keyNotFound(.prefetchKey(key), debugDescription: message, row: self)
        }
        switch group {
        case .rows(let rows):
            return PrefetchedRecordRows(rows: rows, view: nil, indexes: [])
        case .batch(let batch, let indexes):
            return PrefetchedRecordRows(rows: [], view: Row(viewing: batch), indexes: indexes)
        }
    }

    /// The records of an `including(all:)` association.
    ///
    /// ```swift
    /// let books: [Book] = row["books"]
    /// ```
    ///
    /// As the other typed subscripts, it stops the program when the request
    /// did not include the association; see ``decode(_:forKey:)->Records``.
    @inlinable
    public subscript<Records: RangeReplaceableCollection>(_ key: String) -> Records where Records.Element: FetchableRecord {
        do { return try decode(Records.self, forKey: key) } catch { preconditionFailure("\(error)") }
    }

    /// The records of an `including(all:)` association, as a set.
    @inlinable
    public subscript<Record: FetchableRecord & Hashable>(_ key: String) -> Set<Record> {
        do { return Set(try decode([Record].self, forKey: key)) } catch { preconditionFailure("\(error)") }
    }

    /// The rows of a row's `including(all:)` associations: each key's rows,
    /// and the prefetches of the rows an indirect association goes through.
    public struct PrefetchedRowsView: Equatable {
        fileprivate struct Node: Equatable {
            var key: String
            /// Nil for the pivot of an indirect association: not decoded.
            var group: PrefetchedGroup?
            var children: PrefetchedRowsView
        }

        fileprivate var nodes: [Node] = []

        init() {}

        /// True when the row has no prefetched rows.
        public var isEmpty: Bool { nodes.isEmpty }

        /// The keys of the prefetched rows, at any depth.
        public var keys: Set<String> {
            var keys: Set<String> = []
            var queue = nodes
            while !queue.isEmpty {
                let node = queue.removeFirst()
                if node.group != nil { keys.insert(node.key) }
                queue += node.children.nodes
            }
            return keys
        }

        /// The rows of the nearest key, breadth-first; nil when absent.
        public subscript(_ key: String) -> [Row]? {
            group(forKey: key)?.rows
        }

        /// The prefetched rows of the nearest key, breadth-first, as they are
        /// stored; nil when absent.
        func group(forKey key: String) -> PrefetchedGroup? {
            // The common case, a key of the row itself, copies no node.
            for node in nodes where node.key == key {
                if let group = node.group { return group }
            }
            var queue = nodes
            while !queue.isEmpty {
                let node = queue.removeFirst()
                if node.key == key, let group = node.group { return group }
                queue += node.children.nodes
            }
            return nil
        }

        /// The prefetches below a joined key.
        func subtree(_ key: String) -> PrefetchedRowsView? {
            guard let node = nodes.first(where: { $0.key == key }), !node.children.isEmpty else { return nil }
            return node.children
        }

        mutating func setGroup(_ group: PrefetchedGroup, forKeyPath keyPath: ArraySlice<String>) {
            guard let key = keyPath.first else { return }
            let index: Int
            if let found = nodes.firstIndex(where: { $0.key == key }) {
                index = found
            } else {
                nodes.append(Node(key: key, group: nil, children: PrefetchedRowsView()))
                index = nodes.count - 1
            }
            if keyPath.count == 1 {
                nodes[index].group = group
            } else {
                nodes[index].children.setGroup(group, forKeyPath: keyPath.dropFirst())
            }
        }
    }
}

/// The rows an association prefetched for one row: rows of their own, or
/// rows of a batch that the prefetches of all the fetched rows share.
enum PrefetchedGroup: Equatable {
    case rows([Row])
    /// The rows of `batch` at these indexes, in order: a slice of an array
    /// that the groups of one prefetch share.
    case batch(RowBatch, ArraySlice<Int>)

    /// The number of rows.
    var count: Int {
        switch self {
        case .rows(let rows): return rows.count
        case .batch(_, let indexes): return indexes.count
        }
    }

    /// The rows; rows of their own for a batch.
    var rows: [Row] {
        switch self {
        case .rows(let rows): return rows
        case .batch(let batch, let indexes): return indexes.map { batch.row(at: $0) }
        }
    }

    static func == (lhs: PrefetchedGroup, rhs: PrefetchedGroup) -> Bool {
        lhs.rows == rhs.rows
    }
}

/// The rows of one key of a row's prefetches: rows of their own, or the
/// rows of a batch at `indexes`, read through one row that moves along it
/// (a record decodes from it before the next move).
@usableFromInline
struct PrefetchedRecordRows {
    /// The rows, when they are rows of their own.
    @usableFromInline let rows: [Row]
    /// The row that moves along a batch; nil for rows of their own.
    @usableFromInline let view: Row?
    /// The batch rows, in order.
    @usableFromInline let indexes: ArraySlice<Int>
}
