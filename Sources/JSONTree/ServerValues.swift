// Server values: placeholders in written values that become concrete when the write is
// applied — `{".sv": "timestamp"}` and `{".sv": {"increment": n}}`.

extension JSON {
    /// This value (to be written at `path`) with each server value replaced:
    /// `{".sv": "timestamp"}` by `serverTime` (milliseconds since 1970), and
    /// `{".sv": {"increment": n}}` by the number now at its location in `document` plus n,
    /// or n when there is no number there.
    ///
    /// Resolve against the content the write is applied to: a write retried on newer
    /// content resolves again, so an increment is never lost.
    /// - Throws: `.invalidServerValue` for an unknown or malformed server value, or a
    ///   timestamp when `serverTime` is nil.
    /// - Complexity: O(size of the value), plus a lookup in `document` per increment.
    public func resolvingServerValues(at path: Path, in document: JSONDocument?, serverTime: Int64?) throws(JSONEditError) -> JSON {
        try resolved(at: path, document, serverTime) ?? self
    }

    /// The resolved value, or nil when it holds no server value (so nothing is copied).
    private func resolved(at path: Path, _ document: JSONDocument?, _ serverTime: Int64?) throws(JSONEditError) -> JSON? {
        switch self {
        case .object(let object):
            if let sv = object[".sv"] {
                guard object.count == 1 else {
                    throw JSONEditError(.invalidServerValue(at: path, "an object with '.sv' must have no other members"))
                }
                return try JSON.serverValue(sv, at: path, document, serverTime)
            }
            var changed = false
            var members = object.members
            for i in members.indices {
                if let v = try members[i].value.resolved(at: path.child(members[i].key), document, serverTime) {
                    members[i].value = v
                    changed = true
                }
            }
            return changed ? .object(JSONObject(uniqueMembers: members)) : nil
        case .array(var elements):
            var changed = false
            for i in elements.indices {
                if let v = try elements[i].resolved(at: path.child(String(i)), document, serverTime) {
                    elements[i] = v
                    changed = true
                }
            }
            return changed ? .array(elements) : nil
        default:
            return nil
        }
    }

    private static func serverValue(_ sv: JSON, at path: Path, _ document: JSONDocument?, _ serverTime: Int64?) throws(JSONEditError) -> JSON {
        if case .string(let name) = sv, name == "timestamp" {
            guard let serverTime else {
                throw JSONEditError(.invalidServerValue(at: path, "no server time to resolve the timestamp"))
            }
            return .number(JSONNumber(Int(serverTime)))
        }
        if case .object(let op) = sv, op.count == 1, let delta = op["increment"] {
            guard case .number(let n) = delta else {
                throw JSONEditError(.invalidServerValue(at: path, "'increment' needs a number, not \(delta.serializedString())"))
            }
            guard let current = document?.root.node(at: path)?.doubleValue else { return .number(n) }
            return .number(try sum(current, n.double, at: path))
        }
        throw JSONEditError(.invalidServerValue(
            at: path, "unknown server value \(sv.serializedString()) (use \"timestamp\" or {\"increment\": n})"))
    }

    /// `a + b`, exact for integers up to 2^53.
    private static func sum(_ a: Double, _ b: Double, at path: Path) throws(JSONEditError) -> JSONNumber {
        let s = a + b
        guard s.isFinite else {
            throw JSONEditError(.invalidServerValue(at: path, "the increment overflows (\(a) + \(b))"))
        }
        // Integers up to 2^53 are spelled without exponent, as counters are.
        if s.rounded() == s && abs(s) <= 9_007_199_254_740_992 { return JSONNumber(Int(s)) }
        return JSONNumber(s)
    }
}
