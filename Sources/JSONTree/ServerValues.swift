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
    /// - Parameter index: finds the numbers incremented in `document`; one index for the
    ///   writes of an update keeps its increments linear in their number.
    /// - Complexity: O(size of the value), plus a lookup in `document` per increment.
    public func resolvingServerValues(
        at path: Path, in document: JSONDocument?, serverTime: Int64?, index: ChildIndex? = nil
    ) throws(JSONEditError) -> JSON {
        let found = document.map { Found(document: $0, index: index) }
        return try resolved(at: path, found, serverTime) ?? self
    }

    /// A document and the index its increments are found with.
    private struct Found {
        let document: JSONDocument
        let index: ChildIndex?

        func node(at path: Path) -> JSONNode? {
            index.map { $0.node(at: path, in: document.root) } ?? document.root.node(at: path)
        }
    }

    /// The resolved value, or nil when it holds no server value (so nothing is copied).
    private func resolved(at path: Path, _ document: Found?, _ serverTime: Int64?) throws(JSONEditError) -> JSON? {
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

    private static func serverValue(_ sv: JSON, at path: Path, _ document: Found?, _ serverTime: Int64?) throws(JSONEditError) -> JSON {
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
            guard let node = document?.node(at: path), let text = node.numberText, let current = node.doubleValue else {
                return .number(n)
            }
            // Integers are added exactly in their decimal spelling, whatever their size: a
            // counter past 2^53 still counts.
            if let exact = decimalIntegerSum(text, n.text), let number = JSONNumber(text: exact) { return .number(number) }
            return .number(try sum(current, n.double, spelled: text, plus: n.text, at: path))
        }
        throw JSONEditError(.invalidServerValue(
            at: path, "unknown server value \(sv.serializedString()) (use \"timestamp\" or {\"increment\": n})"))
    }

    /// `a + b` for numbers that are not both integers (fractions, exponents), in doubles.
    /// - Throws: when the sum overflows, or when it loses the increment entirely (a tiny
    ///   increment of a huge number): a write that changes nothing must not look successful.
    private static func sum(_ a: Double, _ b: Double, spelled aText: String, plus bText: String, at path: Path) throws(JSONEditError) -> JSONNumber {
        let s = a + b
        guard s.isFinite else {
            throw JSONEditError(.invalidServerValue(at: path, "the increment overflows (\(aText) + \(bText))"))
        }
        guard s != a || b == 0 else {
            throw JSONEditError(.invalidServerValue(
                at: path, "\(aText) + \(bText) cannot be computed exactly (the sum rounds back to \(aText)); nothing written"))
        }
        // Integers up to 2^53 are spelled without exponent, as counters are.
        if s.rounded() == s && abs(s) <= 9_007_199_254_740_992 { return JSONNumber(Int(s)) }
        return JSONNumber(s)
    }
}

/// The exact sum of two integers spelled in decimal (`-?[0-9]+`), of any size; nil when either
/// is not such an integer (a fraction or an exponent).
/// - Complexity: O(digits).
func decimalIntegerSum(_ a: String, _ b: String) -> String? {
    guard let x = DecimalInteger(a), let y = DecimalInteger(b) else { return nil }
    return x.adding(y).description
}

/// A signed integer as its decimal digits (least significant first), for exact increments.
private struct DecimalInteger: CustomStringConvertible {
    var negative: Bool
    var digits: [UInt8]

    init?(_ text: String) {
        var utf8 = Substring(text).utf8[...]
        negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        digits = utf8.reversed().map { $0 - 0x30 }
        normalize()
    }

    private init(negative: Bool, digits: [UInt8]) {
        self.negative = negative
        self.digits = digits
        normalize()
    }

    /// No leading zeros; zero is never negative.
    private mutating func normalize() {
        while digits.count > 1 && digits.last == 0 { digits.removeLast() }
        if digits == [0] { negative = false }
    }

    func adding(_ other: DecimalInteger) -> DecimalInteger {
        if negative == other.negative {
            return DecimalInteger(negative: negative, digits: DecimalInteger.add(digits, other.digits))
        }
        // Different signs: the larger magnitude minus the smaller, with the larger's sign.
        if DecimalInteger.compare(digits, other.digits) >= 0 {
            return DecimalInteger(negative: negative, digits: DecimalInteger.subtract(digits, other.digits))
        }
        return DecimalInteger(negative: other.negative, digits: DecimalInteger.subtract(other.digits, digits))
    }

    private static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](), carry: UInt8 = 0
        for i in 0..<max(a.count, b.count) {
            let d = (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) + carry
            out.append(d % 10)
            carry = d / 10
        }
        if carry > 0 { out.append(carry) }
        return out
    }

    /// `a - b` for `a >= b`.
    private static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](), borrow: Int = 0
        for i in 0..<a.count {
            var d = Int(a[i]) - (i < b.count ? Int(b[i]) : 0) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 10 }
            out.append(UInt8(d))
        }
        return out
    }

    /// Compares magnitudes (no leading zeros).
    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }

    var description: String {
        (negative ? "-" : "") + String(decoding: digits.reversed().map { $0 + 0x30 }, as: UTF8.self)
    }
}
