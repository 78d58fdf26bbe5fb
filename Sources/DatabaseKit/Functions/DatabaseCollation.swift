internal import DatabaseKitSQLite
import FoundationEssentials

/// A custom string comparison for SQL `COLLATE` clauses.
///
/// ```swift
/// let collation = DatabaseCollation("localized_standard") { $0.localizedStandardCompare($1) }
/// try dbQueue.write { db in
///     db.add(collation: collation)
///     try db.execute(sql: "CREATE TABLE file (name TEXT COLLATE localized_standard)")
/// }
/// ```
///
/// Five collations are added to every connection: ``unicodeCompare``,
/// ``caseInsensitiveCompare``, ``localizedCaseInsensitiveCompare``,
/// ``localizedCompare`` and ``localizedStandardCompare``.
/// See <https://www.sqlite.org/datatype3.html#collation>.
public final class DatabaseCollation: Identifiable, Sendable {
    /// What identifies a collation: its name, compared case-insensitively.
    public struct ID: Hashable, Sendable {
        let name: String

        public static func == (lhs: Self, rhs: Self) -> Bool {
            sqlite3_stricmp(lhs.name, rhs.name) == 0
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name.lowercased())
        }
    }

    /// The collation's identity.
    public var id: ID { ID(name: name) }

    /// The name used in `COLLATE` clauses.
    public let name: String

    /// The comparison.
    let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation from a comparison function of strings.
    public init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = function
    }

    /// `swiftCompare`: Swift's `<` and `==` on strings.
    public static let unicodeCompare = DatabaseCollation("swiftCompare") { lhs, rhs in
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }
}

extension Database {
    /// Adds a collation to this connection, replacing the one with the same
    /// name.
    public func add(collation: DatabaseCollation) {
        collations[collation.id] = collation
        // The dictionary keeps the collation alive while SQLite may call it.
        let context = Unmanaged.passUnretained(collation).toOpaque()
        sqlite3_create_collation_v2(
            sqliteConnection, collation.name, SQLITE_UTF8, context,
            { context, length1, bytes1, length2, bytes2 in
                let collation = Unmanaged<DatabaseCollation>.fromOpaque(context!).takeUnretainedValue()
                let string1 = String(decoding: UnsafeRawBufferPointer(start: bytes1, count: Int(length1)), as: UTF8.self)
                let string2 = String(decoding: UnsafeRawBufferPointer(start: bytes2, count: Int(length2)), as: UTF8.self)
                return CInt(collation.compare(string1, string2).rawValue)
            }, nil)
    }

    /// Removes a collation from this connection.
    public func remove(collation: DatabaseCollation) {
        collations.removeValue(forKey: collation.id)
        sqlite3_create_collation_v2(sqliteConnection, collation.name, SQLITE_UTF8, nil, nil, nil)
    }

    /// The functions and collations GRDB adds to every connection.
    func addDefaultFunctionsAndCollations() {
        for function in [DatabaseFunction.capitalize, .lowercase, .uppercase] {
            add(function: function)
        }
        add(collation: .unicodeCompare)
        #if FoundationBridging
            addLocalizedFunctionsAndCollations()
        #endif
    }
}
