import ArgumentParser
import DBToolCore
import FoundationEssentials

/// The completions that read the disk when the user presses TAB (through
/// ArgumentParser's custom completion: the shell runs `dbtool ---completion
/// ...`, which calls these). They read the options already typed on the line
/// (`--migrations`, `--database`, `--file-name`, or their environment
/// variables) and print nothing on any error.
extension CompletionKind {
    /// The versions of the migrations directory, with their names (and `none`
    /// when `includingNone`).
    static func migrationVersions(includingNone: Bool = false) -> CompletionKind {
        .custom { words, _, _ in
            guard let directory = CommandLineWords(words).migrationsDirectory else { return [] }
            return format(CompletionCandidates.migrationVersions(in: directory, includingNone: includingNone))
        }
    }

    /// `migrate rollback --steps`: 1 through the number of applied migrations.
    static var rollbackSteps: CompletionKind {
        .custom { words, _, _ in
            let line = CommandLineWords(words)
            guard let path = line.databasePath else { return [] }
            return format(CompletionCandidates.rollbackSteps(ofDatabaseAt: path, fileName: line.fileName))
        }
    }

    /// Archives in the directory being typed, newest first.
    static var archives: CompletionKind {
        .custom { _, _, prefix in format(CompletionCandidates.archives(matching: unquoted(prefix))) }
    }

    /// The snapshots `migrate --snapshot` took of the database on the line.
    static var migrationSnapshots: CompletionKind {
        .custom { words, _, prefix in
            let line = CommandLineWords(words)
            guard let path = line.databasePath else { return [] }
            return format(CompletionCandidates.snapshots(ofDatabaseAt: path, fileName: line.fileName, matching: unquoted(prefix)))
        }
    }

    /// Directories that hold a database (and database files).
    static var databases: CompletionKind {
        .custom { words, _, prefix in
            format(CompletionCandidates.databases(matching: unquoted(prefix), fileName: CommandLineWords(words).fileName))
        }
    }

    /// Candidates as the requesting shell reads them: zsh's `value:description`
    /// (a colon in the value escaped), fish's `value<TAB>description`, bash's
    /// bare values. bash completes with `-o filenames`, which adds the slash
    /// of a directory itself: its directories come without one (else
    /// `backups//`).
    private static func format(_ candidates: [CompletionCandidate]) -> [String] {
        let shell = CompletionShell.requesting
        return candidates.map { candidate in
            guard let description = candidate.description else {
                if shell == .bash, candidate.value.count > 1, candidate.value.hasSuffix("/") { return String(candidate.value.dropLast()) }
                return candidate.value
            }
            switch shell {
            case .zsh?: return candidate.value.replacing(":", with: "\\:") + ":" + description
            case .fish?: return candidate.value + "\t" + description
            default: return candidate.value
            }
        }
    }
}

/// The words of the command line being completed, as the shell passed them
/// (quotes and backslashes included).
struct CommandLineWords {
    let words: [String]

    init(_ words: [String]) { self.words = words }

    /// The value of `--name VALUE` or `--name=VALUE`, the last one given, unquoted.
    func value(of name: String) -> String? {
        var found: String?
        for (index, word) in words.enumerated() {
            if word == name, index + 1 < words.count {
                found = words[index + 1]
            } else if word.hasPrefix(name + "=") {
                found = String(word.dropFirst(name.count + 1))
            }
        }
        return found.map(unquoted).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `--migrations`, else `$DBTOOL_MIGRATIONS`.
    var migrationsDirectory: String? {
        value(of: "--migrations") ?? environment("DBTOOL_MIGRATIONS")
    }

    /// `--database` as typed, else `$DBTOOL_DATABASE`.
    var databasePath: String? { value(of: "--database") ?? environment("DBTOOL_DATABASE") }

    /// `--file-name`, else the default.
    var fileName: String { value(of: "--file-name") ?? DatabaseLocation.defaultFileName }

    private func environment(_ name: String) -> String? { RunEnvironment.value(name) }
}

/// A shell word without its quotes and backslash escapes
/// (`'/my dir'/x` -> `/my dir/x`); a leading `~/` stays (see
/// ``CompletionCandidates``).
func unquoted(_ word: String) -> String {
    var result = ""
    var quote: Character?
    var escaped = false
    for character in word {
        if escaped {
            result.append(character)
            escaped = false
        } else if character == "\\" && quote != "'" {
            escaped = true
        } else if let open = quote {
            if character == open { quote = nil } else { result.append(character) }
        } else if character == "'" || character == "\"" {
            quote = character
        } else {
            result.append(character)
        }
    }
    return result
}
