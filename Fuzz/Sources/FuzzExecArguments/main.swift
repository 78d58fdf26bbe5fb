import DBToolCore
import DatabaseKit
import Foundation
import FuzzDriver

// Fuzzes the parsing of `dbtool exec --arg` values and their binding: an
// input is a list of arguments separated by NUL bytes (argv can not hold
// NUL). Parsing succeeds or throws a DBToolError (a typed value that is not
// of its type); binding to a fixed statement succeeds or throws a
// DatabaseError: never crash, hang or leak.
// Also exported under the name libFuzzer's driver links against.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExecArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let arguments: StatementArguments
    do {
        arguments = try ExecArgumentParser.parse(text.split(separator: "\0", omittingEmptySubsequences: false).map(String.init))
    } catch is DBToolError {
        return 0
    } catch {
        preconditionFailure("unexpected error type: \(error)")
    }
    do {
        _ = try Harness.dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT ?, ?, :a, :b", arguments: arguments) }
    } catch is DatabaseError {
        // Missing or extra arguments: reported, as dbtool does.
    } catch {
        preconditionFailure("unexpected error type: \(error)")
    }
    return 0
}

/// Opened once, on first use.
enum Harness {
    static let dbQueue = DatabaseQueue()
}

var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)  // libFuzzer takes a char ***
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzExecArguments(data, size) })
