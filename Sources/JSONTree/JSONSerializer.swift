// Writing JSON values as text: compact or pretty.

/// How to lay out serialized JSON.
public enum JSONStyle: Sendable, Equatable {
    /// No whitespace: `{"a":[1,2]}`.
    case compact
    /// One member or element per line, indented by `indent` (e.g. two spaces or a tab);
    /// `": "` between key and value.
    case pretty(indent: String)

    public static let pretty = JSONStyle.pretty(indent: "  ")
}

extension JSON {
    /// The value as JSON text bytes.
    /// - Complexity: O(size).
    public func serialized(_ style: JSONStyle = .compact) -> [UInt8] {
        var out = [UInt8]()
        write(to: &out, style: style, depth: 0)
        return out
    }

    /// The value as JSON text.
    public func serializedString(_ style: JSONStyle = .compact) -> String {
        String(decoding: serialized(style), as: UTF8.self)
    }

    /// Appends the value to `out`; `depth` is the indentation level of the line it starts on.
    public func write(to out: inout [UInt8], style: JSONStyle, depth: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeJSONString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, depth + 1)
                e.write(to: &out, style: style, depth: depth + 1)
            }
            if !a.isEmpty { newline(&out, style, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, depth + 1)
                writeJSONString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if case .pretty = style { out.append(UInt8(ascii: " ")) }
                m.value.write(to: &out, style: style, depth: depth + 1)
            }
            if o.count > 0 { newline(&out, style, depth) }
            out.append(UInt8(ascii: "}"))
        }
    }
}

private func newline(_ out: inout [UInt8], _ style: JSONStyle, _ depth: Int) {
    guard case .pretty(let indent) = style else { return }
    out.append(0x0A)
    for _ in 0..<depth { out.append(contentsOf: indent.utf8) }
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Appends `s` as a quoted JSON string: `"` and `\` escaped, control characters as
/// `\n`, `\t`, … or `\u00XX`; everything else as UTF-8.
public func writeJSONString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        case 0..<0x20:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
        default: out.append(b)
        }
    }
    out.append(UInt8(ascii: "\""))
}

extension JSONNode {
    /// The node re-serialized in `style` (its original bytes are `rawBytes`).
    public func serialized(_ style: JSONStyle = .compact) -> [UInt8] { json.serialized(style) }
}
