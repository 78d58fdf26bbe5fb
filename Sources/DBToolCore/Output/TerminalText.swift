/// Text from a database (names, values) as dbtool prints it for people:
/// control characters written as escapes, as `ls` does, so that a value
/// holding an escape sequence can not move the cursor, retitle the terminal
/// or hide what follows. Machine formats (csv, tsv, json) keep the text
/// as it is.
public enum TerminalText {
    /// `text` with C0 controls, DEL and C1 controls written `\xHH`; a tab,
    /// a newline and a carriage return as `\t`, `\n`, `\r`; and, when
    /// `escapingBackslash`, a backslash as `\\` (so that the escapes read
    /// back unambiguously).
    public static func escaped(_ text: String, escapingBackslash: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || (escapingBackslash && $0 == "\\") }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\\" where escapingBackslash: result += "\\\\"
            case _ where needsEscape(scalar):
                let digits = Array("0123456789ABCDEF")
                result += "\\x" + String(digits[Int(scalar.value >> 4)]) + String(digits[Int(scalar.value & 0xF)])
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
