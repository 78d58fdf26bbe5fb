import DatabaseKit
import Foundation

/// One database as dbtool's operations reach it: where it is, how long to
/// wait for its locks, and the policy they all follow. The database must
/// exist (a connection would create it); connections wait up to ``timeout``
/// for SQLite's locks; dbtool's own lock (``ExclusiveLock``) is taken before
/// a migration or a backup; and database errors become ``DBToolError``s that
/// name the file and the wait. The CLI builds it once from `--database`,
/// `--file-name` and `--timeout`.
public struct DatabaseHandle: Sendable, Equatable {
    /// The default wait for a locked database, in seconds (`--timeout`).
    public static let defaultTimeout: TimeInterval = 5

    /// Where the database is.
    public var location: DatabaseLocation
    /// How long to wait for locks held by other connections and dbtool runs.
    public var timeout: TimeInterval

    /// A handle on the database at `location`.
    public init(location: DatabaseLocation, timeout: TimeInterval = DatabaseHandle.defaultTimeout) {
        self.location = location
        self.timeout = timeout
    }

    /// Opens a connection to the existing database, waiting up to ``timeout``
    /// for locks held by other connections.
    public func openQueue(readonly: Bool = false) throws -> DatabaseQueue {
        try location.checkExists()
        var config = Configuration()
        config.busyMode = .timeout(timeout)
        config.readonly = readonly
        config.label = "dbtool"
        return try reportingErrors { try DatabaseQueue(path: location.filePath, configuration: config) }
    }

    /// Runs `body`, turning database errors into dbtool errors about this
    /// database (a lock names the wait).
    public func reportingErrors<T>(_ body: () throws -> T) throws -> T {
        try location.reportingErrors(timeout: timeout, body)
    }

    /// Runs `body` with a connection, holding dbtool's lock of `purpose` on
    /// the database's directory, waiting up to ``timeout`` for another run
    /// to finish (then 75).
    func withExclusiveLock<T>(_ purpose: ExclusiveLock.Purpose, _ body: (DatabaseQueue) throws -> T) throws -> T {
        try location.checkExists()
        let lock = try ExclusiveLock(directory: location.directoryPath, purpose: purpose, timeout: timeout)
        return try withExtendedLifetime(lock) {
            let dbQueue = try openQueue()
            return try reportingErrors { try body(dbQueue) }
        }
    }
}
