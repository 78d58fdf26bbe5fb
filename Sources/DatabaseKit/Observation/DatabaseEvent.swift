internal import DatabaseKitSQLite

/// The kind of change a statement may perform, as reported when it is
/// compiled: what ``TransactionObserver/observes(eventsOfKind:)`` filters on.
@frozen
public enum DatabaseEventKind: Sendable {
    /// An insertion into a table.
    case insert(tableName: String)
    /// A deletion from a table.
    case delete(tableName: String)
    /// An update of some columns of a table.
    case update(tableName: String, columnNames: Set<String>)

    /// The table.
    public var tableName: String {
        switch self {
        case .insert(let tableName), .delete(let tableName), .update(let tableName, _): return tableName
        }
    }

    var isDelete: Bool {
        if case .delete = self { return true }
        return false
    }
}

/// The common traits of ``DatabaseEvent`` and ``DatabasePreUpdateEvent``,
/// for the observation broker.
protocol DatabaseEventProtocol {
    var tableName: String { get }
    var eventKindTag: DatabaseEvent.Kind { get }
    func send(to observation: TransactionObservation)
}

extension DatabaseEventProtocol {
    /// True when the event is of this kind, on its table.
    func matchesKind(_ kind: DatabaseEventKind) -> Bool {
        switch (eventKindTag, kind) {
        case (.insert, .insert(let table)), (.delete, .delete(let table)), (.update, .update(let table, _)):
            return tableName == table
        default:
            return false
        }
    }
}

/// A change of one row: an insertion, a deletion or an update, reported to
/// ``TransactionObserver/databaseDidChange(with:)``.
///
/// The event is only valid during the call: keep a ``copy()`` if needed.
public struct DatabaseEvent {
    /// The kinds of changes.
    public enum Kind: CInt, Sendable {
        /// An insertion (`SQLITE_INSERT`).
        case insert = 18
        /// A deletion (`SQLITE_DELETE`).
        case delete = 9
        /// An update (`SQLITE_UPDATE`).
        case update = 23
    }

    /// The kind of change.
    public let kind: Kind

    /// The rowid of the changed row.
    public let rowID: Int64

    private let names: Names

    /// The database names, read from SQLite's buffers only when asked for.
    private enum Names {
        case borrowed(database: UnsafePointer<CChar>?, table: UnsafePointer<CChar>?)
        case copied(database: String, table: String)
    }

    /// The name of the database ("main", "temp", or an attached one).
    public var databaseName: String {
        switch names {
        case .borrowed(let database, _): return database.map { String(cString: $0) } ?? ""
        case .copied(let database, _): return database
        }
    }

    /// The name of the changed table.
    public var tableName: String {
        switch names {
        case .borrowed(_, let table): return table.map { String(cString: $0) } ?? ""
        case .copied(_, let table): return table
        }
    }

    init(kind: Kind, rowID: Int64, databaseNameCString: UnsafePointer<CChar>?, tableNameCString: UnsafePointer<CChar>?) {
        self.kind = kind
        self.rowID = rowID
        self.names = .borrowed(database: databaseNameCString, table: tableNameCString)
    }

    private init(kind: Kind, rowID: Int64, names: Names) {
        self.kind = kind
        self.rowID = rowID
        self.names = names
    }

    /// A copy that stays valid after the observer's call.
    public func copy() -> DatabaseEvent {
        if case .copied = names { return self }
        return DatabaseEvent(kind: kind, rowID: rowID, names: .copied(database: databaseName, table: tableName))
    }
}

@available(*, unavailable, message: "A DatabaseEvent points into SQLite's memory during the observer's call: send a copy() of its values instead")
extension DatabaseEvent: Sendable {}

extension DatabaseEvent: DatabaseEventProtocol {
    var eventKindTag: Kind { kind }

    func send(to observation: TransactionObservation) {
        observation.databaseDidChange(with: self)
    }
}

/// A change of one row about to happen, with the values before and after it,
/// reported to ``TransactionObserver/databaseWillChange(with:)``.
///
/// SQLite reports these through its pre-update hook, which the system SQLite
/// of Debian has (`SQLITE_ENABLE_PREUPDATE_HOOK`); with an SQLite without it,
/// the callback is never called. The event is only valid during the call:
/// keep a ``copy()`` if needed.
public struct DatabasePreUpdateEvent {
    /// The kinds of changes.
    public enum Kind: CInt, Sendable {
        /// An insertion.
        case insert = 18
        /// A deletion.
        case delete = 9
        /// An update.
        case update = 23
    }

    /// The kind of change.
    public let kind: Kind

    /// The rowid before the change, for updates and deletions.
    public let initialRowID: Int64?

    /// The rowid after the change, for insertions and updates.
    public let finalRowID: Int64?

    private let storage: Storage

    private enum Storage {
        /// Read from SQLite during the hook.
        case live(connection: OpaquePointer, database: UnsafePointer<CChar>?, table: UnsafePointer<CChar>?)
        case copied(
            database: String, table: String, count: Int, depth: CInt,
            initial: [DatabaseValue]?, final: [DatabaseValue]?)
    }

    init(
        connection: OpaquePointer, kind: Kind, initialRowID: Int64, finalRowID: Int64,
        databaseNameCString: UnsafePointer<CChar>?, tableNameCString: UnsafePointer<CChar>?
    ) {
        self.kind = kind
        self.initialRowID = kind == .insert ? nil : initialRowID
        self.finalRowID = kind == .delete ? nil : finalRowID
        self.storage = .live(connection: connection, database: databaseNameCString, table: tableNameCString)
    }

    private init(kind: Kind, initialRowID: Int64?, finalRowID: Int64?, storage: Storage) {
        self.kind = kind
        self.initialRowID = initialRowID
        self.finalRowID = finalRowID
        self.storage = storage
    }

    /// The name of the database.
    public var databaseName: String {
        switch storage {
        case .live(_, let database, _): return database.map { String(cString: $0) } ?? ""
        case .copied(let database, _, _, _, _, _): return database
        }
    }

    /// The name of the table.
    public var tableName: String {
        switch storage {
        case .live(_, _, let table): return table.map { String(cString: $0) } ?? ""
        case .copied(_, let table, _, _, _, _): return table
        }
    }

    /// The number of columns of the changed row.
    public var count: Int {
        switch storage {
        case .live(let connection, _, _): return Int(dbkit_preupdate_count(connection))
        case .copied(_, _, let count, _, _, _): return count
        }
    }

    /// 0 for a change made by the statement itself, 1 for a change made by
    /// a trigger it fired, and so on.
    public var depth: CInt {
        switch storage {
        case .live(let connection, _, _): return dbkit_preupdate_depth(connection)
        case .copied(_, _, _, let depth, _, _): return depth
        }
    }

    /// The values before the change; nil for an insertion.
    public var initialDatabaseValues: [DatabaseValue]? {
        guard kind != .insert else { return nil }
        switch storage {
        case .live: return (0..<count).map { initialDatabaseValue(atIndex: $0) ?? .null }
        case .copied(_, _, _, _, let initial, _): return initial
        }
    }

    /// The values after the change; nil for a deletion.
    public var finalDatabaseValues: [DatabaseValue]? {
        guard kind != .delete else { return nil }
        switch storage {
        case .live: return (0..<count).map { finalDatabaseValue(atIndex: $0) ?? .null }
        case .copied(_, _, _, _, _, let final): return final
        }
    }

    /// The value of a column before the change; nil for an insertion, or an
    /// index out of range.
    public func initialDatabaseValue(atIndex index: Int) -> DatabaseValue? {
        guard kind != .insert, index >= 0, index < count else { return nil }
        switch storage {
        case .live(let connection, _, _):
            var value: OpaquePointer?
            guard dbkit_preupdate_old(connection, CInt(index), &value) == SQLITE_OK, let value else { return nil }
            return DatabaseValue(sqliteValue: value)
        case .copied(_, _, _, _, let initial, _):
            return initial?[index]
        }
    }

    /// The value of a column after the change; nil for a deletion, or an
    /// index out of range.
    public func finalDatabaseValue(atIndex index: Int) -> DatabaseValue? {
        guard kind != .delete, index >= 0, index < count else { return nil }
        switch storage {
        case .live(let connection, _, _):
            var value: OpaquePointer?
            guard dbkit_preupdate_new(connection, CInt(index), &value) == SQLITE_OK, let value else { return nil }
            return DatabaseValue(sqliteValue: value)
        case .copied(_, _, _, _, _, let final):
            return final?[index]
        }
    }

    /// A copy that stays valid after the observer's call.
    public func copy() -> DatabasePreUpdateEvent {
        if case .copied = storage { return self }
        return DatabasePreUpdateEvent(
            kind: kind, initialRowID: initialRowID, finalRowID: finalRowID,
            storage: .copied(
                database: databaseName, table: tableName, count: count, depth: depth,
                initial: initialDatabaseValues, final: finalDatabaseValues))
    }
}

@available(*, unavailable, message: "A DatabasePreUpdateEvent reads SQLite's memory during the observer's call: send a copy() of its values instead")
extension DatabasePreUpdateEvent: Sendable {}

extension DatabasePreUpdateEvent: DatabaseEventProtocol {
    var eventKindTag: DatabaseEvent.Kind {
        switch kind {
        case .insert: return .insert
        case .delete: return .delete
        case .update: return .update
        }
    }

    func send(to observation: TransactionObservation) {
        observation.databaseWillChange(with: self)
    }
}
