import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A small XML reply of the object store (a listing, an error, a multipart
/// upload's id) as a tree, parsed with Foundation's `XMLParser`.
struct XMLNode {
    var name: String
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
        let parser = XMLParser(data: data)
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse() else { return nil }
        return builder.root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLNode] = []
        var root: XMLNode?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            stack.append(XMLNode(name: elementName))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !stack.isEmpty { stack[stack.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let node = stack.popLast() else { return }
            if stack.isEmpty {
                root = node
            } else {
                stack[stack.count - 1].children.append(node)
            }
        }
    }
}
