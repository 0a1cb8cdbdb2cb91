// The functions of the subset, with jq 1.6's meaning and errors.

extension Reader {
    /// The function's value; nil only from a `select` that fails.
    func call(_ builtin: Builtin, _ input: Value, _ arguments: [Value]) throws(Failure) -> Value? {
        switch builtin {
        case .length:
            switch rank(input) {
            case .null: return .number(0)
            case .false, .true: throw Failure("\(describe(input)) has no length")
            case .number: return .number(abs(number(input)))
            case .string: return .number(Double(withBytes(input) { $0.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 } }))
            case .array: return .number(Double(elements(input).count))
            case .object: return .number(Double(members(input).count))
            }
        case .type:
            return .string(Array(rank(input).typeName.utf8))
        case .not:
            return .bool(!isTruthy(input))
        case .ascii_downcase, .ascii_upcase:
            guard rank(input) == .string else {
                throw Failure("\(describe(input)) cannot be \(builtin == .ascii_downcase ? "ascii_downcased" : "ascii_upcased")")
            }
            let (from, shift): (ClosedRange<UInt8>, Int) = builtin == .ascii_downcase ? (65...90, 32) : (97...122, -32)
            return .string(bytes(input).map { from.contains($0) ? UInt8(Int($0) + shift) : $0 })
        case .has:
            let key = arguments[0]
            switch (rank(input), rank(key)) {
            case (.null, _): return .bool(false)
            case (.object, .string):
                let name = bytes(key)
                if case .node(let i) = input {
                    return .bool(name.withUnsafeBufferPointer { tape.member(of: i, named: $0) } != nil)
                }
                return .bool(members(input).contains { $0.key == name })
            case (.array, .number):
                let n = clamped(number(key))
                return .bool(n >= 0 && n < elements(input).count)
            default:
                throw Failure("Cannot check whether \(rank(input).typeName) has a \(rank(key).typeName) key")
            }
        case .startswith, .endswith:
            let other = arguments[0]
            guard rank(input) == .string, rank(other) == .string else {
                throw Failure("\(builtin.rawValue)() requires string inputs")
            }
            return .bool(withBytes(input) { s in withBytes(other) { p in
                guard p.count <= s.count else { return false }
                return builtin == .startswith ? s.prefix(p.count).elementsEqual(p) : s.suffix(p.count).elementsEqual(p)
            } })
        case .contains:
            let other = arguments[0]
            guard rank(input) == rank(other) else {
                throw Failure("\(describe(input)) and \(describe(other)) cannot have their containment checked")
            }
            return .bool(contains(input, other))
        case .select:
            return isTruthy(arguments[0]) ? input : nil
        }
    }

    /// jq's containment: substrings, every element of `b` in some element of `a`, every member
    /// of `b` contained in `a`'s; other values by equality. Kinds must agree (true ≠ false).
    func contains(_ a: Value, _ b: Value) -> Bool {
        guard rank(a) == rank(b) else { return false }
        switch rank(a) {
        case .string:
            // jq 1.6 compares as C strings: the text up to a first NUL.
            let s = bytes(a).prefix { $0 != 0 }, p = bytes(b).prefix { $0 != 0 }
            if p.isEmpty { return true }
            guard p.count <= s.count else { return false }
            return (0...(s.count - p.count)).contains { s.dropFirst($0).prefix(p.count).elementsEqual(p) }
        case .array:
            let all = elements(a)
            return elements(b).allSatisfy { x in all.contains { contains($0, x) } }
        case .object:
            let all = members(a)
            return members(b).allSatisfy { m in
                guard let v = all.last(where: { $0.key == m.key })?.value else { return false }
                return contains(v, m.value)
            }
        default:
            return compare(a, b) == 0
        }
    }
}
