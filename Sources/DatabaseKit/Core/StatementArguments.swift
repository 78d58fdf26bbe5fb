import Foundation

/// The values bound to the parameters of a statement: positional (`?`) and
/// named (`:name`, `$name`, `@name`).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)",
///                arguments: ["Barbara", 1000])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE id = :id",
///                arguments: ["score": 1000, "id": 1])
/// ```
///
/// Positional values feed `?` parameters in order, and also named parameters
/// for which no named value is given. A missing value or a left-over
/// positional value is an error: nothing is ever bound as NULL by accident.
/// Named values that no parameter uses are ignored, as in GRDB.
public struct StatementArguments: Hashable, Sendable {
    /// The positional values, in order.
    public private(set) var values: [DatabaseValue]

    /// The named values, keyed by parameter name without its prefix.
    public private(set) var namedValues: [String: DatabaseValue]

    /// True when there is no value at all.
    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// Creates empty arguments.
    public init() {
        values = []
        namedValues = [:]
    }

    /// Creates positional arguments from a sequence of values (nil is NULL).
    public init(_ values: some Sequence<(any DatabaseValueConvertible)?>) {
        self.values = values.map { $0?.databaseValue ?? .null }
        namedValues = [:]
    }

    /// Creates positional arguments from a sequence of values of one type.
    public init(_ values: some Sequence<some DatabaseValueConvertible>) {
        self.values = values.map(\.databaseValue)
        namedValues = [:]
    }

    /// Creates positional arguments from an array of values of any type, or
    /// returns nil when one of them is not ``DatabaseValueConvertible``
    /// (Foundation's `NSNull` is NULL).
    ///
    /// ```swift
    /// let values: [Any] = ["Arthur", 41, NSNull()]
    /// let arguments = StatementArguments(values)!
    /// ```
    public init?(_ array: [Any]) {
        var values: [DatabaseValue] = []
        values.reserveCapacity(array.count)
        for value in array {
            guard let dbValue = DatabaseValue(value: value) else { return nil }
            values.append(dbValue)
        }
        self.values = values
        namedValues = [:]
    }

    /// Creates named arguments from a dictionary (nil is NULL).
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        values = []
        namedValues = dictionary.mapValues { $0?.databaseValue ?? .null }
    }

    /// Creates named arguments from a sequence of names and values (nil is
    /// NULL); a later value of a name replaces an earlier one.
    public init(_ keysAndValues: some Sequence<(String, (any DatabaseValueConvertible)?)>) {
        values = []
        var namedValues: [String: DatabaseValue] = .init(minimumCapacity: keysAndValues.underestimatedCount)
        for (name, value) in keysAndValues {
            namedValues[name] = value?.databaseValue ?? .null
        }
        self.namedValues = namedValues
    }

    /// Creates named arguments from a dictionary of any values, or returns
    /// nil when a key is not a String or a value is not
    /// ``DatabaseValueConvertible``.
    public init?(_ dictionary: [AnyHashable: Any]) {
        var namedValues: [String: DatabaseValue] = .init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary {
            guard let name = key as? String, let dbValue = DatabaseValue(value: value) else { return nil }
            namedValues[name] = dbValue
        }
        self.values = []
        self.namedValues = namedValues
    }

    /// Creates named arguments from a dictionary of values of one type.
    public init<Value: DatabaseValueConvertible>(_ dictionary: [String: Value]) {
        values = []
        namedValues = dictionary.mapValues(\.databaseValue)
    }

    /// Creates positional and named arguments at once.
    public init(values: [DatabaseValue], namedValues: [String: DatabaseValue]) {
        self.values = values
        self.namedValues = namedValues
    }

    /// Appends the positional values of `other`, and merges its named values.
    ///
    /// - returns: The named values that `other` replaced.
    @discardableResult
    public mutating func append(contentsOf other: StatementArguments) -> [String: DatabaseValue] {
        values.append(contentsOf: other.values)
        var replaced: [String: DatabaseValue] = [:]
        for (name, value) in other.namedValues {
            if let old = namedValues.updateValue(value, forKey: name) {
                replaced[name] = old
            }
        }
        return replaced
    }

    /// Concatenates positional values, and adds the named values of `rhs`.
    /// Where GRDB stops the program when both sides name the same
    /// argument, the value of `rhs` wins.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result += rhs
        return result
    }

    /// Concatenates positional values, and adds the named values of `rhs`,
    /// which replace those of `lhs` with the same name.
    public static func &+ (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// Appends the values of `rhs`; named values of `rhs` win (GRDB stops
    /// the program when both sides name the same argument).
    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        lhs.append(contentsOf: rhs)
    }

    /// Appends one positional value.
    mutating func append(value: DatabaseValue) {
        values.append(value)
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    /// `[1, "foo", nil]`
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        // A plain loop: this runs once per execution of a statement.
        var values: [DatabaseValue] = []
        values.reserveCapacity(elements.count)
        elements.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // Through the pointer, each existential is read in place, not copied.
            for index in 0..<buffer.count {
                values.append((base + index).pointee?.databaseValue ?? .null)
            }
        }
        self.values = values
        self.namedValues = [:]
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    /// `["name": "Arthur", "score": nil]`
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var namedValues: [String: DatabaseValue] = .init(minimumCapacity: elements.count)
        for (name, value) in elements {
            namedValues[name] = value?.databaseValue ?? .null
        }
        self.values = []
        self.namedValues = namedValues
    }
}

extension StatementArguments: CustomStringConvertible {
    /// `[1, "foo"]`, `["name": "foo"]`, or both, named values first:
    /// `["name": "foo", 1]`.
    public var description: String {
        let named = namedValues.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }
        let positional = values.map(\.description)
        return "[" + (named + positional).joined(separator: ", ") + "]"
    }
}
