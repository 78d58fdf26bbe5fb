import FoundationEssentials

/// A small XML reply of the object store (a listing, an error, a multipart
/// upload's id) as a tree.
///
/// Parsed here rather than with Foundation's `XMLParser`, which would link
/// libxml2 and the part of Foundation that carries ICU for a format this
/// small: elements, text, the five predefined entities and character
/// references, CDATA, comments and processing instructions. A document
/// type declaration is refused (an object store sends none, and refusing
/// it leaves no entity to expand), as is anything not well formed.
struct XMLNode {
    /// The element's name as written, prefix included (`s3:Key` stays so).
    var name: String
    /// The element's own text (entities decoded), its children's excluded.
    var text = ""
    var children: [XMLNode] = []

    /// The first child named `name`.
    func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }
    /// Every child named `name`.
    func all(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
    /// The text of the first child named `name`.
    subscript(_ name: String) -> String? { child(name)?.text }

    /// The document's root element, or nil for anything that is not XML.
    static func parse(_ data: Data) -> XMLNode? {
        var reader = XMLReader(bytes: Array(data))
        return reader.document()
    }
}

/// The parser behind ``XMLNode/parse(_:)``: one pass over the bytes, an
/// explicit stack of open elements (no recursion for a deep document).
private struct XMLReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        // A UTF-8 byte order mark is allowed before the declaration.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    mutating func document() -> XMLNode? {
        var stack: [XMLNode] = []
        var root: XMLNode?
        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                guard let text = characterData() else { return nil }
                if stack.isEmpty {
                    // Outside the root element only blanks may appear.
                    guard text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return nil }
                } else {
                    stack[stack.count - 1].text += text
                }
            } else if starts(with: "<?") {
                guard skip(past: "?>") else { return nil }
            } else if starts(with: "<!--") {
                guard skip(past: "-->") else { return nil }
            } else if starts(with: "<![CDATA[") {
                guard !stack.isEmpty, let start = Optional(position + 9), skip(past: "]]>") else { return nil }
                stack[stack.count - 1].text += String(decoding: bytes[start..<position - 3], as: UTF8.self)
            } else if starts(with: "<!") {
                return nil  // a document type declaration
            } else if starts(with: "</") {
                position += 2
                let name = name()
                skipBlanks()
                guard let name, consume(">"), let open = stack.popLast(), open.name == name else { return nil }
                if stack.isEmpty {
                    guard root == nil else { return nil }
                    root = open
                } else {
                    stack[stack.count - 1].children.append(open)
                }
            } else {
                position += 1
                guard root == nil, let name = name(), skipAttributes() else { return nil }
                if consume("/>") {
                    let element = XMLNode(name: name)
                    if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
                } else {
                    guard consume(">") else { return nil }
                    stack.append(XMLNode(name: name))
                }
            }
        }
        return stack.isEmpty ? root : nil
    }

    /// Text up to the next `<`, its references decoded; nil for a malformed one.
    private mutating func characterData() -> String? {
        var decoded: [UInt8] = []
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
            if bytes[position] == UInt8(ascii: "&") {
                guard let end = bytes[position...].firstIndex(of: UInt8(ascii: ";")), end - position <= 10,
                    let scalar = Self.reference(String(decoding: bytes[(position + 1)..<end], as: UTF8.self))
                else { return nil }
                decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
                position = end + 1
            } else {
                decoded.append(bytes[position])
                position += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The character an entity or character reference (without `&` and `;`) names.
    private static func reference(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init)
        }
    }

    /// An element name: letters, digits and `_:.-`, not starting with a digit.
    private mutating func name() -> String? {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        guard position > start, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start]) else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Skips `name="value"` pairs (an object store's answers carry only
    /// `xmlns`), leaving the position at `>` or `/>`.
    private mutating func skipAttributes() -> Bool {
        while true {
            let hadBlank = skipBlanks()
            guard position < bytes.count else { return false }
            if bytes[position] == UInt8(ascii: ">") || starts(with: "/>") { return true }
            guard hadBlank, name() != nil else { return false }
            skipBlanks()
            guard consume("=") else { return false }
            skipBlanks()
            guard position < bytes.count else { return false }
            let quote = bytes[position]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                let end = bytes[(position + 1)...].firstIndex(of: quote)
            else { return false }
            guard !bytes[(position + 1)..<end].contains(UInt8(ascii: "<")) else { return false }
            position = end + 1
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    /// Skips blanks; true when there was at least one.
    @discardableResult
    private mutating func skipBlanks() -> Bool {
        let start = position
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        return position > start
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { $0.elementsEqual(bytes[position..<position + count]) }
    }

    private mutating func consume(_ text: StaticString) -> Bool {
        guard starts(with: text) else { return false }
        position += text.utf8CodeUnitCount
        return true
    }

    /// Moves past the next `terminator`; false when there is none.
    private mutating func skip(past terminator: StaticString) -> Bool {
        while position < bytes.count {
            if consume(terminator) { return true }
            position += 1
        }
        return false
    }
}
