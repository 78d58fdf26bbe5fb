import FoundationEssentials

/// An unquoted glob the shell expanded (`--database tenants/*/db` became
/// `--database tenants/a/db tenants/b/db`): ArgumentParser only sees
/// unexpected arguments, which says nothing of the cause.
enum GlobSuggestion {
    /// "--database got 3 existing paths: ...", or nil when no option is
    /// followed by more than one existing path.
    static func message(for arguments: [String]) -> String? {
        for (index, token) in arguments.enumerated() where token == "--database" || token == "-d" {
            let values = arguments[(index + 1)...].prefix { !$0.hasPrefix("-") }
            let existing = values.prefix { FileManager.default.fileExists(atPath: $0) }
            guard existing.count > 1 else { continue }
            let shown = existing.prefix(3).joined(separator: " ") + (existing.count > 3 ? " ..." : "")
            return "\(token) got \(existing.count) existing paths (\(shown)): the shell expanded an unquoted glob"
        }
        return nil
    }

    static let hint = "Quote the glob so that dbtool expands it (--database 'tenants/*/db'), or repeat --database for each database."
}
