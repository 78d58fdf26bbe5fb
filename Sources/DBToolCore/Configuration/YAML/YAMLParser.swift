internal import DBToolYAML
import FoundationEssentials

/// The owner of a libyaml parser: composes the first document of a YAML
/// text into ``YAMLNode``s. The only code of DBToolCore that calls libyaml.
///
/// libyaml (the parser PyYAML and Ruby use) reads YAML 1.1 as Litestream's
/// Go parser does for configuration files; this type adds the tree, the
/// lines, and a bound on what aliases may expand to (a "billion laughs"
/// file is an error, not a machine out of memory).
final class YAMLParser {
    /// The most nodes a document may expand to, aliases counted.
    static let nodeLimit = 100_000

    private var parser = yaml_parser_t()
    private let text: [UInt8]

    /// A YAML error: what libyaml reports, with its line and column (from 1).
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    private init(_ text: String) throws(Problem) {
        self.text = Array(text.utf8)
        guard yaml_parser_initialize(&parser) == 1 else { throw Problem(description: "out of memory") }
    }

    deinit { yaml_parser_delete(&parser) }

    /// The first document of `text`, or nil when it holds none.
    static func compose(_ text: String) throws(Problem) -> YAMLNode? {
        let parser = try YAMLParser(text)
        return try parser.text.withUnsafeBufferPointer { (buffer) throws(Problem) -> YAMLNode? in
            yaml_parser_set_input_string(&parser.parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(&parser.parser, YAML_UTF8_ENCODING)
            return try parser.composeDocument()
        }
    }

    /// A collection being read, with what its end event closes.
    private struct Open {
        var isMapping: Bool
        var anchor: String?
        var line: Int
        var items: [YAMLNode] = []
        var size = 1
    }

    private func composeDocument() throws(Problem) -> YAMLNode? {
        var anchors: [String: (node: YAMLNode, size: Int)] = [:]
        var stack: [Open] = []
        var total = 0
        var root: YAMLNode?
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(&parser, &event) == 1 else { throw problem() }
            defer { yaml_event_delete(&event) }
            let line = Int(event.start_mark.line) + 1
            var finished: (node: YAMLNode, size: Int, anchor: String?)?
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_END_EVENT:
                return root
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                finished = (
                    YAMLNode(content: .scalar(value, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE), line: line), 1,
                    Self.string(scalar.anchor)
                )
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    throw Problem(description: "line \(line): the alias *\(name) names no anchor defined before it")
                }
                finished = (YAMLNode(content: anchored.node.content, line: line), anchored.size, nil)
            case YAML_MAPPING_START_EVENT:
                stack.append(Open(isMapping: true, anchor: Self.string(event.data.mapping_start.anchor), line: line))
            case YAML_SEQUENCE_START_EVENT:
                stack.append(Open(isMapping: false, anchor: Self.string(event.data.sequence_start.anchor), line: line))
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                guard let open = stack.popLast() else { throw Problem(description: "line \(line): an end without a start") }
                let content: YAMLNode.Content
                if open.isMapping {
                    var pairs: [(key: YAMLNode, value: YAMLNode)] = []
                    pairs.reserveCapacity(open.items.count / 2)
                    for index in stride(from: 0, to: open.items.count - 1, by: 2) {
                        pairs.append((open.items[index], open.items[index + 1]))
                    }
                    content = .mapping(pairs)
                } else {
                    content = .sequence(open.items)
                }
                finished = (YAMLNode(content: content, line: open.line), open.size, open.anchor)
            default:
                break  // stream and document starts
            }
            guard let (node, size, anchor) = finished else { continue }
            total += size
            guard total <= Self.nodeLimit else {
                throw Problem(description: "line \(line): the document expands to more than \(Self.nodeLimit) values (aliases included)")
            }
            if let anchor { anchors[anchor] = (node, size) }
            if stack.isEmpty {
                root = node
            } else {
                stack[stack.count - 1].items.append(node)
                stack[stack.count - 1].size += size
            }
        }
    }

    /// libyaml's account of the failure: `line 3, column 5: did not find
    /// expected key (while parsing a block mapping at line 1, column 1)`.
    private func problem() -> Problem {
        let what = Self.string(parser.problem) ?? "malformed YAML"
        var text = "line \(parser.problem_mark.line + 1), column \(parser.problem_mark.column + 1): \(what)"
        if let context = Self.string(parser.context) {
            text += " (\(context) at line \(parser.context_mark.line + 1), column \(parser.context_mark.column + 1))"
        }
        return Problem(description: text)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }
}
