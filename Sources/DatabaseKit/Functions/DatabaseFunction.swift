internal import DatabaseKitSQLite
import FoundationEssentials

/// A custom SQL function, scalar or aggregate, written in Swift.
///
/// ```swift
/// let reverse = DatabaseFunction("reverse", argumentCount: 1, pure: true) { dbValues in
///     guard let string = String.fromDatabaseValue(dbValues[0]) else { return nil }
///     return String(string.reversed())
/// }
/// try dbQueue.write { db in
///     db.add(function: reverse)
///     try String.fetchOne(db, sql: "SELECT reverse('foo')")  // "oof"
/// }
/// ```
///
/// A function is added to one connection. To have it on every connection
/// of a ``DatabasePool`` (or of a queue that reopens), add it in
/// ``Configuration/prepareDatabase(_:)``.
///
/// An error thrown by the function fails the SQL statement that called it:
/// a ``DatabaseError`` with its result code and message, any other error
/// with its description as the message.
public final class DatabaseFunction: Identifiable, Sendable {
    /// What identifies a function in SQLite: its name (compared
    /// case-insensitively) and its number of arguments.
    public struct ID: Hashable, Sendable {
        let name: String
        /// -1 for a variadic function.
        let argumentCount: CInt

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.argumentCount == rhs.argumentCount && sqlite3_stricmp(lhs.name, rhs.name) == 0
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name.lowercased())
            hasher.combine(argumentCount)
        }
    }

    /// The function's identity.
    public let id: ID

    /// The function name, as called in SQL.
    public var name: String { id.name }

    /// True when the function always gives the same result for the same
    /// arguments (SQLITE_DETERMINISTIC): SQLite may then use it in indexes
    /// and factor calls out.
    let isPure: Bool

    let kind: Kind

    enum Kind: Sendable {
        case scalar(@Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
        case aggregate(@Sendable () -> any DatabaseAggregate)
    }

    /// A scalar function.
    ///
    /// - parameters:
    ///   - name: The SQL name.
    ///   - argumentCount: The number of arguments; nil (the default) for a
    ///     function that takes any number.
    ///   - pure: Whether the result depends on the arguments only.
    ///   - function: The function: it gets the arguments and returns the
    ///     result (nil for NULL).
    public init(
        _ name: String, argumentCount: Int? = nil, pure: Bool = false,
        function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?
    ) {
        self.id = ID(name: name, argumentCount: Self.sqliteArgumentCount(argumentCount))
        self.isPure = pure
        self.kind = .scalar(function)
    }

    /// An aggregate function: one `Aggregate` is created per group of rows,
    /// gets ``DatabaseAggregate/step(_:)`` for each row, and gives the result
    /// with ``DatabaseAggregate/finalize()``.
    ///
    /// ```swift
    /// let maxLength = DatabaseFunction("maxLength", argumentCount: 1, pure: true, aggregate: MaxLength.self)
    /// ```
    public init<Aggregate: DatabaseAggregate>(
        _ name: String, argumentCount: Int? = nil, pure: Bool = false, aggregate: Aggregate.Type
    ) {
        self.id = ID(name: name, argumentCount: Self.sqliteArgumentCount(argumentCount))
        self.isPure = pure
        self.kind = .aggregate { Aggregate() }
    }

    /// A call of the function in SQL, with arguments bound or written:
    /// `"SELECT \(reverse(Column("name"))) FROM player"`.
    public func callAsFunction(_ arguments: any SQLExpressible...) -> SQLExpression {
        SQLExpression(.function(name, arguments.map(\.sqlExpression)))
    }

    /// The `nArg` of `sqlite3_create_function_v2`: -1 for variadic, and -2
    /// (which SQLite refuses, with an error) for a count it can not take.
    private static func sqliteArgumentCount(_ count: Int?) -> CInt {
        guard let count else { return -1 }
        return CInt(exactly: count) ?? -2
    }

    var textEncodingFlags: CInt { SQLITE_UTF8 | (isPure ? SQLITE_DETERMINISTIC : 0) }
}

/// The state of a custom aggregate function; see
/// ``DatabaseFunction/init(_:argumentCount:pure:aggregate:)``.
///
/// ```swift
/// struct MaxLength: DatabaseAggregate {
///     var maxLength = 0
///     mutating func step(_ dbValues: [DatabaseValue]) {
///         if let string = String.fromDatabaseValue(dbValues[0]) {
///             maxLength = max(maxLength, string.count)
///         }
///     }
///     func finalize() -> (any DatabaseValueConvertible)? { maxLength }
/// }
/// ```
///
/// (`SendableMetatype`: the function, which may run on any connection's
/// thread, creates aggregates from the type.)
public protocol DatabaseAggregate: SendableMetatype {
    /// A new, empty aggregate: one per group of rows.
    init()
    /// Adds the arguments of one row. Throwing fails the statement.
    mutating func step(_ dbValues: [DatabaseValue]) throws
    /// The result (nil for NULL), once every row is added.
    func finalize() throws -> (any DatabaseValueConvertible)?
}

extension DatabaseFunction {
    /// `swiftCapitalizedString(x)`: `String.capitalized`, NULL for other
    /// values than strings. Added to every connection.
    public static let capitalize = DatabaseFunction("swiftCapitalizedString", argumentCount: 1, pure: true) { dbValues in
        String.fromDatabaseValue(dbValues[0])?.capitalized
    }

    /// `swiftLowercaseString(x)`: `String.lowercased()`. Added to every connection.
    public static let lowercase = DatabaseFunction("swiftLowercaseString", argumentCount: 1, pure: true) { dbValues in
        String.fromDatabaseValue(dbValues[0])?.lowercased()
    }

    /// `swiftUppercaseString(x)`: `String.uppercased()`. Added to every connection.
    public static let uppercase = DatabaseFunction("swiftUppercaseString", argumentCount: 1, pure: true) { dbValues in
        String.fromDatabaseValue(dbValues[0])?.uppercased()
    }
}
