/// What a successful insertion reports to ``MutablePersistableRecord/didInsert(_:)``.
public struct InsertionSuccess: Sendable {
    /// The rowid of the inserted row.
    public let rowID: Int64
    /// The column that aliases the rowid (an `INTEGER PRIMARY KEY`), or nil.
    public let rowIDColumn: String?
    /// The values as encoded, before the rowid was known.
    let insertedContainer: PersistenceContainer

    /// The inserted values, with the rowid column set to ``rowID``. Built
    /// when asked for: most records only read ``rowID``.
    public var persistenceContainer: PersistenceContainer {
        var container = insertedContainer
        if let rowIDColumn { container.setValue(rowID.databaseValue, forColumn: rowIDColumn) }
        return container
    }
}

/// What a successful update or save reports.
public struct PersistenceSuccess: Sendable {
    /// The values that were written.
    public let persistenceContainer: PersistenceContainer
}

/// The conflict resolutions a record uses by default, when `insert` and
/// `update` are called without `onConflict:`.
public struct PersistenceConflictPolicy: Sendable {
    /// The resolution of inserts (`INSERT OR ...`); `.abort` is a plain `INSERT`.
    public let conflictResolutionForInsert: Database.ConflictResolution
    /// The resolution of updates (`UPDATE OR ...`).
    public let conflictResolutionForUpdate: Database.ConflictResolution

    /// A policy.
    public init(
        insert: Database.ConflictResolution = .abort, update: Database.ConflictResolution = .abort
    ) {
        self.conflictResolutionForInsert = insert
        self.conflictResolutionForUpdate = update
    }
}
