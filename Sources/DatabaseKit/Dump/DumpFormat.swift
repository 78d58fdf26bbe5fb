/// A way to print the rows of a statement, for the dump methods such as
/// ``Database/dumpContent(format:to:)`` and ``DatabaseReader/dumpSQL(_:format:to:)``.
///
/// The built-in formats follow the output modes of the `sqlite3` command
/// line tool: ``debug(header:separator:nullValue:)``, ``list(header:separator:nullValue:)``,
/// ``line(nullValue:)``, ``quote(header:separator:)`` and ``json(encoder:)``.
///
/// A dump copies the format for each statement, calls ``writeRow(_:statement:to:)``
/// once per row, then ``finalize(_:statement:to:)``.
public protocol DumpFormat {
    /// Writes the current row of `statement`.
    mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws

    /// Called once every row of `statement` was written.
    mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream)
}

/// Where a dump writes: the stream given to a dump method, or the standard
/// output. It can keep a blank line between two blocks of output.
public struct DumpStream: TextOutputStream {
    private var base: any TextOutputStream
    private var needsMarginLine = false

    init(_ base: (any TextOutputStream)?) {
        self.base = base ?? StandardOutput()
    }

    /// Asks for a blank line before the next non-empty text, unless that
    /// text starts with a new line.
    public mutating func margin() {
        needsMarginLine = true
    }

    /// Writes `string`, after the blank line asked by ``margin()``.
    public mutating func write(_ string: String) {
        if needsMarginLine, let first = string.first {
            needsMarginLine = false
            if first != "\n" { base.write("\n") }
        }
        base.write(string)
    }

    /// Writes `string` and a new line.
    mutating func writeLine(_ string: String) {
        write(string)
        write("\n")
    }
}

/// When ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)`` prints
/// the name of each table above its rows.
public enum DumpTableHeaderOptions: Sendable {
    /// Only when several tables are printed.
    case automatic
    /// Always.
    case always
}

/// The standard output, as `print` writes it.
private struct StandardOutput: TextOutputStream {
    func write(_ string: String) {
        print(string, terminator: "")
    }
}
