// The text of a table cell for a JSON value. The text is untrusted: TableUI sanitises it
// before anything reaches the terminal.
import JSONTree

/// A JSON value as one cell: strings as they are, numbers as spelled in the file,
/// `true`/`false`, null (or a missing value) empty, objects and arrays summarised by their
/// size (`{3}`, `[5]`).
/// - Complexity: O(1) for scalars; O(members) for a container (its size is counted).
func cellText(_ node: JSONNode?) -> String {
    guard let node else { return "" }
    switch node.kind {
    case .null: return ""
    case .bool: return node.boolValue == true ? "true" : "false"
    case .number: return node.numberText ?? ""
    case .string: return node.stringValue ?? ""
    case .object: return "{\(node.count)}"
    case .array: return "[\(node.count)]"
    }
}

/// The text of a JSON Lines error row (a line that is not valid JSON, see `JSONLinesBuilder`):
/// `invalid JSON at line L, column C: MESSAGE`; nil for any other value.
func errorRowText(_ value: JSONNode) -> String? {
    guard value.kind == .object, let error = value.child(JSONLinesBuilder.errorMember), error.kind == .object,
        let line = error.child("line")?.numberText, let column = error.child("column")?.numberText,
        let message = error.child("message")?.stringValue
    else { return nil }
    return "⚠ invalid JSON at line \(line), column \(column): \(message)"
}
