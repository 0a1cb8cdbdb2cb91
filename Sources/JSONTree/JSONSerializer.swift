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

/// Which characters of a string are written as `\uXXXX` escapes.
public enum JSONEscaping: Sendable {
    /// What JSON requires: `"`, `\` and C0 controls (files keep their text as it is).
    case required
    /// Also DEL, C1 controls, bidirectional controls and U+2028/U+2029: for output read by
    /// a terminal or a line-based tool, where those would act instead of showing.
    case invisibles
}

extension JSON {
    /// The value as JSON text bytes.
    /// - Complexity: O(size).
    public func serialized(_ style: JSONStyle = .compact, escaping: JSONEscaping = .required) -> [UInt8] {
        var out = [UInt8]()
        write(to: &out, style: style, depth: 0, escaping: escaping)
        return out
    }

    /// The value as JSON text.
    public func serializedString(_ style: JSONStyle = .compact, escaping: JSONEscaping = .required) -> String {
        String(decoding: serialized(style, escaping: escaping), as: UTF8.self)
    }

    /// Appends the value to `out`; `depth` is the indentation level of the line it starts on.
    public func write(to out: inout [UInt8], style: JSONStyle, depth: Int, escaping: JSONEscaping = .required) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeJSONString(s, to: &out, escaping: escaping)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, depth + 1)
                e.write(to: &out, style: style, depth: depth + 1, escaping: escaping)
            }
            if !a.isEmpty { newline(&out, style, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, depth + 1)
                writeJSONString(m.key, to: &out, escaping: escaping)
                out.append(UInt8(ascii: ":"))
                if case .pretty = style { out.append(UInt8(ascii: " ")) }
                m.value.write(to: &out, style: style, depth: depth + 1, escaping: escaping)
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

/// Whether `scalar` is invisible or acts on a terminal: C0 and C1 controls, DEL,
/// bidirectional controls (U+061C, U+200E, U+200F, U+202A–202E, U+2066–2069) and the
/// line and paragraph separators (U+2028, U+2029).
@inlinable
public func isInvisibleControl(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
    default: false
    }
}

/// Appends `\uXXXX` for a BMP scalar.
public func writeUnicodeEscape(_ u: UInt32, to out: inout [UInt8]) {
    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), hexDigits[Int(u >> 12 & 0xF)], hexDigits[Int(u >> 8 & 0xF)],
                            hexDigits[Int(u >> 4 & 0xF)], hexDigits[Int(u & 0xF)]])
}

/// Appends `s` as a quoted JSON string: `"` and `\` escaped, control characters as
/// `\n`, `\t`, … or `\u00XX`; with `.invisibles`, also every `isInvisibleControl`
/// scalar as `\uXXXX`; everything else as UTF-8.
public func writeJSONString(_ s: String, to out: inout [UInt8], escaping: JSONEscaping = .required) {
    out.append(UInt8(ascii: "\""))
    appendEscapedText(s, to: &out, escaping: escaping)
    out.append(UInt8(ascii: "\""))
}

/// The inside of `writeJSONString`'s quotes.
func appendEscapedText(_ s: String, to out: inout [UInt8], escaping: JSONEscaping) {
    if escaping == .invisibles && s.utf8.contains(where: { $0 >= 0x7F }) {
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v >= 0x7F && isInvisibleControl(v) {
                writeUnicodeEscape(v, to: &out)
            } else if v < 0x80 {
                appendEscapedASCII(UInt8(v), to: &out)
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return
    }
    for b in s.utf8 { appendEscapedASCII(b, to: &out) }
}

/// One byte of a string: escaped when JSON requires it, else as it is.
@inline(__always)
func appendEscapedASCII(_ b: UInt8, to out: inout [UInt8]) {
    switch b {
    case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
    case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
    case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
    case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
    case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
    case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
    case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
    case 0..<0x20: writeUnicodeEscape(UInt32(b), to: &out)
    default: out.append(b)
    }
}

extension JSONNode {
    /// The node re-serialized in `style` (its original bytes are `rawBytes`).
    public func serialized(_ style: JSONStyle = .compact) -> [UInt8] { json.serialized(style) }
}
