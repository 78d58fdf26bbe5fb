internal import DatabaseKitSQLite
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a statement does to transactions, as its authorizer reported.
enum TransactionEffect: Equatable, Sendable {
    case beginTransaction
    case commitTransaction
    case rollbackTransaction
    case beginSavepoint(String)
    case releaseSavepoint(String)
    case rollbackSavepoint(String)

    /// True for the statements that release locks, or move towards it.
    var releasesDatabaseLock: Bool {
        switch self {
        case .commitTransaction, .rollbackTransaction, .releaseSavepoint, .rollbackSavepoint: return true
        case .beginTransaction, .beginSavepoint: return false
        }
    }
}

/// What the authorizer learns while every statement compiles: a few flags,
/// cheap to record.
struct StatementCompilation: Sendable {
    /// True for the statements that may change the schema: `CREATE`,
    /// `DROP`, `ALTER`, `ATTACH`, `DETACH`, and `ROLLBACK` (which may undo a
    /// `CREATE`). They empty the schema cache when they run.
    var invalidatesSchemaCache = false
    /// BEGIN, COMMIT, ROLLBACK, and savepoints.
    var transactionEffect: TransactionEffect?
    /// `PRAGMA query_only`, which stays allowed in a cancelled access.
    var isQueryOnlyPragma = false
}

/// What transaction observers and ``Statement/databaseRegion`` need: the
/// tables and columns a statement reads, and the changes it may perform.
/// Recorded on demand only (see ``Database/observationInfo(of:)``).
struct StatementObservationInfo {
    var selectedRegion = DatabaseRegion()
    var eventKinds: [DatabaseEventKind] = []
}

/// The authorizer of a connection (`sqlite3_set_authorizer`): it observes
/// the compilation of every statement, and never denies anything.
///
/// It is installed once per connection: changing the authorizer makes SQLite
/// recompile statements, which interferes with running cursors.
final class StatementAuthorizer {
    private unowned let database: Database

    /// The flags of the statement being compiled.
    var compilation = StatementCompilation()

    /// Non-nil while ``Database/observationInfo(of:)`` recompiles a statement
    /// to record what it reads and writes.
    var recording: StatementObservationInfo?

    /// Set by a DROP statement: its deletions from the schema table are not
    /// changes of user tables.
    private var isDropStatement = false

    init(_ database: Database) {
        self.database = database
    }

    func reset() {
        compilation = StatementCompilation()
        isDropStatement = false
    }

    func register() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            database.sqliteConnection,
            { context, actionCode, string1, string2, _, _ in
                Unmanaged<StatementAuthorizer>.fromOpaque(context!).takeUnretainedValue()
                    .authorize(actionCode, string1, string2)
            },
            context)
    }

    private func authorize(_ actionCode: CInt, _ string1: UnsafePointer<CChar>?, _ string2: UnsafePointer<CChar>?) -> CInt {
        switch actionCode {
        case SQLITE_READ:
            // The most frequent code by far, and only useful when recording.
            if recording != nil, let string1, let string2 {
                let table = String(cString: string1)
                let column = String(cString: string2)
                // An empty column name is a read of the whole table (COUNT(*)).
                recording?.selectedRegion.formUnion(
                    column.isEmpty ? DatabaseRegion(table: table) : DatabaseRegion(table: table, columns: [column]))
            }
            return SQLITE_OK
        case SQLITE_DROP_TABLE, SQLITE_DROP_VTABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX,
            SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER:
            isDropStatement = true
            compilation.invalidatesSchemaCache = true
            return SQLITE_OK
        case SQLITE_ATTACH, SQLITE_DETACH, SQLITE_ALTER_TABLE, SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE,
            SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW,
            SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_CREATE_VTABLE:
            compilation.invalidatesSchemaCache = true
            return SQLITE_OK
        case SQLITE_INSERT:
            if recording != nil, let string1 {
                recording?.eventKinds.append(.insert(tableName: String(cString: string1)))
            }
            return SQLITE_OK
        case SQLITE_DELETE:
            return authorizeDelete(string1)
        case SQLITE_UPDATE:
            if recording != nil, let string1, let string2 {
                recordUpdate(table: String(cString: string1), column: String(cString: string2))
            }
            return SQLITE_OK
        case SQLITE_TRANSACTION:
            guard let string1 else { return SQLITE_OK }
            if strcmp(string1, "BEGIN") == 0 {
                compilation.transactionEffect = .beginTransaction
            } else if strcmp(string1, "COMMIT") == 0 {
                compilation.transactionEffect = .commitTransaction
            } else if strcmp(string1, "ROLLBACK") == 0 {
                compilation.transactionEffect = .rollbackTransaction
                compilation.invalidatesSchemaCache = true
            }
            return SQLITE_OK
        case SQLITE_SAVEPOINT:
            guard let string1, let string2 else { return SQLITE_OK }
            let name = String(cString: string2)
            if strcmp(string1, "BEGIN") == 0 {
                compilation.transactionEffect = .beginSavepoint(name)
            } else if strcmp(string1, "RELEASE") == 0 {
                compilation.transactionEffect = .releaseSavepoint(name)
            } else if strcmp(string1, "ROLLBACK") == 0 {
                compilation.transactionEffect = .rollbackSavepoint(name)
                compilation.invalidatesSchemaCache = true
            }
            return SQLITE_OK
        case SQLITE_PRAGMA:
            if let string1 { compilation.isQueryOnlyPragma = sqlite3_stricmp(string1, "query_only") == 0 }
            return SQLITE_OK
        default:
            return SQLITE_OK
        }
    }

    private func authorizeDelete(_ table: UnsafePointer<CChar>?) -> CInt {
        // DROP deletes from the schema table; so does nobody else that an
        // observer could hear about (the update hook does not report it).
        guard !isDropStatement, let table, strcmp(table, "sqlite_master") != 0, strcmp(table, "sqlite_temp_master") != 0
        else { return SQLITE_OK }
        let tableName = String(cString: table)
        if recording != nil {
            recording?.eventKinds.append(.delete(tableName: tableName))
        }
        // SQLITE_IGNORE disables the truncate optimization, which deletes all
        // rows at once without reporting them to the update hook.
        if let broker = database.observationBroker, broker.observesDeletions(on: tableName) {
            return SQLITE_IGNORE
        }
        return SQLITE_OK
    }

    private func recordUpdate(table: String, column: String) {
        guard let eventKinds = recording?.eventKinds else { return }
        for (index, kind) in eventKinds.enumerated() {
            if case .update(let updatedTable, var columns) = kind, updatedTable == table {
                columns.insert(column)
                recording?.eventKinds[index] = .update(tableName: table, columnNames: columns)
                return
            }
        }
        recording?.eventKinds.append(.update(tableName: table, columnNames: [column]))
    }
}

extension Database {
    /// Compiles the statement's SQL again with a recording authorizer, and
    /// returns what it reads and writes.
    func observationInfo(of statement: Statement) -> StatementObservationInfo {
        authorizer.recording = StatementObservationInfo()
        defer { authorizer.recording = nil }
        var handle: OpaquePointer?
        // A failure (a schema change since) leaves what was recorded so far.
        sqlite3_prepare_v2(sqliteConnection, sqlite3_sql(statement.sqliteStatement), -1, &handle, nil)
        sqlite3_finalize(handle)
        authorizer.reset()
        return authorizer.recording ?? StatementObservationInfo()
    }
}
