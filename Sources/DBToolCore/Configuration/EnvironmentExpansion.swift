/// `$NAME` and `${NAME}` replaced by the environment's values, as Litestream
/// expands its configuration file (an unset variable is empty; `$PID` is
/// the process's id).
enum EnvironmentExpansion {
    static func expand(_ text: String, environment: [String: String], processID: Int32) -> String {
        func value(_ name: Substring) -> String {
            name == "PID" ? String(processID) : environment[String(name)] ?? ""
        }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "{", let close = rest.firstIndex(of: "}") {
                result += value(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                continue
            }
            let name = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            if name.isEmpty {
                result += "$"
            } else {
                result += value(name)
                rest = rest.dropFirst(name.count)
            }
        }
        return result + rest
    }
}
