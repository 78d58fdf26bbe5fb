#if FoundationBridging
    import Foundation

    // GRDB's functions and collations that go through Foundation's string
    // comparisons and locales: behind the FoundationBridging trait, because
    // they link ICU's data.

    extension DatabaseCollation {
        /// `swiftCaseInsensitiveCompare`: `String.caseInsensitiveCompare(_:)`.
        public static let caseInsensitiveCompare = DatabaseCollation("swiftCaseInsensitiveCompare") { lhs, rhs in
            lhs.caseInsensitiveCompare(rhs)
        }

        /// `swiftLocalizedCaseInsensitiveCompare`: `String.localizedCaseInsensitiveCompare(_:)`.
        public static let localizedCaseInsensitiveCompare = DatabaseCollation("swiftLocalizedCaseInsensitiveCompare") { lhs, rhs in
            lhs.localizedCaseInsensitiveCompare(rhs)
        }

        /// `swiftLocalizedCompare`: `String.localizedCompare(_:)`.
        public static let localizedCompare = DatabaseCollation("swiftLocalizedCompare") { lhs, rhs in
            lhs.localizedCompare(rhs)
        }

        /// `swiftLocalizedStandardCompare`: `String.localizedStandardCompare(_:)`,
        /// the Finder's order ("file2" before "file10").
        public static let localizedStandardCompare = DatabaseCollation("swiftLocalizedStandardCompare") { lhs, rhs in
            lhs.localizedStandardCompare(rhs)
        }
    }

    extension DatabaseFunction {
        /// `swiftLocalizedCapitalizedString(x)`: `String.localizedCapitalized`.
        /// Added to every connection.
        public static let localizedCapitalize = DatabaseFunction(
            "swiftLocalizedCapitalizedString", argumentCount: 1, pure: true
        ) { dbValues in
            String.fromDatabaseValue(dbValues[0])?.localizedCapitalized
        }

        /// `swiftLocalizedLowercaseString(x)`: `String.localizedLowercase`.
        /// Added to every connection.
        public static let localizedLowercase = DatabaseFunction(
            "swiftLocalizedLowercaseString", argumentCount: 1, pure: true
        ) { dbValues in
            String.fromDatabaseValue(dbValues[0])?.localizedLowercase
        }

        /// `swiftLocalizedUppercaseString(x)`: `String.localizedUppercase`.
        /// Added to every connection.
        public static let localizedUppercase = DatabaseFunction(
            "swiftLocalizedUppercaseString", argumentCount: 1, pure: true
        ) { dbValues in
            String.fromDatabaseValue(dbValues[0])?.localizedUppercase
        }
    }

    extension SQLSpecificExpressible {
        /// The value through Foundation's `String.localizedCapitalized`.
        public var localizedCapitalized: SQLExpression { DatabaseFunction.localizedCapitalize(sqlExpression) }

        /// The value through Foundation's `String.localizedLowercase`.
        public var localizedLowercased: SQLExpression { DatabaseFunction.localizedLowercase(sqlExpression) }

        /// The value through Foundation's `String.localizedUppercase`.
        public var localizedUppercased: SQLExpression { DatabaseFunction.localizedUppercase(sqlExpression) }
    }

    extension Database {
        /// The localized functions and collations GRDB adds to every connection.
        func addLocalizedFunctionsAndCollations() {
            for function in [DatabaseFunction.localizedCapitalize, .localizedLowercase, .localizedUppercase] {
                add(function: function)
            }
            for collation in [
                DatabaseCollation.caseInsensitiveCompare, .localizedCaseInsensitiveCompare, .localizedCompare,
                .localizedStandardCompare,
            ] {
                add(collation: collation)
            }
        }
    }
#endif
