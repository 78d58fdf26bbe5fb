/// A node of a YAML document as ``YAMLParser`` composes it: a scalar (its
/// text and whether it was written plain, unquoted), a mapping (its pairs in
/// file order) or a sequence, with the line it starts on for error messages.
/// Aliases are replaced by the node their anchor names.
struct YAMLNode {
    enum Content {
        case scalar(String, isPlain: Bool)
        case mapping([(key: YAMLNode, value: YAMLNode)])
        case sequence([YAMLNode])
    }

    var content: Content
    /// The line the node starts on, from 1.
    var line: Int

    /// The text of a scalar; nil for a mapping or a sequence.
    var string: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// A plain `~`, `null` or nothing: YAML's null, as Litestream reads it.
    var isNull: Bool {
        guard case .scalar(let text, let isPlain) = content else { return false }
        return isPlain && ["", "~", "null", "Null", "NULL"].contains(text)
    }
}
