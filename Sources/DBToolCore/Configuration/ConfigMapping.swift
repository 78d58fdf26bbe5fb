/// A mapping of a configuration file, read with the line of every value, so
/// that a wrong type is an error naming the file and the line (64) and an
/// unknown key a warning naming them.
struct ConfigMapping {
    let file: String
    let line: Int
    private let pairs: [(key: String, value: YAMLNode, line: Int)]

    init(_ node: YAMLNode, file: String, what: String) throws {
        guard case .mapping(let mapping) = node.content else {
            throw ConfigMapping.wrongType(file, node.line, what, "a mapping (key: value lines)", node)
        }
        self.file = file
        line = node.line
        pairs = mapping.map { (key: $0.key.string ?? "", value: $0.value, line: $0.key.line) }
    }

    var keys: [(name: String, line: Int)] { pairs.map { ($0.key, $0.line) } }

    func has(_ key: String) -> Bool { pairs.contains { $0.key == key } }

    private func value(_ key: String) -> (node: YAMLNode, line: Int)? {
        pairs.last { $0.key == key }.map { ($0.value, $0.line) }
    }

    func string(_ key: String, expecting expected: String = "a string") throws -> String? {
        guard let (node, line) = value(key) else { return nil }
        guard let text = node.string, !node.isNull else {
            if node.isNull { return nil }
            throw Self.wrongType(file, line, key, expected, node)
        }
        return text
    }

    func duration(_ key: String) throws -> Double? {
        guard let text = try string(key, expecting: "a duration such as 1s, 30m or 24h") else { return nil }
        guard let seconds = GoDuration.seconds(text) else {
            throw DBToolError(.usage, "\(file):\(value(key)?.line ?? line): \(key) takes a duration such as 1s, 30m or 24h (got \(text))")
        }
        return seconds
    }

    func int(_ key: String) throws -> Int? {
        guard let text = try string(key, expecting: "a whole number") else { return nil }
        guard let number = Int(text) else {
            throw DBToolError(.usage, "\(file):\(value(key)?.line ?? line): \(key) takes a whole number (got \(text))")
        }
        return number
    }

    func bool(_ key: String) throws -> Bool? {
        guard let text = try string(key, expecting: "true or false") else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw DBToolError(.usage, "\(file):\(value(key)?.line ?? line): \(key) takes true or false (got \(text))")
        }
    }

    func mapping(_ key: String) throws -> ConfigMapping? {
        guard let (node, _) = value(key) else { return nil }
        if node.isNull { return nil }
        return try ConfigMapping(node, file: file, what: key)
    }

    func sequence(_ key: String) throws -> [YAMLNode]? {
        guard let (node, line) = value(key) else { return nil }
        if case .sequence(let sequence) = node.content { return sequence }
        if node.isNull { return nil }
        throw Self.wrongType(file, line, key, "a list (lines starting with -)", node)
    }

    static func wrongType(_ file: String, _ line: Int, _ what: String, _ expected: String, _ node: YAMLNode) -> DBToolError {
        let found: String
        switch node.content {
        case .mapping: found = "a mapping"
        case .sequence: found = "a list"
        case .scalar(let text, _): found = "\"\(text)\""
        }
        return DBToolError(
            .usage, "\(file):\(line): \(what) takes \(expected), not \(found)", hint: "See docs/replication.md, Configuration file.")
    }
}
