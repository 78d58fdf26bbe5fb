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
/// for which no named value is given. A missing value, a left-over positional
/// value, or a named value that no parameter uses is an error: nothing is ever
/// bound as NULL by accident.
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
    public init<S: Sequence>(_ sequence: S) where S.Element == (any DatabaseValueConvertible)? {
        values = sequence.map { $0?.databaseValue ?? .null }
        namedValues = [:]
    }

    /// Creates positional arguments from a sequence of values of one type.
    public init<S: Sequence>(_ sequence: S) where S.Element: DatabaseValueConvertible {
        values = sequence.map(\.databaseValue)
        namedValues = [:]
    }

    /// Creates named arguments from a dictionary (nil is NULL).
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        values = []
        namedValues = dictionary.mapValues { $0?.databaseValue ?? .null }
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

    /// Concatenates positional values; named values of `rhs` win.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result += rhs
        return result
    }

    /// Concatenates positional values; named values of `lhs` win.
    public static func &+ (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.values.append(contentsOf: rhs.values)
        result.namedValues.merge(rhs.namedValues) { old, _ in old }
        return result
    }

    /// Appends the values of `rhs`; named values of `rhs` win.
    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        lhs.append(contentsOf: rhs)
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
    /// `[1, "foo"]`, `[name: "foo"]`, or both: `[1, name: "foo"]`.
    public var description: String {
        let positional = values.map(\.description)
        let named = namedValues.keys.sorted().map { "\($0): \(namedValues[$0]!)" }
        return "[" + (positional + named).joined(separator: ", ") + "]"
    }
}
