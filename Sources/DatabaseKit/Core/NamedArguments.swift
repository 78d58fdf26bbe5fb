internal import DatabaseKitSQLite

/// One named value: the name without its prefix (`:`, `$`, `@`).
struct NamedArgument: Sendable {
    let name: String
    let value: DatabaseValue
}

/// The named values of statement arguments, in the order they were given,
/// in one allocation.
///
/// Named arguments are built, bound and dropped once per execution, so their
/// storage is chosen for that, like ``ArgumentValues``: an `Array` of
/// pairs would be destroyed by the runtime's generic witnesses, pair after
/// pair, while this buffer destroys its pairs with code compiled for them.
///
/// `Sendable` because its storage is never changed once built (see
/// ``build(count:_:)``): the buffer is only read after that.
struct NamedArguments: @unchecked Sendable {
    private let storage: Storage

    /// Named values, built by `fill`, which appends at most `count` pairs
    /// (more are not stored).
    @inline(__always)
    static func build(count: Int, _ fill: (inout Builder) throws -> Void) rethrows -> NamedArguments {
        let storage = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in 0 }, to: Storage.self)
        try storage.withUnsafeMutablePointers { storedCount, elements in
            var builder = Builder(elements: elements, capacity: count)
            // Counted as they come, so that a throwing `fill` leaves no
            // pair behind for the deinitializer to miss.
            defer { storedCount.pointee = builder.count }
            try fill(&builder)
        }
        return NamedArguments(storage: storage)
    }

    /// Named values from pairs.
    static func build(_ arguments: some Collection<NamedArgument>) -> NamedArguments {
        build(count: arguments.count) { builder in
            for argument in arguments { builder.append(argument.value, named: argument.name) }
        }
    }

    /// Appends pairs to named values under construction, up to the count
    /// they were built for.
    struct Builder: ~Copyable {
        private let elements: UnsafeMutablePointer<NamedArgument>
        private let capacity: Int
        fileprivate private(set) var count = 0

        fileprivate init(elements: UnsafeMutablePointer<NamedArgument>, capacity: Int) {
            self.elements = elements
            self.capacity = capacity
        }

        /// Appends a named value; ignored when the count is reached.
        @inline(__always)
        mutating func append(_ value: DatabaseValue, named name: String) {
            guard count < capacity else { return }
            (elements + count).initialize(to: NamedArgument(name: name, value: value))
            count += 1
        }
    }

    /// The number of named values.
    var count: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee } }

    /// Calls `body` with the pairs, in order.
    @inline(__always)
    func withArguments<R>(_ body: (UnsafeBufferPointer<NamedArgument>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { count, elements in
            try body(UnsafeBufferPointer(start: elements, count: count.pointee))
        }
    }

    /// Binds the value at `positions[i]` to the parameter `i + 1`, for each
    /// position (each lower than ``count``), and returns SQLite's result
    /// code: that of the first failure, or `SQLITE_OK`.
    func bind(_ positions: [Int], to sqliteStatement: OpaquePointer) -> CInt {
        storage.withUnsafeMutablePointers { _, elements in
            positions.withUnsafeBufferPointer { positions in
                for index in 0..<positions.count {
                    let parameter = CInt(truncatingIfNeeded: index + 1)
                    let element = elements + positions[index]
                    let code: CInt
                    // Numbers read in place: calling a method of the value
                    // would copy it out of the buffer, and destroy the copy.
                    switch element.pointee.value.storage {
                    case .null: code = sqlite3_bind_null(sqliteStatement, parameter)
                    case .int64(let int64): code = sqlite3_bind_int64(sqliteStatement, parameter, int64)
                    case .double(let double): code = sqlite3_bind_double(sqliteStatement, parameter, double)
                    case .string, .blob: code = element.pointee.value.bind(to: sqliteStatement, at: parameter)
                    }
                    if code != SQLITE_OK { return code }
                }
                return SQLITE_OK
            }
        }
    }

    /// True when the names are `names`, in this order.
    func hasNames(_ names: [String]) -> Bool {
        storage.withUnsafeMutablePointers { count, elements in
            guard count.pointee == names.count else { return false }
            return names.withUnsafeBufferPointer { names in
                for index in 0..<names.count where elements[index].name != names[index] { return false }
                return true
            }
        }
    }

    /// The names, in order.
    var names: [String] { withArguments { $0.map(\.name) } }

    /// The pairs, in order.
    var arguments: [NamedArgument] { withArguments { Array($0) } }

    /// The buffer: a count of pairs, then the pairs.
    fileprivate final class Storage: ManagedBuffer<Int, NamedArgument> {
        deinit {
            // Where the name of a pair lies (a stored property has one).
            let nameOffset = MemoryLayout<NamedArgument>.offset(of: \.name)
            withUnsafeMutablePointers { count, elements in
                // One pair at a time: `deinitialize(count:)` would go through
                // the runtime's generic array destruction.
                for index in 0..<count.pointee {
                    let element = elements + index
                    switch element.pointee.value.storage {
                    case .null, .int64, .double:
                        // A number holds no reference (`storage` is all a
                        // DatabaseValue stores): only the name is released.
                        if let nameOffset {
                            _ = (UnsafeMutableRawPointer(element) + nameOffset).assumingMemoryBound(to: String.self).move()
                        } else {
                            _ = element.move()
                        }
                    case .string, .blob:
                        _ = element.move()
                    }
                }
            }
        }
    }
}

/// Finds named values by name, the last value of a name winning: by a
/// backward scan for the few names statements usually take, through a
/// dictionary of positions built once for many.
struct NamedArgumentLookup {
    private let arguments: NamedArguments?
    private let positions: [String: Int]?

    /// Above this count, a scan per lookup costs more than hashing once.
    static let scanLimit = 16

    init(_ arguments: NamedArguments?) {
        self.arguments = arguments
        positions = arguments.flatMap { arguments in
            guard arguments.count > Self.scanLimit else { return nil }
            return arguments.withArguments { pairs in
                Dictionary(pairs.indices.lazy.map { (pairs[$0].name, $0) }, uniquingKeysWith: { _, last in last })
            }
        }
    }

    /// The position among the arguments of the last value given for
    /// `name`, or nil.
    func index(named name: String) -> Int? {
        if let positions { return positions[name] }
        return arguments?.withArguments { pairs in
            pairs.lastIndex { $0.name == name }
        }
    }

    /// The last value given for `name`, or nil.
    func value(named name: String) -> DatabaseValue? {
        guard let arguments, let index = index(named: name) else { return nil }
        return arguments.withArguments { $0[index].value }
    }
}
