internal import DatabaseKitSQLite
import FoundationEssentials

extension Database {
    /// The events ``trace(options:_:)`` can report.
    public struct TracingOptions: OptionSet, Sendable {
        public let rawValue: CInt

        public init(rawValue: CInt) { self.rawValue = rawValue }

        /// Each statement, when it starts running.
        public static let statement = TracingOptions(rawValue: CInt(SQLITE_TRACE_STMT))

        /// Each statement when it ends, with its duration.
        public static let profile = TracingOptions(rawValue: CInt(SQLITE_TRACE_PROFILE))
    }

    /// A traced event.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement that starts running.
        case statement(Statement)

        /// A statement that ended, with its duration in seconds.
        case profile(statement: Statement, duration: TimeInterval)

        /// The statement of a traced event. Valid only during the trace call.
        public struct Statement: CustomStringConvertible {
            let sqliteStatement: OpaquePointer
            let unexpandedSQL: UnsafePointer<CChar>?
            let publicStatementArguments: Bool

            /// The SQL, with parameters, without leading and trailing white
            /// space and semicolons (a statement of a trigger is reported as
            /// a "-- comment", as is).
            public var sql: String {
                if let unexpandedSQL {
                    let sql = String(cString: unexpandedSQL)
                    return sql.hasPrefix("--") ? sql : sql.trimmedSQLStatement
                }
                return String(cString: sqlite3_sql(sqliteStatement)).trimmedSQLStatement
            }

            /// The SQL with its arguments in place of the parameters. It may
            /// reveal sensitive data.
            public var expandedSQL: String {
                if let unexpandedSQL {
                    let sql = String(cString: unexpandedSQL)
                    if sql.hasPrefix("--") { return sql }
                }
                guard let expanded = sqlite3_expanded_sql(sqliteStatement) else { return "" }
                defer { sqlite3_free(expanded) }
                return String(cString: expanded).trimmedSQLStatement
            }

            /// The expanded SQL when ``Configuration/publicStatementArguments``
            /// is true, the plain SQL otherwise.
            public var description: String {
                publicStatementArguments ? expandedSQL : sql
            }
        }

        /// The statement's SQL, and the duration of a profile event:
        /// `0.002s SELECT ...`.
        public var description: String {
            switch self {
            case .statement(let statement):
                return statement.description
            case let .profile(statement, duration):
                return formatDuration(duration) + "s " + statement.description
            }
        }

        /// Like ``description``, with arguments whatever the configuration.
        public var expandedDescription: String {
            switch self {
            case .statement(let statement):
                return statement.expandedSQL
            case let .profile(statement, duration):
                return formatDuration(duration) + "s " + statement.expandedSQL
            }
        }
    }

    /// Reports executed statements to a function, or stops when it is nil.
    ///
    /// ```swift
    /// db.trace { print($0) }
    /// db.trace(options: .profile) { event in
    ///     if case let .profile(statement, duration) = event, duration > 0.5 {
    ///         print("Slow query: \(statement.sql)")
    ///     }
    /// }
    /// ```
    ///
    /// See <https://www.sqlite.org/c3ref/trace_v2.html>.
    public func trace(options: TracingOptions = .statement, _ trace: ((TraceEvent) -> Void)? = nil) {
        traceHandler = trace
        traceOptions = trace == nil ? [] : options
        setUpTrace()
    }

    /// Registers the SQLite trace hook for the configuration's trace function
    /// and the ``trace(options:_:)`` handler.
    func setUpTrace() {
        var mask = traceOptions.rawValue
        if configuration.trace != nil { mask |= CInt(SQLITE_TRACE_STMT) }
        guard mask != 0 else {
            sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(
            sqliteConnection, UInt32(mask),
            { mask, context, p, x in
                let db = Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
                db.handleTrace(mask: CInt(mask), p: p, x: x)
                return 0
            }, context)
    }

    private func handleTrace(mask: CInt, p: UnsafeMutableRawPointer?, x: UnsafeMutableRawPointer?) {
        guard let p else { return }
        let statement = TraceEvent.Statement(
            sqliteStatement: OpaquePointer(p),
            unexpandedSQL: mask == SQLITE_TRACE_STMT ? x.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) } : nil,
            publicStatementArguments: configuration.publicStatementArguments)
        if mask == SQLITE_TRACE_STMT {
            configuration.trace?(statement.sql)
            if traceOptions.contains(.statement) { traceHandler?(.statement(statement)) }
        } else if mask == SQLITE_TRACE_PROFILE, traceOptions.contains(.profile), let x {
            let nanoseconds = x.assumingMemoryBound(to: Int64.self).pointee
            traceHandler?(.profile(statement: statement, duration: TimeInterval(nanoseconds) / 1e9))
        }
    }
}

/// Seconds with three decimals, as the trace reports them.
private func formatDuration(_ duration: TimeInterval) -> String {
    let milliseconds = Int64((duration.magnitude * 1000).rounded())
    let fraction = String(milliseconds % 1000)
    return (duration < 0 && milliseconds > 0 ? "-" : "") + String(milliseconds / 1000) + "."
        + String(repeating: "0", count: 3 - fraction.count) + fraction
}
