import FoundationEssentials

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
    /// The positional values, stored for binding (see ``ArgumentValues``).
    private(set) var positional: ArgumentValues

    /// The named values in the order they were given; nil when there is
    /// none, so that copying positional arguments, as each execution does,
    /// retains one buffer. A name may appear more than once: its last value
    /// wins. A list rather than a dictionary, because hashing names costs
    /// more than binding them: statements find their values by comparing
    /// names in order (see `NamedBindingPlan`).
    private(set) var namedArguments: NamedArguments?

    /// The positional values, in order.
    public var values: [DatabaseValue] { positional.databaseValues }

    /// The named values, keyed by parameter name without its prefix.
    public var namedValues: [String: DatabaseValue] {
        guard let namedArguments else { return [:] }
        return Dictionary(namedArguments.arguments.lazy.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// True when there is no value at all.
    public var isEmpty: Bool { positional.isEmpty && !hasNamedValues }

    /// True when there is a named value.
    var hasNamedValues: Bool { namedArguments != nil }

    /// Creates empty arguments.
    public init() {
        positional = ArgumentValues()
    }

    /// Positional values kept as the array they are (a record's columns, a
    /// key): no conversion, no dictionary of named values to build.
    init(databaseValues: [DatabaseValue]) {
        self.init(positional: ArgumentValues(databaseValues: databaseValues))
    }

    /// The positional values when they are kept as an array (a record's
    /// columns, a key), moved out of these arguments; nil otherwise.
    mutating func takeValueArray() -> [DatabaseValue]? {
        if namedArguments != nil { return nil }
        return positional.takeArray()
    }

    /// Positional values and named values, as stored.
    init(positional: ArgumentValues, named: NamedArguments? = nil) {
        self.positional = positional
        self.namedArguments = named.flatMap { $0.count == 0 ? nil : $0 }
    }

    /// Positional values and named values given as pairs.
    init(positional: ArgumentValues, named: [NamedArgument]) {
        self.init(positional: positional, named: named.isEmpty ? nil : NamedArguments.build(named))
    }

    /// Creates positional arguments from a sequence of values (nil is NULL).
    public init(_ values: some Sequence<(any DatabaseValueConvertible)?>) {
        self.init(positional: ArgumentValues(values.lazy.map { $0?.databaseValue ?? .null }))
    }

    /// Creates positional arguments from a sequence of values of one type.
    public init(_ values: some Sequence<some DatabaseValueConvertible>) {
        self.init(positional: ArgumentValues(values.lazy.map(\.databaseValue)))
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
        var values = ArgumentValues(minimumCapacity: array.count)
        for value in array {
            guard let dbValue = DatabaseValue(value: value) else { return nil }
            values.append(dbValue)
        }
        self.init(positional: values)
    }

    /// Creates named arguments from a dictionary (nil is NULL).
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        self.init(dictionary.lazy.map { ($0.key, $0.value) })
    }

    /// Creates named arguments from a sequence of names and values (nil is
    /// NULL); a later value of a name replaces an earlier one.
    public init(_ keysAndValues: some Sequence<(String, (any DatabaseValueConvertible)?)>) {
        self.init(positional: ArgumentValues(), named: keysAndValues.map { NamedArgument(name: $0.0, value: $0.1?.databaseValue ?? .null) } as [NamedArgument])
    }

    /// Creates named arguments from a dictionary of any values, or returns
    /// nil when a key is not a String or a value is not
    /// ``DatabaseValueConvertible``.
    public init?(_ dictionary: [AnyHashable: Any]) {
        var named: [NamedArgument] = []
        named.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let name = key as? String, let dbValue = DatabaseValue(value: value) else { return nil }
            named.append(NamedArgument(name: name, value: dbValue))
        }
        self.init(positional: ArgumentValues(), named: named)
    }

    /// Creates named arguments from a dictionary of values of one type.
    public init<Value: DatabaseValueConvertible>(_ dictionary: [String: Value]) {
        self.init(positional: ArgumentValues(), named: dictionary.map { NamedArgument(name: $0.key, value: $0.value.databaseValue) })
    }

    /// Creates positional and named arguments at once.
    public init(values: [DatabaseValue], namedValues: [String: DatabaseValue]) {
        self.init(
            positional: ArgumentValues(databaseValues: values),
            named: namedValues.isEmpty ? [] : namedValues.map { NamedArgument(name: $0.key, value: $0.value) })
    }

    /// Appends the positional values of `other`, and merges its named values.
    ///
    /// - returns: The named values that `other` replaced.
    @discardableResult
    public mutating func append(contentsOf other: StatementArguments) -> [String: DatabaseValue] {
        positional.append(contentsOf: other.positional)
        var replaced: [String: DatabaseValue] = [:]
        guard let otherNamed = other.namedArguments else { return replaced }
        if let named = namedArguments {
            let lookup = NamedArgumentLookup(named)
            let added = otherNamed.arguments
            for argument in added {
                if let old = lookup.value(named: argument.name) { replaced[argument.name] = old }
            }
            namedArguments = NamedArguments.build(named.arguments + added)
        } else {
            namedArguments = otherNamed
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

    /// Leaves the buffer of the positional values to the next argument
    /// literal (see ``SpareArgumentSlots``). For arguments about to be
    /// dropped.
    mutating func leaveSpareSlots() {
        positional.leaveSpareSlots()
    }

    /// Appends one positional value.
    mutating func append(value: DatabaseValue) {
        positional.append(value)
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    /// `[1, "foo", nil]`
    @inlinable
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        // Inlined into the caller, which then destroys its array of
        // elements in place; a call would hand the array over, for a
        // release through the runtime's generic path (about 100
        // instructions per execution).
        self = elements.withUnsafeBufferPointer { StatementArguments(convertingLiteral: $0) }
    }

    /// The values of an argument literal. This runs once per execution of
    /// a statement: the values go into the spare buffer of slots, read in
    /// place.
    @usableFromInline
    init(convertingLiteral elements: UnsafeBufferPointer<(any DatabaseValueConvertible)?>) {
        self.init(positional: ArgumentValues(convertingInPlace: UnsafeMutableBufferPointer(mutating: elements)))
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    /// `["name": "Arthur", "score": nil]`
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        // A plain loop reading each pair in place: this runs once per
        // execution of a statement. No dictionary: see `namedArguments`.
        //
        // Each field is read through a pointer of its own type: going through
        // the pair (`pointee.0`) copies and destroys the whole tuple with the
        // runtime's generic tuple witnesses (measured: 130 instructions per
        // argument). A tuple's memory is bound to its element types, at the
        // offsets MemoryLayout gives.
        if elements.isEmpty {
            self.init()
            return
        }
        //
        // The names are moved out of the literal, which the initializer
        // owns, and an empty string put in their place: copying each name
        // would retain it, for the literal to release it right after.
        typealias Pair = (String, (any DatabaseValueConvertible)?)
        var elements = elements
        let named = NamedArguments.build(count: elements.count) { named in
            elements.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                guard let valueOffset = MemoryLayout<Pair>.offset(of: \Pair.1) else {
                    // Not expected (a tuple's elements are stored): the copying loop.
                    for (name, value) in buffer {
                        named.append(value?.databaseValue ?? .null, named: name)
                    }
                    return
                }
                var element = UnsafeMutableRawPointer(base)
                for _ in 0..<buffer.count {
                    defer { element += MemoryLayout<Pair>.stride }
                    let value = (element + valueOffset).assumingMemoryBound(to: (any DatabaseValueConvertible)?.self)
                    let name = element.assumingMemoryBound(to: String.self)
                    named.append(databaseValue(inPlace: &value.pointee), named: name.move())
                    name.initialize(to: "")
                }
            }
        }
        self.init(positional: ArgumentValues(), named: named)
    }
}

/// The database value of an optional existential, read where it lies.
///
/// Reading `value?.databaseValue` from a constant (an array element, a
/// pointee) first copies the whole `Optional<any DatabaseValueConvertible>`
/// with the runtime's generic witnesses of `Optional` and of the existential
/// (measured: 110 instructions per value), because the optimizer can not
/// prove that nothing changes the memory during the call; through an `inout`
/// access, `value?.databaseValue` still copies the wrapped value into a
/// temporary around the call. Optional chaining to a mutating method opens
/// the existential in place, and the getter reads it there.
///
/// Callers pass memory they only read (the elements of a literal): the
/// access writes nothing, but for a value boxed out of line whose box is
/// shared, which the runtime replaces with an unshared copy of the same
/// value before the mutating call.
@inline(__always)
func databaseValue(inPlace value: inout (any DatabaseValueConvertible)?) -> DatabaseValue {
    var result = DatabaseValue.null
    value?.storeDatabaseValue(in: &result)
    return result
}

extension DatabaseValueConvertible {
    /// Stores ``databaseValue`` in `result`. Mutating, though it changes
    /// nothing, so that optional chaining calls it on an existential in place
    /// (see `databaseValue(inPlace:)`).
    @inline(__always)
    fileprivate mutating func storeDatabaseValue(in result: inout DatabaseValue) {
        result = databaseValue
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

extension StatementArguments {
    /// Equal when the positional values are equal and each name has the same
    /// (last) value, whatever the order the names were given in.
    public static func == (lhs: StatementArguments, rhs: StatementArguments) -> Bool {
        lhs.values == rhs.values && lhs.namedValues == rhs.namedValues
    }

    /// Hashes what `==` compares: the positional values, and the last value
    /// of each name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
        hasher.combine(namedValues)
    }
}
