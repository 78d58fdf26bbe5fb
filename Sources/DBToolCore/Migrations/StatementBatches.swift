import DatabaseKit
import FoundationEssentials

/// A script read in chunks, cut into batches of whole statements of about
/// 256 KiB, so that a migration of any size runs in bounded
/// memory: only a batch, and the statement being read, are held.
/// (``defaultBatchSize``; tests give smaller ones.)
///
/// A statement ends at a semicolon outside strings, quoted identifiers and
/// comments, where SQLite agrees that the text is complete (a trigger body
/// holds semicolons until its `END;`).
struct StatementBatches {
    /// The size from which the whole statements read are handed out.
    static let defaultBatchSize = 256 << 10

    private let batchSize: Int

    init(batchSize: Int = StatementBatches.defaultBatchSize) {
        self.batchSize = batchSize
    }

    /// Where the scanner is, between two bytes.
    private enum Lexeme {
        case code, singleQuoted, doubleQuoted, backquoted, bracketed, lineComment, blockComment
    }

    private var pending: [UInt8] = []
    /// The start of the statement being read, in `pending`.
    private var statementStart = 0
    /// The end of the whole statements read, in `pending`.
    private var completeEnd = 0
    private var lexeme = Lexeme.code
    /// The previous byte in the same lexeme (for `--`, `/*` and `*/`).
    private var previous: UInt8 = 0
    /// The line (0-based, from the start of the script) where `pending` starts.
    private var line = 0

    /// Reads a chunk; calls `body` with a batch of whole statements and the
    /// 0-based line where it starts once enough of them are read.
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (String, Int) throws -> Void) throws {
        let scanStart = pending.count
        pending.append(contentsOf: chunk)
        var index = scanStart
        let count = pending.count
        pending.withUnsafeBufferPointer { bytes in
            while index < count {
                let byte = bytes[index]
                switch lexeme {
                case .code:
                    switch byte {
                    case UInt8(ascii: ";"):
                        let statement = String(decoding: UnsafeBufferPointer(rebasing: bytes[statementStart...index]), as: UTF8.self)
                        if Database.endsWithCompleteStatement(statement) {
                            completeEnd = index + 1
                            statementStart = index + 1
                        }
                    case UInt8(ascii: "'"): lexeme = .singleQuoted
                    case UInt8(ascii: "\""): lexeme = .doubleQuoted
                    case UInt8(ascii: "`"): lexeme = .backquoted
                    case UInt8(ascii: "["): lexeme = .bracketed
                    case UInt8(ascii: "-") where previous == UInt8(ascii: "-"): lexeme = .lineComment
                    case UInt8(ascii: "*") where previous == UInt8(ascii: "/"): lexeme = .blockComment
                    default: break
                    }
                    // A byte that opens a lexeme is not the first of a pair in the next one.
                    previous = lexeme == .code ? byte : 0
                case .singleQuoted: if byte == UInt8(ascii: "'") { lexeme = .code; previous = 0 }
                case .doubleQuoted: if byte == UInt8(ascii: "\"") { lexeme = .code; previous = 0 }
                case .backquoted: if byte == UInt8(ascii: "`") { lexeme = .code; previous = 0 }
                case .bracketed: if byte == UInt8(ascii: "]") { lexeme = .code; previous = 0 }
                case .lineComment: if byte == UInt8(ascii: "\n") { lexeme = .code; previous = 0 }
                case .blockComment:
                    if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "*") {
                        lexeme = .code
                        previous = 0
                    } else {
                        previous = byte
                    }
                }
                index += 1
            }
        }
        if completeEnd >= batchSize { try flush(upTo: completeEnd, body) }
    }

    /// Hands out what is left, whole statements or not (SQLite then
    /// reports an incomplete one).
    mutating func finish(_ body: (String, Int) throws -> Void) throws {
        if !pending.isEmpty { try flush(upTo: pending.count, body) }
    }

    private mutating func flush(upTo end: Int, _ body: (String, Int) throws -> Void) throws {
        let batch = pending.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<end]), as: UTF8.self) }
        try body(batch, line)
        line += pending[..<end].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        pending.removeFirst(end)
        statementStart -= end
        completeEnd = 0
    }
}
