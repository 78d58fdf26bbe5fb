import DBToolCore
import Foundation

// Writes dbtool's man page: reads `dbtool --experimental-dump-help` on
// stdin, prints man(7) source on stdout. `make completions` runs it.
//
// Usage: dbtool --experimental-dump-help | generate-man-page --date YYYY-MM-DD

var date = "1970-01-01"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--date", let value = arguments.popFirst() {
        date = value
    } else {
        FileHandle.standardError.write(Data("usage: dbtool --experimental-dump-help | generate-man-page --date YYYY-MM-DD\n".utf8))
        exit(64)
    }
}
do {
    let input = FileHandle.standardInput.readDataToEndOfFile()
    let tool = try JSONDecoder().decode(ToolDescription.self, from: input)
    print(ManPage(tool: tool.command, date: date, version: DBToolVersion.current).source, terminator: "")
} catch {
    FileHandle.standardError.write(Data("generate-man-page: cannot read the tool description on stdin: \(error)\n".utf8))
    exit(65)
}
