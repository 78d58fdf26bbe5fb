#if FoundationBridging
    import Foundation

    extension NSNumber: DatabaseValueConvertible {
        /// An INTEGER when the number holds an integer that fits Int64 (an
        /// `NSDecimalNumber` without fraction included), a REAL otherwise.
        public var databaseValue: DatabaseValue {
            if let decimal = self as? NSDecimalNumber {
                // int64Value truncates or saturates: equal only for an exact integer.
                let int64 = decimal.int64Value
                if Decimal(int64) == decimal.decimalValue { return int64.databaseValue }
                return decimal.doubleValue.databaseValue
            }
            switch String(cString: objCType) {
            case "c", "C", "s", "S", "i", "I", "l", "q", "B":
                return int64Value.databaseValue
            case "L", "Q":
                // Unsigned 64-bit: exact as INTEGER up to Int64.max.
                return uint64Value <= UInt64(Int64.max) ? int64Value.databaseValue : doubleValue.databaseValue
            default:
                return doubleValue.databaseValue
            }
        }

        /// An `NSNumber` (or `NSDecimalNumber`) from an INTEGER or a REAL, and
        /// an `NSDecimalNumber` from a TEXT holding a decimal number (for
        /// `NSNumber` too, as GRDB does).
        public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
            switch dbValue.storage {
            case .int64(let int64):
                return (self is NSDecimalNumber.Type ? NSDecimalNumber(value: int64) : NSNumber(value: int64)) as? Self
            case .double(let double):
                return (self is NSDecimalNumber.Type ? NSDecimalNumber(value: double) : NSNumber(value: double)) as? Self
            case .string(let string):
                guard let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
                return NSDecimalNumber(decimal: decimal) as? Self
            default:
                return nil
            }
        }
    }
#endif
