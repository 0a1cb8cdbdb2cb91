// The whitespace style of a document (indentation, newlines, separators), observed from its
// bytes so that values written into it look like their neighbours.

/// How new values are laid out at one place in a document.
struct JSONLayout {
    /// One member or element per line (pretty), or all on one line.
    var multiline: Bool
    /// `\n` or `\r\n`.
    var newline: [UInt8]
    /// One level of indentation (spaces or a tab).
    var unit: [UInt8]
    /// Between a key and its value, colon included: `":"`, `": "`, `" : "`.
    var colon: [UInt8]
    /// After a comma on one line: `""` or `" "`.
    var comma: [UInt8]

    /// Appends `value` starting on a line indented by `indent`.
    /// - Complexity: O(size of value).
    func write(_ value: JSON, indent: [UInt8], to out: inout [UInt8]) {
        switch value {
        case .object(let o) where o.count > 0:
            out.append(UInt8(ascii: "{"))
            let inner = multiline ? indent + unit : indent
            for (i, m) in o.members.enumerated() {
                separate(first: i == 0, indent: inner, to: &out)
                writeMember(key: m.key, value: m.value, indent: inner, to: &out)
            }
            close(indent: indent, to: &out)
            out.append(UInt8(ascii: "}"))
        case .array(let a) where !a.isEmpty:
            out.append(UInt8(ascii: "["))
            let inner = multiline ? indent + unit : indent
            for (i, e) in a.enumerated() {
                separate(first: i == 0, indent: inner, to: &out)
                write(e, indent: inner, to: &out)
            }
            close(indent: indent, to: &out)
            out.append(UInt8(ascii: "]"))
        default:
            // Scalars and empty containers are the same in every layout.
            value.write(to: &out, style: .compact, depth: 0)
        }
    }

    /// Appends `"key": value` for a member whose line is indented by `indent`.
    func writeMember(key: String, value: JSON, indent: [UInt8], to out: inout [UInt8]) {
        writeJSONString(key, to: &out)
        out.append(contentsOf: colon)
        write(value, indent: indent, to: &out)
    }

    /// Before a member or element: a comma unless it is the first, then a new line or the
    /// one-line gap.
    func separate(first: Bool, indent: [UInt8], to out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        if multiline {
            out.append(contentsOf: newline)
            out.append(contentsOf: indent)
        } else if !first {
            out.append(contentsOf: comma)
        }
    }

    /// Before the closing bracket of a non-empty container whose line is indented by `indent`.
    func close(indent: [UInt8], to out: inout [UInt8]) {
        if multiline {
            out.append(contentsOf: newline)
            out.append(contentsOf: indent)
        }
    }
}

/// What one non-empty container shows of its layout.
struct ContainerStyle {
    var multiline: Bool
    /// `\n` or `\r\n` (multiline only).
    var newline: [UInt8]
    /// The whitespace starting the last member's line (multiline only).
    var memberIndent: [UInt8]
    /// Member indentation less the container's own line indentation, when that is a suffix.
    var unit: [UInt8]?
    /// Key-to-value separator of the last member (objects only).
    var colon: [UInt8]?
    /// The gap after the comma before the last member (one-line containers with 2+ members).
    var comma: [UInt8]?
}

/// Reads layout from a document's bytes.
struct LayoutReader {
    let document: JSONDocument
    var bytes: DocumentBytes { document.bytes }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The spaces and tabs that start the line holding byte `position`.
    /// - Complexity: O(length of the line).
    func lineIndent(at position: Int) -> [UInt8] {
        var start = position
        while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < position && (bytes[end] == 0x20 || bytes[end] == 0x09) { end += 1 }
        return Array(bytes[start..<end])
    }

    /// Where the whitespace just before `position` starts.
    func gapStart(before position: Int) -> Int {
        var i = position
        while i > 0 && LayoutReader.isSpace(bytes[i - 1]) { i -= 1 }
        return i
    }

    /// The style of a non-empty object or array; nil for empty containers and scalars.
    /// - Complexity: O(number of children) to find the last one.
    func style(of node: JSONNode) -> ContainerStyle? {
        guard node.isContainer, node.nextIndex > node.index + 2 else { return nil }
        let isObject = node.kind == .object
        // The last child in byte order (for objects, the key of the last member).
        let tape = document.tape
        var position = node.index + 2, last = position
        let end = node.nextIndex
        while position < end {
            last = position
            position = tape.next(isObject ? position + 1 : position)
        }
        let lastStart = JSONNode(document: document, index: last).byteRange.lowerBound
        let gapFrom = gapStart(before: lastStart)
        let afterComma = bytes[gapFrom - 1] == UInt8(ascii: ",")
        var style = ContainerStyle(multiline: false, newline: [0x0A], memberIndent: [], unit: nil, colon: nil, comma: nil)
        if let nl = bytes[gapFrom..<lastStart].lastIndex(of: 0x0A) {
            style.multiline = true
            style.newline = nl > gapFrom && bytes[nl - 1] == 0x0D ? [0x0D, 0x0A] : [0x0A]
            style.memberIndent = Array(bytes[(nl + 1)..<lastStart])
            let own = lineIndent(at: node.byteRange.lowerBound)
            if style.memberIndent.count > own.count && style.memberIndent.starts(with: own) {
                style.unit = Array(style.memberIndent[own.count...])
            }
        } else if afterComma {
            style.comma = Array(bytes[gapFrom..<lastStart])
        }
        if isObject {
            let key = JSONNode(document: document, index: last), value = JSONNode(document: document, index: last + 1)
            style.colon = Array(bytes[key.byteRange.upperBound..<value.byteRange.lowerBound])
        }
        return style
    }

    /// The layout for new values inside the first container of `chain` (nearest first):
    /// each property from the nearest container that shows it, else the document's
    /// newline style and two-space pretty printing.
    func layout(chain: some Sequence<JSONNode>) -> JSONLayout {
        var multiline: Bool?, newline: [UInt8]?, unit: [UInt8]?, colon: [UInt8]?, comma: [UInt8]?
        for node in chain {
            guard let s = style(of: node) else { continue }
            if multiline == nil { multiline = s.multiline }
            if newline == nil && s.multiline { newline = s.newline }
            if unit == nil { unit = s.unit }
            if colon == nil { colon = s.colon }
            if comma == nil { comma = s.comma }
            if newline != nil && unit != nil && colon != nil && comma != nil { break }
        }
        let isMultiline = multiline ?? true
        let resolvedColon = colon ?? (isMultiline ? Array(": ".utf8) : Array(":".utf8))
        return JSONLayout(
            multiline: isMultiline,
            newline: newline ?? documentNewline(),
            unit: unit ?? [0x20, 0x20],
            colon: resolvedColon,
            comma: comma ?? (resolvedColon.last == 0x20 ? [0x20] : [])
        )
    }

    /// `\r\n` when the document's first line break is one, else `\n`.
    func documentNewline() -> [UInt8] {
        guard let nl = bytes.firstIndex(of: 0x0A) else { return [0x0A] }
        return nl > 0 && bytes[nl - 1] == 0x0D ? [0x0D, 0x0A] : [0x0A]
    }
}
