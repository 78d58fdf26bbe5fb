/// An SQLite result code, primary or extended.
///
/// A primary code used as a pattern matches every extended code that derives from it:
///
/// ```swift
/// switch error.extendedResultCode {
/// case .SQLITE_CONSTRAINT_FOREIGNKEY: ...   // exactly this extended code
/// case .SQLITE_CONSTRAINT: ...              // any constraint violation
/// default: ...
/// }
/// ```
///
/// See <https://www.sqlite.org/rescode.html>.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw SQLite code.
    public let rawValue: CInt

    /// Creates a result code from its raw SQLite value.
    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The primary result code: the low eight bits of an extended code.
    public var primaryResultCode: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    /// True when this code is a primary code (it has no extended bits).
    var isPrimary: Bool { self == primaryResultCode }

    /// The code and SQLite's text for it, such as "19 (constraint failed)".
    public var description: String {
        "\(rawValue) (\(sqliteErrorString(rawValue)))"
    }

    /// Matches an extended code against a primary or extended pattern.
    public static func ~= (pattern: Self, code: Self) -> Bool {
        pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
    }

    /// Matches any error that is a ``DatabaseError`` with this code, so that
    /// `catch DatabaseError.SQLITE_CONSTRAINT` reads naturally.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.extendedResultCode
    }

    // Primary result codes
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    // Extended result codes (https://www.sqlite.org/rescode.html#extrc)
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode(rawValue: 1 | (1 << 8))
    public static let SQLITE_ERROR_RETRY = ResultCode(rawValue: 1 | (2 << 8))
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode(rawValue: 1 | (3 << 8))
    public static let SQLITE_IOERR_READ = ResultCode(rawValue: 10 | (1 << 8))
    public static let SQLITE_IOERR_SHORT_READ = ResultCode(rawValue: 10 | (2 << 8))
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: 10 | (3 << 8))
    public static let SQLITE_IOERR_FSYNC = ResultCode(rawValue: 10 | (4 << 8))
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode(rawValue: 10 | (5 << 8))
    public static let SQLITE_IOERR_TRUNCATE = ResultCode(rawValue: 10 | (6 << 8))
    public static let SQLITE_IOERR_FSTAT = ResultCode(rawValue: 10 | (7 << 8))
    public static let SQLITE_IOERR_UNLOCK = ResultCode(rawValue: 10 | (8 << 8))
    public static let SQLITE_IOERR_RDLOCK = ResultCode(rawValue: 10 | (9 << 8))
    public static let SQLITE_IOERR_DELETE = ResultCode(rawValue: 10 | (10 << 8))
    public static let SQLITE_IOERR_BLOCKED = ResultCode(rawValue: 10 | (11 << 8))
    public static let SQLITE_IOERR_NOMEM = ResultCode(rawValue: 10 | (12 << 8))
    public static let SQLITE_IOERR_ACCESS = ResultCode(rawValue: 10 | (13 << 8))
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode(rawValue: 10 | (14 << 8))
    public static let SQLITE_IOERR_LOCK = ResultCode(rawValue: 10 | (15 << 8))
    public static let SQLITE_IOERR_CLOSE = ResultCode(rawValue: 10 | (16 << 8))
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode(rawValue: 10 | (17 << 8))
    public static let SQLITE_IOERR_SHMOPEN = ResultCode(rawValue: 10 | (18 << 8))
    public static let SQLITE_IOERR_SHMSIZE = ResultCode(rawValue: 10 | (19 << 8))
    public static let SQLITE_IOERR_SHMLOCK = ResultCode(rawValue: 10 | (20 << 8))
    public static let SQLITE_IOERR_SHMMAP = ResultCode(rawValue: 10 | (21 << 8))
    public static let SQLITE_IOERR_SEEK = ResultCode(rawValue: 10 | (22 << 8))
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode(rawValue: 10 | (23 << 8))
    public static let SQLITE_IOERR_MMAP = ResultCode(rawValue: 10 | (24 << 8))
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode(rawValue: 10 | (25 << 8))
    public static let SQLITE_IOERR_CONVPATH = ResultCode(rawValue: 10 | (26 << 8))
    public static let SQLITE_IOERR_VNODE = ResultCode(rawValue: 10 | (27 << 8))
    public static let SQLITE_IOERR_AUTH = ResultCode(rawValue: 10 | (28 << 8))
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode(rawValue: 10 | (29 << 8))
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode(rawValue: 10 | (30 << 8))
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode(rawValue: 10 | (31 << 8))
    public static let SQLITE_IOERR_DATA = ResultCode(rawValue: 10 | (32 << 8))
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode(rawValue: 10 | (33 << 8))
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode(rawValue: 6 | (1 << 8))
    public static let SQLITE_LOCKED_VTAB = ResultCode(rawValue: 6 | (2 << 8))
    public static let SQLITE_BUSY_RECOVERY = ResultCode(rawValue: 5 | (1 << 8))
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: 5 | (2 << 8))
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: 5 | (3 << 8))
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode(rawValue: 14 | (1 << 8))
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode(rawValue: 14 | (2 << 8))
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode(rawValue: 14 | (3 << 8))
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode(rawValue: 14 | (4 << 8))
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode(rawValue: 14 | (5 << 8))
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode(rawValue: 14 | (6 << 8))
    public static let SQLITE_CORRUPT_VTAB = ResultCode(rawValue: 11 | (1 << 8))
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode(rawValue: 11 | (2 << 8))
    public static let SQLITE_CORRUPT_INDEX = ResultCode(rawValue: 11 | (3 << 8))
    public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: 8 | (1 << 8))
    public static let SQLITE_READONLY_CANTLOCK = ResultCode(rawValue: 8 | (2 << 8))
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: 8 | (3 << 8))
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 8 | (4 << 8))
    public static let SQLITE_READONLY_CANTINIT = ResultCode(rawValue: 8 | (5 << 8))
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: 8 | (6 << 8))
    public static let SQLITE_ABORT_ROLLBACK = ResultCode(rawValue: 4 | (2 << 8))
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: 19 | (1 << 8))
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: 19 | (2 << 8))
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 19 | (3 << 8))
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode(rawValue: 19 | (4 << 8))
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 19 | (5 << 8))
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 19 | (6 << 8))
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: 19 | (7 << 8))
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 19 | (8 << 8))
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode(rawValue: 19 | (9 << 8))
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: 19 | (10 << 8))
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode(rawValue: 19 | (11 << 8))
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: 19 | (12 << 8))
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode(rawValue: 27 | (1 << 8))
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode(rawValue: 27 | (2 << 8))
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode(rawValue: 28 | (1 << 8))
    public static let SQLITE_AUTH_USER = ResultCode(rawValue: 23 | (1 << 8))
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode(rawValue: 0 | (1 << 8))
    public static let SQLITE_OK_SYMLINK = ResultCode(rawValue: 0 | (2 << 8))
}
