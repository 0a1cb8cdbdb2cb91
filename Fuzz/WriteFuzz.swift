// libFuzzer entry over the write path. Built by scripts/fuzz.sh together with Sources/JSONTree.
//
// The input seeds a generator of a random tree (objects of numbers, strings, booleans; some
// keys the database forbids, as a file may hold them), written in a random style, and of one
// random edit: several writes (set, remove, nested values, server values: increments of
// integers past 2^53, timestamps). The edited document must equal what a plain model of the
// write rules gives on the parsed tree — or both must refuse, for the same kind of reason —
// and the file's bytes outside the edit never matter to the model, only its value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWrites(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let tree = input.tree(depth: 0)
    let text = tree.serialized(input.pick(2) == 0 ? .compact : .pretty)
    guard let document = try? JSONDocument(parsing: text) else { fatalError("the generator wrote invalid JSON") }
    var writes = [JSONWrite]()
    for _ in 0...input.pick(3) { writes.append(JSONWrite(Path(keys: input.path()), input.value(depth: 1))) }
    let serverTime: Int64 = 1_700_000_000_000
    let expected: Result<JSON, Refusal>
    do { expected = .success(try WriteModel.apply(writes, to: document.root.json, serverTime: serverTime)) } catch { expected = .failure(error) }
    let actual: Result<JSON, Refusal>
    do {
        let edited = try document.applying(writes, serverTime: serverTime)
        guard let again = try? JSONDocument(parsing: edited.bytes), again.root.json == edited.root.json else {
            fatalError("the edited bytes do not parse to the edited document")
        }
        actual = .success(edited.root.json)
    } catch {
        actual = .failure(Refusal(error.reason))
    }
    switch (expected, actual) {
    case (.success(let a), .success(let b)) where exactlyEqual(a, b): break
    case (.failure(let a), .failure(let b)) where a == b: break
    default: fatalError("writes \(writes) to \(String(decoding: text, as: UTF8.self)): model \(expected), editor \(actual)")
    }
    return 0
}

/// Values equal with numbers compared by their exact integer spelling where they are integers
/// (JSON's `==` compares doubles, which cannot tell 2^53 from 2^53 + 1).
private func exactlyEqual(_ a: JSON, _ b: JSON) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)):
        if let i = Int(x.text), let j = Int(y.text) { return i == j }
        return x == y
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.members.allSatisfy { m in y[m.key].map { exactlyEqual(m.value, $0) } ?? false }
    default:
        return a == b
    }
}

/// Why a write was refused, as coarse as the model can tell.
enum Refusal: Error, Equatable {
    case forbiddenKey, overlapping, notAContainer, serverValue, other

    init(_ reason: JSONEditError.Reason) {
        switch reason {
        case .forbiddenKey: self = .forbiddenKey
        case .overlapping: self = .overlapping
        case .notAContainer: self = .notAContainer
        case .invalidServerValue: self = .serverValue
        default: self = .other
        }
    }
}

/// The write rules on plain values (objects only), written apart from the editor.
enum WriteModel {
    static func forbidden(_ key: String) -> Bool {
        key.isEmpty || key.utf8.count > 768 || key.unicodeScalars.contains { ".$#[]/".unicodeScalars.contains($0) || $0.value < 32 || $0.value == 127 }
    }

    static func apply(_ writes: [JSONWrite], to root: JSON, serverTime: Int64) throws(Refusal) -> JSON {
        var resolved = [(keys: [String], value: JSON)]()
        for w in writes {
            let value = try resolve(w.value, at: w.path.keys, in: root, serverTime: serverTime)
            if (!value.isNull && w.path.keys.contains(where: forbidden)) || hasForbidden(value) { throw .forbiddenKey }
            resolved.append((w.path.keys, value))
        }
        for (i, a) in resolved.enumerated() {
            for b in resolved[(i + 1)...] where a.keys.starts(with: b.keys, by: same) || b.keys.starts(with: a.keys, by: same) {
                throw .overlapping
            }
        }
        var tree = root
        for w in resolved { try set(&tree, w.keys[...], clean(w.value)) }
        for w in resolved { prune(&tree, w.keys[...]) }
        return tree.isNull ? [:] : tree
    }

    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    static func hasForbidden(_ v: JSON) -> Bool {
        guard case .object(let o) = v else { return false }
        return o.members.contains { forbidden($0.key) || hasForbidden($0.value) }
    }

    static func resolve(_ v: JSON, at keys: [String], in root: JSON, serverTime: Int64) throws(Refusal) -> JSON {
        guard case .object(let o) = v else { return v }
        if let sv = o[".sv"] {
            if case .string("timestamp") = sv { return .number(JSONNumber(Int(serverTime))) }
            guard case .object(let op) = sv, case .number(let n)? = op["increment"] else { throw .serverValue }
            guard case .number(let current)? = lookup(root, keys[...]) else { return .number(n) }
            if let a = Int(current.text), let b = Int(n.text) {
                let (sum, overflow) = a.addingReportingOverflow(b)
                if !overflow { return .number(JSONNumber(sum)) }
            }
            let sum = current.double + n.double
            if sum == current.double && n.double != 0 { throw .serverValue }
            return .number(JSONNumber(sum))
        }
        var members = [(key: String, value: JSON)]()
        for m in o.members { members.append((m.key, try resolve(m.value, at: keys + [m.key], in: root, serverTime: serverTime))) }
        return .object(JSONObject(members))
    }

    static func lookup(_ v: JSON, _ keys: ArraySlice<String>) -> JSON? {
        guard let key = keys.first else { return v }
        guard case .object(let o) = v, let child = o[key] else { return nil }
        return lookup(child, keys.dropFirst())
    }

    /// Nulls and empty objects dropped (nil when nothing is left).
    static func clean(_ v: JSON) -> JSON? {
        switch v {
        case .null: return nil
        case .object(let o):
            let members = o.members.compactMap { m in clean(m.value).map { (key: m.key, value: $0) } }
            return members.isEmpty ? nil : .object(JSONObject(members))
        default: return v
        }
    }

    static func set(_ node: inout JSON, _ keys: ArraySlice<String>, _ value: JSON?) throws(Refusal) {
        guard let key = keys.first else {
            node = value ?? .null
            return
        }
        var object: JSONObject
        switch node {
        case .object(let o): object = o
        case .null: object = JSONObject()
        default:
            if value == nil { return }  // nothing to remove below a leaf
            throw .notAContainer
        }
        var child = object[key] ?? .null
        try set(&child, keys.dropFirst(), value)
        object[key] = child.isNull ? Optional<JSON>.none : child
        node = .object(object)
    }

    /// Objects left empty on a written path go, up to (not including) the root.
    static func prune(_ node: inout JSON, _ keys: ArraySlice<String>) {
        guard let key = keys.first, case .object(var object) = node, var child = object[key] else { return }
        prune(&child, keys.dropFirst())
        if case .object(let o) = child, o.count == 0 { object[key] = Optional<JSON>.none } else { object[key] = child }
        node = .object(object)
    }
}

/// Choices drawn from the fuzzer's bytes (zeros once they run out).
struct FuzzInput {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func pick(_ n: Int) -> Int {
        defer { at += 1 }
        return at < bytes.count ? Int(bytes[at]) % n : 0
    }

    static let keys = ["a", "b", "c", "1", "007", "é", "e\u{301}", "a.b", "$x", "", "k/1", "\u{1B}", String(repeating: "z", count: 769)]
    static let numbers = ["0", "1", "-1", "9007199254740993", "-9007199254740993", "123456789012345678", "1.5", "1e300", "2.5e-3"]

    mutating func key(forbidden: Bool) -> String { FuzzInput.keys[pick(forbidden ? FuzzInput.keys.count : 7)] }

    mutating func number() -> JSON { .number(JSONNumber(text: FuzzInput.numbers[pick(FuzzInput.numbers.count)])!) }

    /// A tree for the file: no nulls and no empty objects (the model's pruning assumes so).
    mutating func tree(depth: Int) -> JSON {
        let n = 1 + pick(4)
        var members = [(key: String, value: JSON)]()
        for _ in 0..<n {
            let value: JSON
            switch depth < 3 ? pick(5) : pick(3) {
            case 0: value = number()
            case 1: value = .string("s\(pick(10))")
            case 2: value = .bool(pick(2) == 0)
            default: value = tree(depth: depth + 1)
            }
            members.append((key(forbidden: pick(8) == 0), value))
        }
        return .object(JSONObject(members))
    }

    mutating func path() -> [String] { (0..<(1 + pick(3))).map { _ in key(forbidden: pick(10) == 0) } }

    /// A written value: scalars, nulls, objects (maybe empty or holding nulls), server values.
    mutating func value(depth: Int) -> JSON {
        switch depth < 3 ? pick(9) : pick(5) {
        case 0: return .null
        case 1: return number()
        case 2: return .string("w\(pick(10))")
        case 3: return [".sv": ["increment": number()]]
        case 4: return [".sv": "timestamp"]
        default:
            let members = (0..<pick(3)).map { _ in (key: key(forbidden: pick(10) == 0), value: value(depth: depth + 1)) }
            return .object(JSONObject(members))
        }
    }
}
