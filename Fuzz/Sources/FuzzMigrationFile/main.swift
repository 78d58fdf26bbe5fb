import DBToolCore
import Foundation
import FuzzDriver

// Fuzzes the migration file parser. An input's first line is the file name,
// the rest its content. The parser must return a file or throw a
// DBToolError (65) naming the path: never crash, hang or leak.
// Also exported under the name libFuzzer's driver links against.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMigrationFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let path = "/migrations/" + (parts.first.map(String.init) ?? "")
    do {
        let file = try MigrationFile(path: path, contents: parts.count > 1 ? String(parts[1]) : "")
        // What a parsed file promises.
        precondition(file.upFirstLine >= 1 && (file.downFirstLine ?? 1) >= 1, "line numbers start at 1")
        precondition(file.checksum.count == 64, "the checksum is a SHA-256 in hex")
    } catch let error as DBToolError {
        precondition(error.status == .dataError && error.message.contains(path), "errors are 65 and name the file")
    } catch {
        preconditionFailure("unexpected error type: \(error)")
    }
    return 0
}

var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)  // libFuzzer takes a char ***
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMigrationFile(data, size) })
