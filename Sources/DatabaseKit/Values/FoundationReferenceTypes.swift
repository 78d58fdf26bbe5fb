#if FoundationBridging
    internal import DatabaseKitSQLite
    import Foundation

    // Foundation's reference types as database values (NSString, NSData,
    // NSDate, NSURL, NSUUID, NSNull), as GRDB defines them: behind the
    // FoundationBridging trait, because they link the part of Foundation that
    // carries ICU's data.

    extension NSString: DatabaseValueConvertible {
        /// Stored as TEXT.
        public var databaseValue: DatabaseValue { (self as String).databaseValue }

        /// As `String` converts.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            String.fromDatabaseValue(dbValue).flatMap { NSString(string: $0) as? Self }
        }
    }

    extension NSData: DatabaseValueConvertible {
        /// Stored as BLOB.
        public var databaseValue: DatabaseValue { (self as Data).databaseValue }

        /// As `Data` converts.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            Data.fromDatabaseValue(dbValue).flatMap { NSData(data: $0) as? Self }
        }
    }

    extension NSDate: DatabaseValueConvertible {
        /// Stored as `Date` is.
        public var databaseValue: DatabaseValue { (self as Date).databaseValue }

        /// As `Date` converts.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            Date.fromDatabaseValue(dbValue).flatMap { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) as? Self }
        }
    }

    extension NSURL: DatabaseValueConvertible {
        /// Stored as its absolute string.
        public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

        /// As `URL` converts.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            String.fromDatabaseValue(dbValue).flatMap { NSURL(string: $0) as? Self }
        }
    }

    extension NSUUID: DatabaseValueConvertible {
        /// Stored as a 16-byte BLOB.
        public var databaseValue: DatabaseValue { (self as UUID).databaseValue }

        /// As `UUID` converts.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            UUID.fromDatabaseValue(dbValue).flatMap { NSUUID(uuidString: $0.uuidString) as? Self }
        }
    }

    extension NSNull: DatabaseValueConvertible {
        /// NULL.
        public var databaseValue: DatabaseValue { .null }

        /// Never: a NULL is nil, not NSNull.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? { nil }
    }

    // MARK: - Foundation reference types

    extension DatabaseValueConvertible where Self: ReferenceConvertible, ReferenceType: DatabaseValueConvertible {
        /// The reference type's database value.
        public var databaseValue: DatabaseValue {
            (self as? ReferenceType)?.databaseValue ?? .null
        }

        /// A value bridged from the reference type's conversion.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            ReferenceType.fromDatabaseValue(dbValue).flatMap { $0 as? Self }
        }
    }

    extension CGFloat: DatabaseValueConvertible, StatementColumnConvertible {
        /// Stored as REAL.
        public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

        public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
            sqlite3_bind_double(sqliteStatement, index, Double(self))
        }

        /// An INTEGER or a REAL.
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> CGFloat? {
            Double.fromDatabaseValue(dbValue).map { CGFloat($0) }
        }

        /// SQLite's REAL conversion of the column.
        public init(sqliteStatement: SQLiteStatement, index: CInt) {
            self = CGFloat(sqlite3_column_double(sqliteStatement, index))
        }
    }
#endif
