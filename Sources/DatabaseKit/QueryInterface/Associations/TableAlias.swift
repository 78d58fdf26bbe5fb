/// A table of a query, whose columns can be referred to from anywhere in
/// the request: the filter of an associated record, the ordering of the
/// base one, a correlated subquery.
///
/// ```swift
/// let authorAlias = TableAlias<Author>()
/// let request = Book
///     .including(required: Book.author.aliased(authorAlias))
///     .order(authorAlias[Column("name")], Column("title"))
/// ```
///
/// An alias refers to one table; the query decides its name (the table
/// name, or a numeric suffix when a table appears twice), unless the alias
/// is created with a name.
public class TableAliasBase: @unchecked Sendable {
    // Aliases are values of requests, which go from thread to thread; their
    // state changes when a request adopts one. One lock for all of them:
    // aliases are only touched while a request is built or rendered.
    private static let lock = Locked(false)

    private enum State {
        /// Not yet given to a request.
        case undefined(userName: String?)
        /// The alias of a table.
        case table(String, userName: String?)
        /// Merged into another alias of the same table.
        case proxy(TableAliasBase)
    }

    private var state: State

    init(name: String? = nil) {
        state = .undefined(userName: name)
    }

    init(tableName: String, userName: String? = nil) {
        state = .table(tableName, userName: userName)
    }

    private var root: TableAliasBase {
        var alias = self
        while case .proxy(let base) = alias.state { alias = base }
        return alias
    }

    /// The identity of the table: aliases merged into one share it.
    var identity: ObjectIdentifier { Self.lock.withLock { _ in ObjectIdentifier(root) } }

    /// The name the application gave, if any.
    private var userName: String? {
        switch root.state {
        case .undefined(let name), .table(_, let name): return name
        case .proxy: return nil
        }
    }

    /// The name of the table, if the alias was given to a request.
    var tableNameIfDefined: String? {
        Self.lock.withLock { _ in
            if case .table(let name, _) = root.state { return name }
            return nil
        }
    }

    /// The application's name, or the table name.
    var identityName: String {
        Self.lock.withLock { _ in
            switch root.state {
            case .table(let table, let name): return name ?? table
            case .undefined(let name): return name ?? ""
            case .proxy: return ""
            }
        }
    }

    /// True when the application named the alias: its name always shows.
    var hasUserName: Bool { Self.lock.withLock { _ in userName != nil } }

    /// Binds the alias to a table: the source of the request it aliases.
    /// An alias already bound to another table can not move.
    func adopt(tableName: String) throws {
        try Self.lock.withLock { _ in
            let root = self.root
            switch root.state {
            case .undefined(let name):
                root.state = .table(tableName, userName: name)
            case .table(let current, _):
                if current.lowercased() != tableName.lowercased() {
                    throw DatabaseError.misuse("a TableAlias must not be used to refer to several tables (\(current) and \(tableName))")
                }
            case .proxy:
                break
            }
        }
    }

    /// Makes this alias another name of `base`, the alias a request already has.
    func becomeProxy(of base: TableAliasBase) throws {
        try Self.lock.withLock { _ in
            let root = self.root
            let baseRoot = base.root
            if root === baseRoot { return }
            let name: String?
            switch root.state {
            case .undefined(let userName): name = userName
            case .table(let table, let userName):
                guard case .table(let baseTable, _) = baseRoot.state, baseTable.lowercased() == table.lowercased() else {
                    throw DatabaseError.misuse("a TableAlias must not be used to refer to several tables")
                }
                name = userName
            case .proxy: name = nil
            }
            if let name {
                switch baseRoot.state {
                case .undefined(let other), .table(_, let other):
                    if let other, other != name {
                        throw DatabaseError.misuse("a table can not have two alias names (\(other) and \(name))")
                    }
                case .proxy: break
                }
                switch baseRoot.state {
                case .undefined: baseRoot.state = .undefined(userName: name)
                case .table(let table, _): baseRoot.state = .table(table, userName: name)
                case .proxy: break
                }
            }
            root.state = .proxy(baseRoot)
        }
    }

    /// A column of the table: `"player"."score"`, or `"score"` when the
    /// query reads only this table.
    public subscript(_ column: String) -> SQLExpression {
        SQLExpression(.column(column, qualifier: .alias(self)))
    }

    /// The expression, with its columns in this table.
    public subscript(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.sqlExpression.qualified(with: .alias(self))
    }

    /// The selection, from this table: `author.*`, `"author"."name"`.
    public subscript(_ selectable: some SQLSelectable) -> SQLSelection {
        selectable.sqlSelection.qualified(with: .alias(self))
    }

    /// The ordering, by columns of this table.
    public subscript(_ ordering: some SQLOrderingTerm) -> SQLOrdering {
        ordering.sqlOrdering.qualified(with: .alias(self))
    }
}

extension TableAliasBase: Hashable {
    /// Aliases merged into one table are equal.
    public static func == (lhs: TableAliasBase, rhs: TableAliasBase) -> Bool {
        lhs.identity == rhs.identity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }
}

/// A table of a query, with the record type of its rows: see
/// ``TableAliasBase``. An upsert's `excluded` row is one, and so is the
/// alias of an association (`Book.author.aliased(authorAlias)`).
///
/// ```swift
/// let authorAlias = TableAlias<Author>()
/// // SELECT "book".* FROM "book"
/// // JOIN "author" ON "author"."id" = "book"."authorId"
/// // WHERE "author"."country" = 'FR'
/// let request = Book
///     .joining(required: Book.author.aliased(authorAlias))
///     .filter(authorAlias[Column("country")] == "FR")
/// ```
@dynamicMemberLookup
public final class TableAlias<RowDecoder>: TableAliasBase, @unchecked Sendable {
    /// An alias for a table; `name` makes the query use this name for it.
    public init(name: String? = nil) where RowDecoder == Void {
        super.init(name: name)
    }

    /// An alias for the table of a record type; `name` makes the query use
    /// this name for it.
    public init(name: String? = nil, for record: RowDecoder.Type = RowDecoder.self) {
        super.init(name: name)
    }

    init(tableName: String, name: String?) {
        super.init(tableName: tableName, userName: name)
    }

    /// `EXISTS`-like test of an optional join: true when the joined row exists.
    public var exists: SQLExpression {
        SQLExpression(.aliasExists(self, negated: false))
    }
}

extension TableAlias where RowDecoder: TableRecord {
    /// A column of the record's ``TableRecord/databaseComponents``, in this table.
    public subscript(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, Column>) -> SQLExpression {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }
}
