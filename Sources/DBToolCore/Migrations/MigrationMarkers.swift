/// The section markers dbtool reads in migration files: its own, which are
/// dbmate's (`-- migrate:up transaction:false`), goose's (`-- +goose Up`,
/// `StatementBegin`/`StatementEnd`, `NO TRANSACTION`) and sql-migrate's
/// (`-- +migrate Up notransaction`).
///
/// A line that looks like a marker of one of these tools but is not one
/// dbtool understands is an error, never a comment: running a file whose
/// markers were misread would apply its down SQL, or skip its up SQL.
struct MigrationMarker: Equatable {
    /// The tool whose syntax the marker is written in.
    enum Syntax: String {
        case dbmate, goose, sqlMigrate = "sql-migrate"

        /// How the up and down markers are spelled, for messages.
        var upMarker: String {
            switch self {
            case .dbmate: "-- migrate:up"
            case .goose: "-- +goose Up"
            case .sqlMigrate: "-- +migrate Up"
            }
        }

        var downMarker: String {
            switch self {
            case .dbmate: "-- migrate:down"
            case .goose: "-- +goose Down"
            case .sqlMigrate: "-- +migrate Down"
            }
        }
    }

    enum Kind: Equatable {
        /// Starts the up section; `inTransaction` is false when the marker
        /// says so (`transaction:false`, `notransaction`).
        case up(inTransaction: Bool)
        case down(inTransaction: Bool)
        /// goose and sql-migrate: one statement spans these lines. SQLite
        /// splits statements itself, so they only have to be well formed.
        case statementBegin
        case statementEnd
        /// goose: the whole file runs outside of a transaction.
        case noTransaction
    }

    let syntax: Syntax
    let kind: Kind
    /// The line as written, for messages.
    let text: String

    /// A marker line the file's tool would act on but dbtool can not.
    struct Unsupported: Error {
        let reason: String
    }

    /// The marker of a line, nil for a line that is not one.
    ///
    /// - throws: ``Unsupported`` for a line written as a marker that dbtool
    ///   does not understand (an unknown annotation or option, a typo).
    static func parse(_ line: String) throws -> MigrationMarker? {
        let trimmed = line.trimmingSpaces()
        guard trimmed.hasPrefix("--") else { return nil }
        let body = trimmed.dropFirst(2).drop(while: { $0 == " " || $0 == "\t" })
        if body.hasPrefix("migrate:") {
            return try parseDbmate(body.dropFirst("migrate:".count), line: trimmed)
        }
        let words = body.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        switch words.first {
        case "+goose": return try parseGoose(Array(words.dropFirst()), line: trimmed)
        case "+migrate": return try parseSQLMigrate(Array(words.dropFirst()), line: trimmed)
        default: return nil
        }
    }

    /// `up` or `down`, then options such as `transaction:false`.
    private static func parseDbmate(_ rest: Substring, line: String) throws -> MigrationMarker? {
        // `-- migrate: adds a column` is prose; `-- migrate:dwon` is a typo.
        if rest.first == " " || rest.first == "\t" || rest.isEmpty { return nil }
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        var inTransaction = true
        for option in words.dropFirst() {
            switch option {
            case "transaction:false": inTransaction = false
            case "transaction:true": inTransaction = true
            default:
                throw Unsupported(reason: "unknown option `\(option)` (the options dbtool reads are transaction:false and transaction:true)")
            }
        }
        switch words.first {
        case "up": return MigrationMarker(syntax: .dbmate, kind: .up(inTransaction: inTransaction), text: line)
        case "down": return MigrationMarker(syntax: .dbmate, kind: .down(inTransaction: inTransaction), text: line)
        default: throw Unsupported(reason: "unknown marker (the markers are `-- migrate:up` and `-- migrate:down`)")
        }
    }

    /// goose's annotations are case-insensitive.
    private static func parseGoose(_ words: [String], line: String) throws -> MigrationMarker? {
        let kind: Kind
        switch words.joined(separator: " ") {
        case "up": kind = .up(inTransaction: true)
        case "down": kind = .down(inTransaction: true)
        case "statementbegin": kind = .statementBegin
        case "statementend": kind = .statementEnd
        case "no transaction": kind = .noTransaction
        case "envsub on", "envsub off":
            throw Unsupported(
                reason: "dbtool does not substitute environment variables into migrations; write the values into the file")
        default:
            throw Unsupported(
                reason: "unknown goose annotation (dbtool reads Up, Down, StatementBegin, StatementEnd and NO TRANSACTION)")
        }
        return MigrationMarker(syntax: .goose, kind: kind, text: line)
    }

    /// sql-migrate: `Up`/`Down` with an optional `notransaction`.
    private static func parseSQLMigrate(_ words: [String], line: String) throws -> MigrationMarker? {
        let options = words.dropFirst()
        guard options.allSatisfy({ $0 == "notransaction" }) else {
            throw Unsupported(reason: "unknown option (sql-migrate's only option is notransaction)")
        }
        let inTransaction = options.isEmpty
        let kind: Kind
        switch words.first {
        case "up": kind = .up(inTransaction: inTransaction)
        case "down": kind = .down(inTransaction: inTransaction)
        case "statementbegin" where options.isEmpty: kind = .statementBegin
        case "statementend" where options.isEmpty: kind = .statementEnd
        default:
            throw Unsupported(reason: "unknown sql-migrate annotation (dbtool reads Up, Down, StatementBegin and StatementEnd)")
        }
        return MigrationMarker(syntax: .sqlMigrate, kind: kind, text: line)
    }
}
