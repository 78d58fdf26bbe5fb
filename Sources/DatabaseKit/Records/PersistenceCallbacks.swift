/// What a successful insertion reports to ``MutablePersistableRecord/didInsert(_:)``.
public struct InsertionSuccess: Sendable {
    /// The rowid of the inserted row.
    public var rowID: Int64
    /// The column that aliases the rowid (an `INTEGER PRIMARY KEY`), or nil.
    public var rowIDColumn: String?
    /// The values as encoded, before the rowid was known.
    let insertedContainer: PersistenceContainer

    init(rowID: Int64, rowIDColumn: String?, insertedContainer: PersistenceContainer) {
        self.rowID = rowID
        self.rowIDColumn = rowIDColumn
        self.insertedContainer = insertedContainer
    }

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
    /// The written values, or the insertion whose values they are: most
    /// records never read them, so an insertion's are built when asked for.
    private var storage: Storage

    private enum Storage: Sendable {
        case container(PersistenceContainer)
        case inserted(InsertionSuccess)
    }

    /// The values that were written.
    public var persistenceContainer: PersistenceContainer {
        get {
            switch storage {
            case .container(let container): return container
            case .inserted(let inserted): return inserted.persistenceContainer
            }
        }
        set { storage = .container(newValue) }
    }

    init(persistenceContainer: PersistenceContainer) {
        storage = .container(persistenceContainer)
    }

    /// The success of an insertion, as a save reports it.
    init(_ inserted: InsertionSuccess) {
        storage = .inserted(inserted)
    }
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
