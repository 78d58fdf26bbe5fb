internal import DatabaseKitSQLite
import FoundationEssentials

extension Database {
    /// A function that receives SQLite's error log.
    public typealias LogErrorFunction = @Sendable (_ resultCode: ResultCode, _ message: String) -> Void

    /// The function that receives SQLite's error log
    /// (<https://www.sqlite.org/errlog.html>): errors, warnings such as
    /// automatic indexes, and the statements left unfinalized when a
    /// connection closes.
    ///
    /// ```swift
    /// Database.logError = { resultCode, message in
    ///     print("SQLite \(resultCode): \(message)")
    /// }
    /// ```
    ///
    /// DatabaseKit registers its log callback with SQLite before it opens
    /// its first connection; if another library of the process initialized
    /// SQLite first, SQLite refuses it and nothing is logged.
    public static var logError: LogErrorFunction? {
        get { logErrorFunction.withLock { $0 } }
        set {
            _ = sqliteGlobalSetUp
            logErrorFunction.withLock { $0 = newValue }
        }
    }

    /// Sends a message to ``logError``.
    static func log(_ resultCode: ResultCode, _ message: String) {
        logError?(resultCode, message)
    }
}

private let logErrorFunction = Locked<Database.LogErrorFunction?>(nil)

/// What DatabaseKit sets up in SQLite once, before the first connection: the
/// error log callback, which forwards to ``Database/logError``.
let sqliteGlobalSetUp: Void = {
    _ = dbkit_config_log(
        { _, code, message in
            guard let message, let logError = Database.logError else { return }
            logError(ResultCode(rawValue: code), String(cString: message))
        }, nil)
}()
