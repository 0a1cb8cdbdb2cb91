// A `database.rules.json` and the decisions it makes: may this user read here, may they make
// these writes, which children are indexed.
import JSONTree

/// The Realtime Database's Security Rules, parsed from a rules file (`{"rules": {…}}`, with
/// `//` and `/* */` comments as the Firebase CLI allows them).
///
/// Reads and writes cascade: a `.read` or `.write` that is true at a location or above it
/// grants access, and no rule below can take it back; one that is false or fails grants
/// nothing, and a location with no rule that grants is denied, so a read is never filtered
/// down to the children one may see. `.validate` applies to each location a write leaves
/// data at (the written locations, their ancestors and everything below them), and does not
/// cascade. A write of several locations is allowed only when each of them is.
///
/// ```swift
/// let rules = try SecurityRules(parsing: Array(#"{"rules": {"users": {"$uid": {".read": "auth.uid === $uid"}}}}"#.utf8))
/// rules.permitsRead(at: try Path("/users/alice"), in: document.root, auth: ["uid": "alice"], now: 0)   // true
/// ```
public struct SecurityRules: Sendable {
    /// The file's text as given (comments and all).
    public let source: [UInt8]
    /// The file as strict JSON (comments removed).
    public let json: JSON
    private let root: RuleNode

    /// Parses and checks a rules file.
    /// - Throws: `RulesError` with the line and column of the first mistake: malformed JSON,
    ///   an unknown rule, a rule expression that does not parse, an unknown variable.
    public init(parsing source: [UInt8]) throws(RulesError) {
        self.source = source
        let strict = try RulesComments.blanked(source)
        let document: JSONDocument
        do { document = try JSONDocument(parsing: strict) } catch {
            throw RulesError(error.message, at: error.offset, in: source)
        }
        let top = document.root
        let parser = RuleNodeParser(source: source)
        guard top.kind == .object else { throw parser.error("a rules file is an object: {\"rules\": {…}}", at: top) }
        var rules: JSONNode?
        for (key, value) in top.members {
            guard key.stringEquals("rules"), rules == nil else {
                throw parser.error("a rules file has one member, \"rules\"", at: key)
            }
            rules = value
        }
        guard let rules else { throw parser.error("a rules file needs a \"rules\" member", at: top) }
        root = try parser.parse(rules, location: [], wildcards: [])
        json = top.json
    }

    /// Whether a user may read `path` of `tree` (with `query`, the request's `query` variable:
    /// an object of `orderByChild`, `limitToFirst`, …; null for a plain read).
    /// - Parameters:
    ///   - auth: null, or the user's `{"uid": …, "provider": …, "token": {…}}`.
    ///   - now: the server's time in milliseconds since 1970.
    public func permitsRead(at path: Path, in tree: JSONNode?, auth: JSON, query: JSON = .null, now: Int64) -> Bool {
        let base = tree.map { RuleData.node($0, ChildIndex()) }
        var context = RuleContext(
            auth: RuleValue(auth), root: RuleSnapshot(root: base, path: []), data: RuleSnapshot(root: base, path: []),
            newData: nil, now: Double(now), query: RuleValue(query), wildcards: [:])
        var node = root
        var depth = 0
        while true {
            if let read = node.read {
                context.data = RuleSnapshot(root: base, path: Array(path.keys[..<depth]))
                if RuleEvaluator.holds(read, in: context) { return true }
            }
            guard depth < path.keys.count, let next = node.child(path.keys[depth], &context.wildcards) else { return false }
            node = next
            depth += 1
        }
    }

    /// Whether a user may make `writes` (each a location and its new value, server values
    /// already resolved; null removes) to `tree`, as one request: all of them or none.
    public func permitsWrite(_ writes: [(path: Path, value: JSON)], to tree: JSONNode?, auth: JSON, now: Int64) -> Bool {
        let base = tree.map { RuleData.node($0, ChildIndex()) }
        let after = RuleData.applying(writes, to: base)
        var context = RuleContext(
            auth: RuleValue(auth), root: RuleSnapshot(root: base, path: []), data: RuleSnapshot(root: base, path: []),
            newData: RuleSnapshot(root: after, path: []), now: Double(now), query: .null, wildcards: [:])
        var validated = Set<Path>()
        for write in writes {
            let keys = write.path.keys
            var node = root
            var depth = 0
            var permitted = false
            context.wildcards = [:]
            while true {
                let location = Array(keys[..<depth])
                context.data = RuleSnapshot(root: base, path: location)
                context.newData = RuleSnapshot(root: after, path: location)
                if !permitted, let rule = node.write, RuleEvaluator.holds(rule, in: context) { permitted = true }
                if let rule = node.validate, context.newData?.data?.exists == true, validated.insert(Path(keys: location)).inserted {
                    guard RuleEvaluator.holds(rule, in: context) else { return false }
                }
                guard depth < keys.count else { break }
                guard let next = node.child(keys[depth], &context.wildcards) else { break }
                node = next
                depth += 1
            }
            guard permitted else { return false }
            if depth == keys.count, let value = write.value.normalized {
                guard validatesBelow(node, value, at: keys, base: base, after: after, context: context) else { return false }
            }
        }
        return true
    }

    /// The `.validate` rules below a written location, for each location of the written value.
    private func validatesBelow(
        _ node: RuleNode, _ value: JSON, at location: [String], base: RuleData?, after: RuleData?, context: RuleContext
    ) -> Bool {
        let members: [(key: String, value: JSON)]
        switch RuleData.withoutMetadata(value) {
        case .object(let o)?: members = o.members
        case .array(let a)?: members = a.enumerated().compactMap { $0.element.isNull ? nil : (String($0.offset), $0.element) }
        default: return true
        }
        for (key, child) in members {
            var context = context
            guard let rules = node.child(key, &context.wildcards) else { continue }
            let path = location + [key]
            if let rule = rules.validate {
                context.data = RuleSnapshot(root: base, path: path)
                context.newData = RuleSnapshot(root: after, path: path)
                guard RuleEvaluator.holds(rule, in: context) else { return false }
            }
            guard validatesBelow(rules, child, at: path, base: base, after: after, context: context) else { return false }
        }
        return true
    }

    /// The `.indexOn` of the rules for `path` (`.value` for an index of the values); empty
    /// when none is given there.
    public func indexes(at path: Path) -> [String] {
        var node = root
        var wildcards = [String: String]()
        for key in path.keys {
            guard let next = node.child(key, &wildcards) else { return [] }
            node = next
        }
        return node.indexOn
    }
}
