/// A base class for records that track their changes: a fetched record, or
/// one that was just saved, knows which of its columns were modified since.
///
/// ```swift
/// final class Player: Record {
///     var id: Int64?
///     var name: String
///
///     override class var databaseTableName: String { "player" }
///
///     init(id: Int64?, name: String) {
///         self.id = id
///         self.name = name
///         super.init()
///     }
///
///     required init(row: Row) throws {
///         id = row["id"]
///         name = row["name"]
///         try super.init(row: row)
///     }
///
///     override func encode(to container: inout PersistenceContainer) throws {
///         container["id"] = id
///         container["name"] = name
///     }
///
///     override func didInsert(_ inserted: InsertionSuccess) {
///         super.didInsert(inserted)
///         id = inserted.rowID
///     }
/// }
///
/// let player = try Player.find(db, key: 1)
/// player.name = "Barbara"
/// player.hasDatabaseChanges  // true
/// try player.updateChanges(db)  // UPDATE player SET name = 'Barbara' WHERE id = 1
/// ```
///
/// Overrides of the persistence callbacks must call `super`, which keeps the
/// change tracking up to date. A `Record` is not `Sendable`: its
/// persistence methods change its state.
open class Record {
    /// The row the record was fetched from or last saved as; nil when
    /// unknown (every column then counts as changed).
    var referenceRow: Row?

    /// A record with no reference row: every column counts as changed.
    public init() {}

    /// A record decoded from a row. Subclasses read their properties, then
    /// call `super.init(row:)`, which remembers a fetched row for change
    /// tracking.
    public required init(row: Row) throws {
        if row.isFetched {
            // The row may be reused by a cursor: keep a copy.
            referenceRow = row.copy()
        }
    }

    // MARK: Core methods

    /// The table name. Subclasses override it; the default is the class
    /// name with a lowercased first letter.
    open class var databaseTableName: String {
        defaultTableName(for: String(describing: self))
    }

    /// The conflict resolutions of `insert` and `update`. Default: abort.
    open class var persistenceConflictPolicy: PersistenceConflictPolicy {
        PersistenceConflictPolicy(insert: .abort, update: .abort)
    }

    /// The selected columns. Default: all columns.
    open class var databaseSelection: [any SQLSelectable] {
        [.allColumns]
    }

    /// Writes the record's columns. Subclasses override it; the default
    /// writes nothing.
    open func encode(to container: inout PersistenceContainer) throws {}

    // MARK: Changes

    /// True when a column differs from the reference row (always true
    /// without one, and when the record can not be encoded).
    public var hasDatabaseChanges: Bool {
        do {
            return try !changes().isEmpty
        } catch {
            return true
        }
    }

    /// The changed columns, with their values in the reference row (nil
    /// when there is no reference row, or it lacks the column).
    public var databaseChanges: [String: DatabaseValue?] {
        get throws {
            Dictionary(try changes(), uniquingKeysWith: { first, _ in first })
        }
    }

    private func changes() throws -> [(String, DatabaseValue?)] {
        let container = try databaseContainer()
        var changes: [(String, DatabaseValue?)] = []
        for (column, value) in container {
            guard let referenceRow, let index = referenceRow.index(forColumn: column) else {
                changes.append((column, nil))
                continue
            }
            let old = referenceRow.databaseValue(atIndex: index)
            if old != value { changes.append((column, old)) }
        }
        return changes
    }

    private func resetDatabaseChanges(with container: PersistenceContainer) {
        referenceRow = Row(columnNames: container.columns, values: container.databaseValues)
    }

    // MARK: Persistence callbacks

    /// Called before the record is inserted.
    open func willInsert(_ db: Database) throws {}

    /// Wraps the insertion; the default remembers the inserted values.
    open func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        let inserted = try insert()
        resetDatabaseChanges(with: inserted.persistenceContainer)
    }

    /// Called after the record is inserted.
    open func didInsert(_ inserted: InsertionSuccess) {}

    /// Called before the record is updated.
    open func willUpdate(_ db: Database, columns: Set<String>) throws {}

    /// Wraps the update; the default remembers the written values.
    open func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        let updated = try update()
        resetDatabaseChanges(with: updated.persistenceContainer)
    }

    /// Called after the record is updated.
    open func didUpdate(_ updated: PersistenceSuccess) {}

    /// Called before the record is inserted, updated or saved.
    open func willSave(_ db: Database) throws {}

    /// Wraps the insertion or update.
    open func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        _ = try save()
    }

    /// Called after the record is inserted, updated or saved.
    open func didSave(_ saved: PersistenceSuccess) {}

    /// Called before the record is deleted.
    open func willDelete(_ db: Database) throws {}

    /// Wraps the deletion; afterwards every column counts as changed.
    open func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        _ = try delete()
        referenceRow = nil
    }

    /// Called after the deletion.
    open func didDelete(deleted: Bool) {}

    // MARK: Updating changes

    /// Updates the changed columns only, and returns whether there was a
    /// change to write.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   the row is gone; ``DatabaseError`` on any SQLite error.
    @discardableResult
    public final func updateChanges(_ db: Database) throws -> Bool {
        let columns = try databaseChanges.keys
        if columns.isEmpty { return false }
        try update(db, columns: Array(columns))
        return true
    }
}

extension Record: TableRecord {}
extension Record: PersistableRecord {}
extension Record: FetchableRecord {}

// The persistence methods change `referenceRow`: a record must not be
// persisted from two threads at once.
@available(*, unavailable)
extension Record: Sendable {}
