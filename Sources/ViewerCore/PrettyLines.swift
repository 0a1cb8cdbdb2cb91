// The first lines of a JSON value, pretty-printed, for the JSON pane: only as much as the
// pane can show is written, however large the value.
import JSONTree

/// Up to `limit` lines of `node` as pretty JSON (two-space indent), and whether lines were cut.
/// Numbers keep their spelling; strings are JSON-escaped (the pane sanitises what remains).
/// - Complexity: O(limit) lines written (plus skipping to the next sibling).
func prettyLines(_ node: JSONNode, limit: Int) -> (lines: [String], truncated: Bool) {
    var printer = PrettyPrinter(limit: max(1, limit))
    printer.value(node, prefix: "", indent: 0, last: true)
    return (printer.lines, printer.truncated)
}

private struct PrettyPrinter {
    let limit: Int
    var lines: [String] = []
    var truncated = false

    init(limit: Int) { self.limit = limit }

    var full: Bool { lines.count >= limit }

    mutating func emit(_ indent: Int, _ text: String) {
        guard !full else {
            truncated = true
            return
        }
        lines.append(String(repeating: "  ", count: indent) + text)
    }

    /// Writes `prefix` (a member's `"key": `) and the value; `last` says whether a comma follows.
    mutating func value(_ node: JSONNode, prefix: String, indent: Int, last: Bool) {
        let comma = last ? "" : ","
        switch node.kind {
        case .object:
            guard node.members.contains(where: { _ in true }) else { return emit(indent, prefix + "{}" + comma) }
            emit(indent, prefix + "{")
            var iterator = node.members.makeIterator()
            var next = iterator.next()
            while let (key, member) = next, !full {
                next = iterator.next()
                value(member, prefix: quoted(key.stringValue ?? "") + ": ", indent: indent + 1, last: next == nil)
            }
            emit(indent, "}" + comma)
        case .array:
            guard node.elements.contains(where: { _ in true }) else { return emit(indent, prefix + "[]" + comma) }
            emit(indent, prefix + "[")
            var iterator = node.elements.makeIterator()
            var next = iterator.next()
            while let element = next, !full {
                next = iterator.next()
                value(element, prefix: "", indent: indent + 1, last: next == nil)
            }
            emit(indent, "]" + comma)
        case .string: emit(indent, prefix + quoted(node.stringValue ?? "") + comma)
        case .number: emit(indent, prefix + (node.numberText ?? "") + comma)
        case .bool: emit(indent, prefix + (node.boolValue == true ? "true" : "false") + comma)
        case .null: emit(indent, prefix + "null" + comma)
        }
    }

    private func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        writeJSONString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
