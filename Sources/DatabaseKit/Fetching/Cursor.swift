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
/// Database cursors are lazy: they step SQLite one row at a time, in constant
/// memory. They must be used inside the database access block that created
/// them: outside of it, `next()` throws.
public protocol Cursor<Element>: AnyObject {
    /// The type of the elements.
    associatedtype Element

    /// The next element, or nil when the cursor is exhausted.
    func next() throws -> Element?
}

extension Cursor {
    /// Calls `body` on each element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }

    /// A cursor of the transformed elements.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(base: self, transform: transform)
    }

    /// A cursor of the elements that satisfy the predicate.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(base: self, isIncluded: isIncluded)
    }

    /// A cursor of the non-nil transformed elements.
    public func compactMap<T>(_ transform: @escaping (Element) throws -> T?) -> MapCursor<FilterCursor<MapCursor<Self, T?>>, T> {
        map(transform).filter { $0 != nil }.map { $0! }
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
}

extension Cursor where Element: Equatable {
    /// True when the cursor contains the element.
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

/// A cursor of transformed elements. See ``Cursor/map(_:)``.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element

    init(base: Base, transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    public func next() throws -> Element? {
        try base.next().map(transform)
    }
}

/// A cursor of filtered elements. See ``Cursor/filter(_:)``.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool

    init(base: Base, isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    public func next() throws -> Base.Element? {
        while let element = try base.next() {
            if try isIncluded(element) { return element }
        }
        return nil
    }
}

extension Array {
    /// All the elements of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        self.init()
        while let element = try cursor.next() {
            append(element)
        }
    }
}

extension Set {
    /// All the distinct elements of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        self.init()
        while let element = try cursor.next() {
            insert(element)
        }
    }
}

/// The lifecycle shared by the cursors over a statement: it binds the
/// arguments, steps, resets the statement when done, and keeps the statement
/// out of the statement cache while iterating.
struct StatementIteration {
    let statement: Statement
    private(set) var isDone = false

    init(statement: Statement, arguments: StatementArguments?) throws {
        self.statement = statement
        try statement.prepareExecution(arguments: arguments)
        statement.isBorrowed = true
    }

    /// Steps to the next row; false when there is none.
    @inline(__always)
    mutating func step() throws -> Bool {
        if isDone { return false }
        try statement.database.checkAccess(for: statement)
        do {
            if try statement.step() { return true }
        } catch {
            finish()
            throw error
        }
        finish()
        return false
    }

    /// Resets the statement so it releases its locks, and gives it back to the cache.
    mutating func finish() {
        guard !isDone else { return }
        isDone = true
        statement.reset()
        statement.isBorrowed = false
    }
}
