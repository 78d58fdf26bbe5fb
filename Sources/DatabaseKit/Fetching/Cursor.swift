/// A sequence of elements that may throw while iterating, such as the rows of
/// a database query.
///
/// ```swift
/// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player")
/// while let row = try rows.next() {
///     let name: String = row["name"]
/// }
/// ```
///
/// Cursors are classes, can not be repeated, and may throw. Database cursors
/// are lazy: they step SQLite one row at a time, in constant memory, and must
/// be used inside the database access block that created them.
///
/// The protocol comes with the operations of lazy sequences: `contains`,
/// `dropFirst`, `dropLast`, `drop(while:)`, `enumerated`, `filter`, `first`,
/// `flatMap`, `forEach`, `joined`, `max`, `min`, `map`, `prefix`, `reduce`,
/// `suffix`; and `Array`, `Set` and `Dictionary` initializers take cursors.
public protocol Cursor<Element>: AnyObject {
    /// The type of the elements.
    associatedtype Element

    /// The next element, or nil when the cursor is exhausted. Once nil has
    /// been returned, every later call returns nil.
    func next() throws -> Element?

    /// Calls `body` on each element. Cursors may implement it faster than a
    /// loop of ``next()``.
    func forEach(_ body: (Element) throws -> Void) throws
}

extension Cursor {
    /// True when the cursor has no element. It consumes one element.
    public var isEmpty: Bool {
        get throws { try next() == nil }
    }

    /// Calls `body` on each element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }

    /// True when an element satisfies the predicate (stops at the first).
    public func contains(where predicate: (Element) throws -> Bool) throws -> Bool {
        while let element = try next() {
            if try predicate(element) { return true }
        }
        return false
    }

    /// The first element that satisfies the predicate.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() {
            if try predicate(element) { return element }
        }
        return nil
    }

    /// A cursor of pairs: the position of each element, from 0, and the element.
    public func enumerated() -> EnumeratedCursor<Self> {
        EnumeratedCursor(self)
    }

    /// A cursor of the elements that satisfy the predicate.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(self, isIncluded)
    }

    /// A cursor of the transformed elements.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(self, transform)
    }

    /// A cursor of the non-nil transformed elements.
    public func compactMap<ElementOfResult>(_ transform: @escaping (Element) throws -> ElementOfResult?)
        -> MapCursor<FilterCursor<MapCursor<Self, ElementOfResult?>>, ElementOfResult>
    {
        map(transform).filter { $0 != nil }.map { $0.unsafelyUnwrapped }
    }

    /// A cursor that skips the elements while the predicate holds.
    public func drop(while predicate: @escaping (Element) throws -> Bool) -> DropWhileCursor<Self> {
        DropWhileCursor(self, predicate: predicate)
    }

    /// A cursor that skips the first `n` elements (a negative `n` skips none).
    public func dropFirst(_ n: Int) -> DropFirstCursor<Self> {
        DropFirstCursor(self, limit: n)
    }

    /// A cursor that skips the first element.
    public func dropFirst() -> DropFirstCursor<Self> {
        dropFirst(1)
    }

    /// All the elements but the last `n` (a negative `n` drops none).
    public func dropLast(_ n: Int) throws -> [Element] {
        guard n > 0 else { return try Array(self) }
        var result: [Element] = []
        var ring: [Element] = []
        ring.reserveCapacity(n)
        var position = 0
        while let element = try next() {
            if ring.count < n {
                ring.append(element)
            } else {
                result.append(ring[position])
                ring[position] = element
                position = (position + 1) % n
            }
        }
        return result
    }

    /// All the elements but the last.
    public func dropLast() throws -> [Element] {
        try dropLast(1)
    }

    /// A cursor over the concatenated sequences of each element.
    public func flatMap<SegmentOfResult: Sequence>(_ transform: @escaping (Element) throws -> SegmentOfResult)
        -> FlattenCursor<MapCursor<Self, AnyCursor<SegmentOfResult.Element>>>
    {
        flatMap { try AnyCursor(transform($0)) }
    }

    /// A cursor over the concatenated cursors of each element.
    public func flatMap<SegmentOfResult: Cursor>(_ transform: @escaping (Element) throws -> SegmentOfResult)
        -> FlattenCursor<MapCursor<Self, SegmentOfResult>>
    {
        map(transform).joined()
    }

    /// The greatest element by the ordering.
    public func max(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(result, element) { result = element }
        }
        return result
    }

    /// The least element by the ordering.
    public func min(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(element, result) { result = element }
        }
        return result
    }

    /// A cursor of the first `maxLength` elements (none for a negative length).
    public func prefix(_ maxLength: Int) -> PrefixCursor<Self> {
        PrefixCursor(self, maxLength: maxLength)
    }

    /// A cursor of the elements until the predicate fails.
    public func prefix(while predicate: @escaping (Element) throws -> Bool) -> PrefixWhileCursor<Self> {
        PrefixWhileCursor(self, predicate: predicate)
    }

    /// Combines the elements.
    public func reduce<Result>(_ initialResult: Result, _ nextPartialResult: (Result, Element) throws -> Result) throws -> Result {
        var result = initialResult
        while let element = try next() {
            result = try nextPartialResult(result, element)
        }
        return result
    }

    /// Combines the elements into a mutable result.
    public func reduce<Result>(into initialResult: Result, _ updateAccumulatingResult: (inout Result, Element) throws -> Void) throws
        -> Result
    {
        var result = initialResult
        while let element = try next() {
            try updateAccumulatingResult(&result, element)
        }
        return result
    }

    /// The last `maxLength` elements (none for a negative length).
    public func suffix(_ maxLength: Int) throws -> [Element] {
        guard maxLength > 0 else { return [] }
        var ring: [Element] = []
        ring.reserveCapacity(maxLength)
        var position = 0
        while let element = try next() {
            if ring.count < maxLength {
                ring.append(element)
            } else {
                ring[position] = element
                position = (position + 1) % maxLength
            }
        }
        return Array(ring[position...] + ring[..<position])
    }
}

extension Cursor where Element: Equatable {
    /// True when the cursor contains the element.
    public func contains(_ element: Element) throws -> Bool {
        while let candidate = try next() {
            if candidate == element { return true }
        }
        return false
    }
}

extension Cursor where Element: Comparable {
    /// The greatest element.
    public func max() throws -> Element? {
        try max(by: <)
    }

    /// The least element.
    public func min() throws -> Element? {
        try min(by: <)
    }
}

extension Cursor where Element: Cursor {
    /// A cursor over the elements of each cursor, in turn.
    public func joined() -> FlattenCursor<Self> {
        FlattenCursor(self)
    }
}

extension Cursor where Element: Sequence {
    /// A cursor over the elements of each sequence, in turn.
    public func joined() -> FlattenCursor<MapCursor<Self, AnyCursor<Element.Element>>> {
        flatMap { $0 }
    }
}

extension Cursor where Element: StringProtocol {
    /// The strings, concatenated with a separator.
    public func joined(separator: String = "") throws -> String {
        var result = ""
        if let first = try next() {
            result += first
            while let element = try next() {
                result += separator
                result += element
            }
        }
        return result
    }
}

// MARK: - Collections from cursors

extension RangeReplaceableCollection {
    /// All the elements of a cursor.
    ///
    /// ```swift
    /// let names = try Array(String.fetchCursor(db, sql: "SELECT name FROM player"))
    /// ```
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try append(contentsOf: cursor)
    }

    /// All the elements of a cursor, with room for `minimumCapacity` elements.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init()
        reserveCapacity(minimumCapacity)
        try append(contentsOf: cursor)
    }

    /// Appends the elements of a cursor. On error, some elements may have
    /// been appended.
    public mutating func append(contentsOf newElements: some Cursor<Element>) throws {
        try newElements.forEach { append($0) }
    }
}

extension Set {
    /// All the distinct elements of a cursor.
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try cursor.forEach { insert($0) }
    }

    /// All the distinct elements of a cursor, with room for `minimumCapacity`.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init(minimumCapacity: minimumCapacity)
        try cursor.forEach { insert($0) }
    }

    /// The set, with the elements of a cursor.
    public func union(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formUnion(cursor)
        return result
    }

    /// Adds the elements of a cursor.
    public mutating func formUnion(_ cursor: some Cursor<Element>) throws {
        while let element = try cursor.next() {
            insert(element)
        }
    }

    /// The elements of the set that the cursor contains.
    public func intersection(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formIntersection(cursor)
        return result
    }

    /// Keeps the elements that the cursor contains.
    public mutating func formIntersection(_ cursor: some Cursor<Element>) throws {
        formIntersection(try Set(cursor))
    }
}

extension Dictionary {
    /// The elements of a cursor, grouped by key.
    ///
    /// ```swift
    /// let playersByTeam = try Dictionary(grouping: Player.fetchCursor(db), by: { $0.teamID })
    /// ```
    public init<C: Cursor>(grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        self.init()
        try cursor.forEach { value in
            try self[keyForValue(value), default: []].append(value)
        }
    }

    /// The elements of a cursor, grouped by key, with room for
    /// `minimumCapacity` keys.
    public init<C: Cursor>(minimumCapacity: Int, grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        self.init(minimumCapacity: minimumCapacity)
        try cursor.forEach { value in
            try self[keyForValue(value), default: []].append(value)
        }
    }

    /// A dictionary from a cursor of key-value pairs.
    ///
    /// - throws: ``DatabaseError`` (SQLITE_MISUSE) when a key appears twice,
    ///   where the standard library's initializer stops the program.
    public init(uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init()
        try insertUniqueKeys(keysAndValues)
    }

    /// A dictionary from a cursor of key-value pairs, with room for
    /// `minimumCapacity` keys.
    ///
    /// - throws: ``DatabaseError`` (SQLITE_MISUSE) when a key appears twice.
    public init(minimumCapacity: Int, uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init(minimumCapacity: minimumCapacity)
        try insertUniqueKeys(keysAndValues)
    }

    private mutating func insertUniqueKeys(_ keysAndValues: some Cursor<(Key, Value)>) throws {
        try keysAndValues.forEach { key, value in
            if updateValue(value, forKey: key) != nil {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Duplicate values for key: '\(String(describing: key))'")
            }
        }
    }
}

extension Sequence {
    /// A cursor over the concatenated cursors of each element.
    public func flatMap<SegmentOfResult: Cursor>(_ transform: @escaping (Element) throws -> SegmentOfResult)
        -> FlattenCursor<MapCursor<AnyCursor<Element>, SegmentOfResult>>
    {
        AnyCursor(self).flatMap(transform)
    }
}

// MARK: - Cursor types

/// A type-erased cursor.
///
/// ```swift
/// func playerNames(_ db: Database) throws -> AnyCursor<String> {
///     try AnyCursor(String.fetchCursor(db, sql: "SELECT name FROM player"))
/// }
/// ```
public final class AnyCursor<Element>: Cursor {
    private let nextElement: () throws -> Element?
    private let iterate: ((Element) throws -> Void) throws -> Void

    /// Erases the type of a cursor.
    public init<C: Cursor>(_ base: C) where C.Element == Element {
        nextElement = base.next
        iterate = base.forEach
    }

    /// A cursor over the elements of an iterator.
    public convenience init(iterator: some IteratorProtocol<Element>) {
        var iterator = iterator
        self.init { iterator.next() }
    }

    /// A cursor over the elements of a sequence.
    public convenience init(_ sequence: some Sequence<Element>) {
        self.init(iterator: sequence.makeIterator())
    }

    /// A cursor whose elements are given by a function, until it returns nil.
    public init(_ next: @escaping () throws -> Element?) {
        nextElement = next
        iterate = { body in
            while let element = try next() { try body(element) }
        }
    }

    public func next() throws -> Element? {
        try nextElement()
    }

    public func forEach(_ body: (Element) throws -> Void) throws {
        try iterate(body)
    }
}

@available(*, unavailable)
extension AnyCursor: Sendable {}

/// A cursor that skips its first elements; see ``Cursor/dropFirst(_:)``.
public final class DropFirstCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let limit: Int
    private var dropped = 0

    init(_ base: Base, limit: Int) {
        self.base = base
        self.limit = Swift.max(limit, 0)
    }

    public func next() throws -> Base.Element? {
        while dropped < limit {
            if try base.next() == nil {
                dropped = limit
                return nil
            }
            dropped += 1
        }
        return try base.next()
    }
}

@available(*, unavailable)
extension DropFirstCursor: Sendable {}

/// A cursor that skips elements while a predicate holds; see ``Cursor/drop(while:)``.
public final class DropWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var predicateHasFailed = false

    init(_ base: Base, predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    public func next() throws -> Base.Element? {
        if predicateHasFailed { return try base.next() }
        while let element = try base.next() {
            if try !predicate(element) {
                predicateHasFailed = true
                return element
            }
        }
        return nil
    }
}

@available(*, unavailable)
extension DropWhileCursor: Sendable {}

/// A cursor of positions and elements; see ``Cursor/enumerated()``.
public final class EnumeratedCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var index = 0

    init(_ base: Base) {
        self.base = base
    }

    public func next() throws -> (Int, Base.Element)? {
        guard let element = try base.next() else { return nil }
        defer { index += 1 }
        return (index, element)
    }

    public func forEach(_ body: ((Int, Base.Element)) throws -> Void) throws {
        try base.forEach { element in
            defer { index += 1 }
            try body((index, element))
        }
    }
}

@available(*, unavailable)
extension EnumeratedCursor: Sendable {}

/// A cursor of the elements that satisfy a predicate; see ``Cursor/filter(_:)``.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool

    init(_ base: Base, _ isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    public func next() throws -> Base.Element? {
        while let element = try base.next() {
            if try isIncluded(element) { return element }
        }
        return nil
    }

    public func forEach(_ body: (Base.Element) throws -> Void) throws {
        try base.forEach { element in
            if try isIncluded(element) { try body(element) }
        }
    }
}

@available(*, unavailable)
extension FilterCursor: Sendable {}

/// A cursor over the elements of cursors; see ``Cursor/joined()->FlattenCursor<Self>``.
public final class FlattenCursor<Base: Cursor>: Cursor where Base.Element: Cursor {
    private let base: Base
    private var inner: Base.Element?

    init(_ base: Base) {
        self.base = base
    }

    public func next() throws -> Base.Element.Element? {
        while true {
            if let element = try inner?.next() { return element }
            guard let next = try base.next() else { return nil }
            inner = next
        }
    }
}

@available(*, unavailable)
extension FlattenCursor: Sendable {}

/// A cursor of transformed elements; see ``Cursor/map(_:)``.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element

    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    public func next() throws -> Element? {
        guard let element = try base.next() else { return nil }
        return try transform(element)
    }

    public func forEach(_ body: (Element) throws -> Void) throws {
        try base.forEach { element in try body(transform(element)) }
    }
}

@available(*, unavailable)
extension MapCursor: Sendable {}

/// A cursor of the first elements; see ``Cursor/prefix(_:)``.
public final class PrefixCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let maxLength: Int
    private var taken = 0

    init(_ base: Base, maxLength: Int) {
        self.base = base
        self.maxLength = maxLength
    }

    public func next() throws -> Base.Element? {
        if taken >= maxLength { return nil }
        taken += 1
        if let element = try base.next() { return element }
        taken = maxLength
        return nil
    }
}

@available(*, unavailable)
extension PrefixCursor: Sendable {}

/// A cursor of the elements until a predicate fails; see ``Cursor/prefix(while:)``.
public final class PrefixWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var predicateHasFailed = false

    init(_ base: Base, predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    public func next() throws -> Base.Element? {
        if !predicateHasFailed, let element = try base.next() {
            if try predicate(element) { return element }
            predicateHasFailed = true
        }
        return nil
    }
}

@available(*, unavailable)
extension PrefixWhileCursor: Sendable {}
