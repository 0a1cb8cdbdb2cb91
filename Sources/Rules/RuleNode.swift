// The rules of one location of a rules file, and the locations below it.
import JSONTree

/// One object of the rules tree: its `.read`, `.write`, `.validate` and `.indexOn`, its named
/// children and its one `$wildcard` child.
final class RuleNode: Sendable {
    let read: RuleExpression?
    let write: RuleExpression?
    let validate: RuleExpression?
    let indexOn: [String]
    let children: [JSONKey: RuleNode]
    let wildcard: (name: String, node: RuleNode)?

    init(read: RuleExpression?, write: RuleExpression?, validate: RuleExpression?, indexOn: [String],
         children: [JSONKey: RuleNode], wildcard: (name: String, node: RuleNode)?) {
        self.read = read
        self.write = write
        self.validate = validate
        self.indexOn = indexOn
        self.children = children
        self.wildcard = wildcard
    }

    /// The rules for the child `key`: a named child's, else the wildcard's (binding its name).
    func child(_ key: String, _ wildcards: inout [String: String]) -> RuleNode? {
        if let named = children[JSONKey(key)] { return named }
        guard let wildcard else { return nil }
        wildcards[wildcard.name] = key
        return wildcard.node
    }
}

/// Builds the rules tree from the parsed file, checking every rule.
struct RuleNodeParser {
    let source: [UInt8]
    let regexes = RuleRegexes()

    func error(_ message: String, at node: JSONNode) -> RulesError {
        RulesError(message, at: node.byteRange.lowerBound, in: source)
    }

    func parse(_ node: JSONNode, location: [String], wildcards: [String]) throws(RulesError) -> RuleNode {
        let name = location.isEmpty ? "rules" : "/" + location.joined(separator: "/")
        guard node.kind == .object else { throw error("the rules of \(name) must be an object", at: node) }
        var read: RuleExpression?, write: RuleExpression?, validate: RuleExpression?
        var indexOn = [String]()
        var children = [JSONKey: RuleNode]()
        var wildcard: (name: String, node: RuleNode)?
        var seen = Set<JSONKey>()
        for (keyNode, value) in node.members {
            let key = keyNode.stringValue ?? ""
            guard seen.insert(JSONKey(key)).inserted else { throw error("\(key) is given twice in \(name)", at: keyNode) }
            switch key {
            case ".read": read = try rule(value, key, wildcards, isRead: true)
            case ".write": write = try rule(value, key, wildcards, isRead: false)
            case ".validate": validate = try rule(value, key, wildcards, isRead: false)
            case ".indexOn":
                if let single = value.stringValue {
                    indexOn = [single]
                } else if value.kind == .array, value.elements.allSatisfy({ $0.kind == .string }) {
                    indexOn = value.elements.map { $0.stringValue! }
                } else {
                    throw error(".indexOn must be a string or an array of strings", at: value)
                }
            default:
                if key.hasPrefix(".") {
                    throw error("unknown rule \(key) (rules are .read, .write, .validate and .indexOn)", at: keyNode)
                }
                if key.isEmpty || key.utf8.contains(where: { [0x2E, 0x23, 0x5B, 0x5D, 0x2F].contains($0) || $0 < 0x20 }) {
                    throw error("\(JSON.string(key).serializedString()) is not a valid key (no . # [ ] / or control characters)", at: keyNode)
                }
                if key.hasPrefix("$") {
                    if let other = wildcard {
                        throw error("\(name) has two wildcard children, \(other.name) and \(key); one location has at most one", at: keyNode)
                    }
                    if wildcards.contains(key) {
                        throw error("the wildcard \(key) is already used by an enclosing location", at: keyNode)
                    }
                    wildcard = (key, try parse(value, location: location + [key], wildcards: wildcards + [key]))
                } else {
                    children[JSONKey(key)] = try parse(value, location: location + [key], wildcards: wildcards)
                }
            }
        }
        return RuleNode(read: read, write: write, validate: validate, indexOn: indexOn, children: children, wildcard: wildcard)
    }

    private func rule(_ value: JSONNode, _ kind: String, _ wildcards: [String], isRead: Bool) throws(RulesError) -> RuleExpression {
        if let b = value.boolValue { return .literal(.bool(b)) }
        guard let text = value.stringValue else { throw error("\(kind) must be a boolean or a string expression", at: value) }
        let expression: RuleExpression
        do {
            expression = try RuleExpressionParser.parse(text, scope: RuleScope(wildcards: wildcards, isRead: isRead, regexes: regexes))
        } catch {
            throw RulesError(error.message, at: rawOffset(of: error.offset, in: value), in: source)
        }
        if case .literal(let literal) = expression {
            guard case .bool = literal else { throw self.error("\(kind) must evaluate to a boolean", at: value) }
        }
        return expression
    }

    /// The file offset of byte `offset` of a string's decoded text (escapes are longer in the file).
    private func rawOffset(of offset: Int, in string: JSONNode) -> Int {
        var raw = string.byteRange.lowerBound + 1
        var decoded = 0
        let end = string.byteRange.upperBound - 1
        while raw < end && decoded < offset {
            if source[raw] == UInt8(ascii: "\\"), raw + 1 < end {
                if source[raw + 1] == UInt8(ascii: "u"), raw + 6 <= end,
                   let code = UInt32(String(decoding: source[raw + 2..<raw + 6], as: UTF8.self), radix: 16) {
                    decoded += code < 0x80 ? 1 : code < 0x800 ? 2 : (0xD800..<0xDC00).contains(code) ? 4 : (0xDC00..<0xE000).contains(code) ? 0 : 3
                    raw += 6
                } else {
                    decoded += 1
                    raw += 2
                }
            } else {
                decoded += 1
                raw += 1
            }
        }
        return raw
    }
}
