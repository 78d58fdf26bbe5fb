/// The prefetched rows of each key of a single-column integer pivot, the
/// usual foreign key, grouped without hashing a ``DatabaseValue`` per row
/// and without an array per key.
///
/// The keys are the fetched rows' keys, sorted and unique; the rows of
/// `keys[slot]` are `order[starts[slot]..<starts[slot + 1]]`, indexes of
/// prefetched rows in the order of the prefetch query. Every group shares
/// `order`: a group is a slice of it.
struct IntegerPrefetchGroups {
    let keys: [Int64]
    private let order: [Int]
    private let starts: [Int]

    /// Groups the prefetched rows by their value in column `pivotIndex`; nil
    /// when one is neither an integer nor NULL (a REAL equals an INTEGER of
    /// the same value: the general grouping handles it). NULL matches no key.
    init?(_ prefetched: PrefetchedSource, pivotIndex: Int, keys: [Int64]) {
        let count = prefetched.count
        // The slot of each row, and the number of rows of each slot (at
        // slot + 1, so that the prefix sums below give where each starts).
        var slots = [Int](repeating: -1, count: count)
        var starts = [Int](repeating: 0, count: keys.count + 1)
        let grouped = slots.withUnsafeMutableBufferPointer { slots in
            starts.withUnsafeMutableBufferPointer { counts in
                // Rows often come in runs of one key (an index on the foreign
                // key gives them in its order): a run searches its key once.
                var runKey: Int64?
                var runSlot = -1
                for index in 0..<count {
                    switch prefetched.keyCell(row: index, column: pivotIndex) {
                    case .integer(let key):
                        if key != runKey {
                            // A row of no key (the pivot matched by SQLite's
                            // conversions only) belongs to no group.
                            guard let slot = keys.sortedIndex(of: key) else { continue }
                            runKey = key
                            runSlot = slot
                        }
                        slots[index] = runSlot
                        counts[runSlot + 1] += 1
                    case .null:
                        continue
                    case .other:
                        return false
                    }
                }
                for slot in keys.indices { counts[slot + 1] += counts[slot] }
                return true
            }
        }
        guard grouped else { return nil }
        // A stable counting sort: each group keeps the query's order.
        var order = [Int](repeating: 0, count: starts[keys.count])
        var next = starts
        order.withUnsafeMutableBufferPointer { order in
            next.withUnsafeMutableBufferPointer { next in
                for (index, slot) in slots.enumerated() where slot >= 0 {
                    order[next[slot]] = index
                    next[slot] += 1
                }
            }
        }
        self.keys = keys
        self.order = order
        self.starts = starts
    }

    /// The indexes of the prefetched rows of `key`, in order; empty for a
    /// key no row has.
    func indexes(of key: Int64) -> ArraySlice<Int> {
        guard let slot = keys.sortedIndex(of: key) else { return [] }
        return order[starts[slot]..<starts[slot + 1]]
    }
}

/// The integer keys of `rows` in column `index`, sorted, without duplicates
/// or NULL; nil when one is neither an integer nor NULL.
func sortedIntegerKeys(of rows: [Row], atIndex index: Int) -> [Int64]? {
    var keys: [Int64] = []
    keys.reserveCapacity(rows.count)
    for row in rows {
        switch row.databaseValue(atIndex: index).storage {
        case .int64(let key): keys.append(key)
        case .null: continue
        default: return nil
        }
    }
    keys.sort()
    var uniqueCount = 0
    for index in keys.indices where uniqueCount == 0 || keys[index] != keys[uniqueCount - 1] {
        keys[uniqueCount] = keys[index]
        uniqueCount += 1
    }
    keys.removeLast(keys.count - uniqueCount)
    return keys
}

extension [Int64] {
    /// The index of `key` in this sorted array, by binary search; nil when absent.
    func sortedIndex(of key: Int64) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] == key ? low : nil
    }
}
