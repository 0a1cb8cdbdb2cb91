// Evaluating `Syntax` on one input, with jq's meaning for each form.
import JSONTree

/// An error while evaluating, as jq raises one (`Cannot index number with "a"`).
struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension Reader {
    /// The value of `e` for `input`: nil when it has none (`.a?` on a number, `select` that
    /// fails). Operands are evaluated right first, as jq does, which decides which of two errors
    /// (or an error and no value) wins.
    func eval(_ e: Syntax, _ input: Value) throws(Failure) -> Value? {
        switch e {
        case .identity:
            return input
        case .literal(let v):
            return v
        case .field(let base, let name, let optional):
            guard let b = try eval(base, input) else { return nil }
            if optional { return try? field(b, name) }
            return try field(b, name)
        case .index(let base, let index, let optional):
            guard let i = try eval(index, input), let b = try eval(base, input) else { return nil }
            if optional { return try? self.index(b, i) }
            return try self.index(b, i)
        case .optional(let body):
            do { return try eval(body, input) } catch { return nil }
        case .pipe(let a, let b):
            guard let x = try eval(a, input) else { return nil }
            return try eval(b, x)
        case .binary(let op, let a, let b):
            guard let y = try eval(b, input), let x = try eval(a, input) else { return nil }
            return try apply(op, x, y)
        case .and(let a, let b):
            guard let x = try eval(a, input) else { return nil }
            guard isTruthy(x) else { return .bool(false) }
            return try eval(b, input).map { .bool(isTruthy($0)) }
        case .or(let a, let b):
            guard let x = try eval(a, input) else { return nil }
            if isTruthy(x) { return .bool(true) }
            return try eval(b, input).map { .bool(isTruthy($0)) }
        case .alternative(let a, let b):
            // An error on the left is an error, as in jq 1.6 (Debian's; jq 1.7 passes over it).
            if let x = try eval(a, input), isTruthy(x) { return x }
            return try eval(b, input)
        case .negate(let a):
            guard let x = try eval(a, input) else { return nil }
            guard rank(x) == .number else { throw Failure("\(describe(x)) cannot be negated") }
            return .number(-number(x))
        case .array(let elements):
            var out = [Value]()
            for element in elements {
                if let v = try eval(element, input) { out.append(v) }
            }
            return .array(out)
        case .call(let builtin, let arguments):
            var values = [Value]()
            // The last argument first, as jq evaluates a function's arguments.
            for argument in arguments.reversed() {
                guard let v = try eval(argument, input) else { return nil }
                values.insert(v, at: 0)
            }
            return try call(builtin, input, values)
        case .test(let pattern):
            guard rank(input) == .string else { throw Failure("\(describe(input)) cannot be matched, as it is not a string") }
            return .bool(withBytes(input) { pattern.matches($0) })
        }
    }

    // MARK: Paths

    func field(_ v: Value, _ name: [UInt8]) throws(Failure) -> Value {
        switch rank(v) {
        case .null: return .null
        case .object:
            if case .node(let i) = v {
                return name.withUnsafeBufferPointer { tape.member(of: i, named: $0) }.map(Value.node) ?? .null
            }
            return members(v).last { $0.key == name }?.value ?? .null
        default:
            throw Failure("Cannot index \(rank(v).typeName) with \(JSON.string(String(decoding: name, as: UTF8.self)).serializedString())")
        }
    }

    func index(_ v: Value, _ i: Value) throws(Failure) -> Value {
        switch (rank(v), rank(i)) {
        case (.object, .string), (.null, .string):
            return try field(v, bytes(i))
        case (.null, .number), (.null, .object):
            return .null
        case (.array, .number):
            // jq: a fraction indexes nothing; a negative index counts from the end.
            let d = number(i)
            guard d == d.rounded(.towardZero), abs(d) < 2_147_483_648 else { return .null }
            let all = elements(v)
            var n = Int(d)
            if n < 0 { n += all.count }
            return all.indices.contains(n) ? all[n] : .null
        default:
            throw Failure("Cannot index \(rank(v).typeName) with \(rank(i).typeName)")
        }
    }

    // MARK: Operators

    func apply(_ op: BinaryOperator, _ a: Value, _ b: Value) throws(Failure) -> Value {
        switch op {
        case .equal: return .bool(compare(a, b) == 0)
        case .notEqual: return .bool(compare(a, b) != 0)
        case .less: return .bool(compare(a, b) < 0)
        case .lessOrEqual: return .bool(compare(a, b) <= 0)
        case .greater: return .bool(compare(a, b) > 0)
        case .greaterOrEqual: return .bool(compare(a, b) >= 0)
        case .plus: return try plus(a, b)
        case .minus: return try minus(a, b)
        case .times: return try times(a, b)
        case .divide: return try divide(a, b)
        case .modulo: return try modulo(a, b)
        }
    }

    private func plus(_ a: Value, _ b: Value) throws(Failure) -> Value {
        switch (rank(a), rank(b)) {
        case (.null, _): return b
        case (_, .null): return a
        case (.number, .number): return .number(number(a) + number(b))
        case (.string, .string): return .string(bytes(a) + bytes(b))
        case (.array, .array): return .array(elements(a) + elements(b))
        case (.object, .object): return .object(merged(members(a), members(b), deep: false))
        default: throw Failure("\(describe(a)) and \(describe(b)) cannot be added")
        }
    }

    private func minus(_ a: Value, _ b: Value) throws(Failure) -> Value {
        switch (rank(a), rank(b)) {
        case (.number, .number): return .number(number(a) - number(b))
        case (.array, .array):
            let drop = elements(b)
            return .array(elements(a).filter { x in !drop.contains { compare(x, $0) == 0 } })
        default: throw Failure("\(describe(a)) and \(describe(b)) cannot be subtracted")
        }
    }

    private func times(_ a: Value, _ b: Value) throws(Failure) -> Value {
        switch (rank(a), rank(b)) {
        case (.number, .number): return .number(number(a) * number(b))
        case (.string, .number), (.number, .string):
            // jq 1.6: the string repeated ⌊n - 1⌋ + 1 times (once for 0 < n < 1), null for n ≤ 0.
            let (s, n) = rank(a) == .string ? (bytes(a), number(b)) : (bytes(b), number(a))
            let extra = clamped(n - 1)
            guard extra >= 0 else { return .null }
            guard extra < Int64(1 << 24) / Int64(max(1, s.count)) else { throw Failure("\(describe(a)) * \(describe(b)) is too long") }
            return .string(Array([[UInt8]](repeating: s, count: Int(extra) + 1).joined()))
        case (.object, .object): return .object(merged(members(a), members(b), deep: true))
        default: throw Failure("\(describe(a)) and \(describe(b)) cannot be multiplied")
        }
    }

    private func divide(_ a: Value, _ b: Value) throws(Failure) -> Value {
        switch (rank(a), rank(b)) {
        case (.number, .number):
            guard number(b) != 0 else { throw Failure("\(describe(a)) and \(describe(b)) cannot be divided because the divisor is zero") }
            return .number(number(a) / number(b))
        case (.string, .string):
            return .array(split(bytes(a), by: bytes(b)).map(Value.string))
        default: throw Failure("\(describe(a)) and \(describe(b)) cannot be divided")
        }
    }

    private func modulo(_ a: Value, _ b: Value) throws(Failure) -> Value {
        guard rank(a) == .number, rank(b) == .number else { throw Failure("\(describe(a)) and \(describe(b)) cannot be divided") }
        // jq: both truncated to integers first.
        let x = clamped(number(a)), y = clamped(number(b))
        guard y != 0 else { throw Failure("\(describe(a)) and \(describe(b)) cannot be divided because the divisor is zero") }
        return .number(Double(x.remainderReportingOverflow(dividingBy: y).partialValue))
    }

    /// Object members with `b`'s added over `a`'s; `deep`: objects in both merged in turn.
    private func merged(_ a: [(key: [UInt8], value: Value)], _ b: [(key: [UInt8], value: Value)], deep: Bool) -> [(key: [UInt8], value: Value)] {
        var out = [(key: [UInt8], value: Value)]()
        for m in a {
            if let i = out.firstIndex(where: { $0.key == m.key }) { out[i].value = m.value } else { out.append(m) }
        }
        for m in b {
            guard let i = out.firstIndex(where: { $0.key == m.key }) else {
                out.append(m)
                continue
            }
            if deep && rank(out[i].value) == .object && rank(m.value) == .object {
                out[i].value = .object(merged(members(out[i].value), members(m.value), deep: true))
            } else {
                out[i].value = m.value
            }
        }
        return out
    }
}

/// A double as jq casts it to an integer (toward zero), saturating instead of undefined.
func clamped(_ d: Double) -> Int64 {
    if d.isNaN { return 0 }
    if d >= 9.2e18 { return .max }
    if d <= -9.2e18 { return .min }
    return Int64(d)
}

/// `a` split at each occurrence of `separator` (an empty separator: no split).
func split(_ a: [UInt8], by separator: [UInt8]) -> [[UInt8]] {
    if a.isEmpty { return [] }
    guard !separator.isEmpty else { return [a] }
    var parts = [[UInt8]]()
    var start = 0, i = 0
    while i + separator.count <= a.count {
        if a[i..<(i + separator.count)].elementsEqual(separator) {
            parts.append(Array(a[start..<i]))
            i += separator.count
            start = i
        } else {
            i += 1
        }
    }
    parts.append(Array(a[start...]))
    return parts
}
