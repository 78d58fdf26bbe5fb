extension Database {
    /// A declared column type, as written in `CREATE TABLE`. SQLite derives
    /// the column affinity from it (https://www.sqlite.org/datatype3.html).
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        /// The SQL of the type, such as "TEXT".
        public let rawValue: String

        /// A type from its SQL.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// TEXT affinity.
        public static let text = ColumnType(rawValue: "TEXT")
        /// `TEXT`, for JSON text.
        public static let jsonText = ColumnType(rawValue: "TEXT")
        /// `BLOB`, for SQLite's binary JSON (JSONB).
        public static let jsonb = ColumnType(rawValue: "BLOB")
        /// INTEGER affinity.
        public static let integer = ColumnType(rawValue: "INTEGER")
        /// REAL affinity, declared "DOUBLE".
        public static let double = ColumnType(rawValue: "DOUBLE")
        /// REAL affinity.
        public static let real = ColumnType(rawValue: "REAL")
        /// NUMERIC affinity.
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        /// NUMERIC affinity, declared "BOOLEAN".
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        /// BLOB affinity.
        public static let blob = ColumnType(rawValue: "BLOB")
        /// NUMERIC affinity, declared "DATE".
        public static let date = ColumnType(rawValue: "DATE")
        /// NUMERIC affinity, declared "DATETIME".
        public static let datetime = ColumnType(rawValue: "DATETIME")
        /// No affinity (BLOB), declared "ANY" (the type of STRICT tables that accepts anything).
        public static let any = ColumnType(rawValue: "ANY")
        /// TEXT affinity, declared "JSON".
        public static let json = ColumnType(rawValue: "JSON")
    }

    /// The conflict resolution algorithms of `ON CONFLICT` and `INSERT OR ...`
    /// (https://www.sqlite.org/lang_conflict.html).
    public enum ConflictResolution: String, Sendable {
        /// Rolls back the whole transaction.
        case rollback = "ROLLBACK"
        /// Undoes the statement, keeps the transaction (the default).
        case abort = "ABORT"
        /// Stops the statement, keeping the changes it made before the conflict.
        case fail = "FAIL"
        /// Skips the conflicting row and goes on.
        case ignore = "IGNORE"
        /// Deletes the conflicting rows, then inserts or updates.
        case replace = "REPLACE"
    }

    /// The actions of `ON DELETE` and `ON UPDATE` foreign key clauses.
    public enum ForeignKeyAction: String, Sendable {
        /// Deletes or updates the child rows too.
        case cascade = "CASCADE"
        /// Refuses the change at once while child rows exist.
        case restrict = "RESTRICT"
        /// Sets the child columns to NULL.
        case setNull = "SET NULL"
        /// Sets the child columns to their defaults.
        case setDefault = "SET DEFAULT"
    }

    /// An SQLite storage class: <https://www.sqlite.org/datatype3.html>.
    public struct StorageClass: RawRepresentable, Hashable, Sendable {
        /// The SQL of the storage class: "INTEGER", "REAL", ...
        public let rawValue: String
        /// A storage class.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `INTEGER`.
        public static let integer = StorageClass(rawValue: "INTEGER")
        /// `REAL`.
        public static let real = StorageClass(rawValue: "REAL")
        /// `TEXT`.
        public static let text = StorageClass(rawValue: "TEXT")
        /// `BLOB`.
        public static let blob = StorageClass(rawValue: "BLOB")
    }

    /// A collation name, for `COLLATE` clauses.
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        /// The collation's name.
        public let rawValue: String

        /// A collation from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Byte-wise comparison, SQLite's default.
        public static let binary = CollationName(rawValue: "BINARY")
        /// ASCII case-insensitive comparison.
        public static let nocase = CollationName(rawValue: "NOCASE")
        /// Comparison that ignores trailing spaces.
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }
}
