import Testing
@testable import JSONTree
import TestSupport

// Random documents in random styles, random writes: the edited document parses, equals what
// an independent model of the write rules gives, and every byte outside the edited values
// is unchanged.

@Suite struct EditPropertyTests {
    @Test func randomEditsMatchTheModelAndKeepOtherBytes() throws {
        let cases = 1500
        for seed in 1...UInt64(cases) {
            var rng = SplitMix64(seed: seed)
            let tree = randomTree(&rng, depth: 0, rootKind: rng.next(5) == 0 ? .array : .object)
            let text = StyledWriter.random(&rng).write(tree)
            let doc = try #require(try? JSONDocument(parsing: text), "seed \(seed): generator wrote invalid JSON")
            let writes = randomWrites(&rng, tree)
            try check(doc, tree, writes, seed: seed, text: text)
        }
    }

    private func check(_ doc: JSONDocument, _ tree: JSON, _ writes: [JSONWrite], seed: UInt64, text: [UInt8]) throws {
        let context = ("seed \(seed)\n\(String(decoding: text, as: UTF8.self))\nwrites: \(writes)")
        let expected: JSON
        do {
            expected = try Model.apply(writes, to: tree)
        } catch let modelError as ModelError {
            // The editor must refuse too, for the same reason.
            do {
                _ = try doc.applying(writes)
                Issue.record(Comment(rawValue: "expected an error (\(modelError)), got success" + "\n" + context))
            } catch {
                #expect(modelError.matches(error.reason), Comment(rawValue: "model: \(modelError), editor: \(error)" + "\n" + context))
            }
            return
        }
        let result: JSONDocument
        do {
            result = try doc.applying(writes)
        } catch {
            Issue.record(Comment(rawValue: "unexpected error \(error)" + "\n" + context))
            return
        }
        #expect(result.root.json == expected, Comment(rawValue: "got \(String(decoding: result.bytes, as: UTF8.self))" + "\n" + context))
        guard result.root.json == expected else { return }
        checkUntouchedBytes(doc, result, expected, writes, context)
    }

    /// Bytes outside the anchors (the deepest nodes on the written paths that exist before
    /// and after) are identical, and so is every anchor member not on a written path.
    private func checkUntouchedBytes(_ old: JSONDocument, _ new: JSONDocument, _ expected: JSON, _ writes: [JSONWrite], _ context: String) {
        var anchors = [Path]()
        for w in writes {
            var anchor = Path.root
            for key in w.path.keys {
                let next = anchor.child(key)
                guard old.root.node(at: next) != nil, new.root.node(at: next) != nil else { break }
                anchor = next
            }
            anchors.append(anchor)
        }
        // Keep only outermost anchors.
        let outer = anchors.filter { a in !anchors.contains { b in b.keys.count < a.keys.count && a.keys.starts(with: b.keys, by: codeUnitsEqual) } }
        var unique = [Path]()
        for a in outer where !unique.contains(a) { unique.append(a) }
        let anchored = unique.map { (path: $0, old: old.root.node(at: $0)!, new: new.root.node(at: $0)!) }
            .sorted { $0.old.byteRange.lowerBound < $1.old.byteRange.lowerBound }
        var oldAt = 0, newAt = 0
        for a in anchored {
            #expect(old.bytes[oldAt..<a.old.byteRange.lowerBound].elementsEqual(new.bytes[newAt..<a.new.byteRange.lowerBound]),
                    Comment(rawValue: "bytes before \(a.path) changed\n" + context))
            oldAt = a.old.byteRange.upperBound
            newAt = a.new.byteRange.upperBound
        }
        #expect(old.bytes[oldAt...].elementsEqual(new.bytes[newAt...]), Comment(rawValue: "bytes after the edited values changed" + "\n" + context))
        // Inside each anchor, children on no written path keep their bytes.
        for a in anchored where a.old.kind == a.new.kind && a.old.isContainer && !writes.contains(where: { $0.path == a.path }) {
            let depth = a.path.keys.count
            let writtenKeys = writes.compactMap { w -> String? in
                guard w.path.keys.count > depth, w.path.keys.starts(with: a.path.keys, by: codeUnitsEqual) else { return nil }
                return w.path.keys[depth]
            }
            let keys = a.old.kind == .object
                ? a.old.members.map { $0.key.stringValue! }
                : a.old.elements.enumerated().map { String($0.offset) }
            for key in keys where !writtenKeys.contains(where: { codeUnitsEqual($0, key) }) {
                guard let before = a.old.child(key), let after = a.new.child(key) else { continue }
                #expect(before.rawBytes.elementsEqual(after.rawBytes), Comment(rawValue: "untouched child \(key) of \(a.path) changed" + "\n" + context))
            }
        }
    }
}

// MARK: - The model: the write rules on plain values

enum ModelError: Error {
    case notAnIndex, tooFar, overlapping, forbiddenKey

    func matches(_ reason: JSONEditError.Reason) -> Bool {
        switch (self, reason) {
        case (.notAnIndex, .notAnIndex), (.tooFar, .indexTooFar), (.overlapping, .overlapping),
            (.forbiddenKey, .forbiddenKey): true
        default: false
        }
    }
}

/// The write rules on plain values, as a second, simpler implementation: the writes of one
/// update are applied together, as a tree of keys.
enum Model {
    indirect enum Tree {
        case set(JSON?)
        case children([(key: String, tree: Tree)])

        var writes: Bool {
            switch self {
            case .set(let v): v != nil
            case .children(let c): c.contains { $0.tree.writes }
            }
        }

        mutating func insert(_ keys: ArraySlice<String>, _ value: JSON?) {
            guard let key = keys.first else {
                self = .set(value)
                return
            }
            guard case .children(var list) = self else { return }
            if let i = list.firstIndex(where: { codeUnitsEqual($0.key, key) }) {
                list[i].tree.insert(keys.dropFirst(), value)
            } else {
                var child = Tree.children([])
                child.insert(keys.dropFirst(), value)
                list.append((key, child))
            }
            self = .children(list)
        }
    }

    /// The database's key rule: not empty, at most 768 UTF-8 bytes, none of `. $ # [ ] /`
    /// or ASCII controls — except the metadata keys `.priority` and `.value`.
    static func forbidden(_ key: String) -> Bool {
        if key == ".priority" || key == ".value" { return false }
        return key.isEmpty || key.utf8.count > 768 || key.unicodeScalars.contains { ".$#[]/".unicodeScalars.contains($0) || $0.value < 32 || $0.value == 127 }
    }

    static func hasForbiddenKey(_ value: JSON) -> Bool {
        switch value {
        case .object(let o): o.members.contains { forbidden($0.key) || hasForbiddenKey($0.value) }
        case .array(let a): a.contains(where: hasForbiddenKey)
        default: false
        }
    }

    static func apply(_ writes: [JSONWrite], to tree: JSON) throws -> JSON {
        // Checked first, for every write: keys of a path that writes something, and of values.
        for w in writes where (!w.value.isNull && w.path.keys.contains(where: forbidden)) || hasForbiddenKey(w.value) {
            throw ModelError.forbiddenKey
        }
        for (i, a) in writes.enumerated() {
            for b in writes[(i + 1)...] where a.path.keys.starts(with: b.path.keys, by: codeUnitsEqual) || b.path.keys.starts(with: a.path.keys, by: codeUnitsEqual) {
                throw ModelError.overlapping
            }
        }
        var edits = Tree.children([])
        for w in writes { edits.insert(w.path.keys[...], clean(w.value)) }
        if let root = try apply(edits, to: tree) { return root }
        if case .set = edits { return [:] }
        return tree.kind == .array ? [] : [:]
    }

    /// null → absent; objects lose absent members; arrays keep placeholders but no trailing
    /// nulls; empty → absent.
    static func clean(_ v: JSON) -> JSON? {
        switch v {
        case .null: return nil
        case .object(let o):
            let members = o.members.compactMap { m in clean(m.value).map { (key: m.key, value: $0) } }
            return members.isEmpty ? nil : .object(JSONObject(members))
        case .array(let a):
            var e = a.map { clean($0) ?? .null }
            while e.last == .null { e.removeLast() }
            return e.isEmpty ? nil : .array(e)
        default: return v
        }
    }

    static func present(_ v: JSON?) -> JSON? {
        guard let v, !v.isNull else { return nil }
        return v
    }

    /// The new value of `node` (nil: missing), or nil when it goes.
    static func apply(_ tree: Tree, to node: JSON?) throws -> JSON? {
        guard case .children(let list) = tree else {
            if case .set(let v) = tree { return v }
            return nil
        }
        switch node {
        case nil, .null?:
            var members = [(key: String, value: JSON)]()
            for (key, sub) in list {
                if let v = try apply(sub, to: nil) { members.append((key, v)) }
            }
            return members.isEmpty ? node : .object(JSONObject(members))
        case .object(var o)?:
            var removed = false
            for (key, sub) in list {
                let exists = o[key] != nil
                let old = present(o[key])
                if let new = try apply(sub, to: old) {
                    o[key] = new
                } else if exists, old != nil || { if case .set = sub { true } else { false } }() {
                    o[key] = nil
                    removed = true
                }
            }
            return removed && o.members.allSatisfy({ $0.value.isNull }) ? nil : .object(o)
        case .array(var a)?:
            let count = a.count
            var removedLast = false, removed = false, added = false
            for (key, sub) in list {
                guard let index = arrayIndex(key) else {
                    if sub.writes { throw ModelError.notAnIndex }
                    continue
                }
                let old = index < a.count ? present(a[index]) : nil
                if let new = try apply(sub, to: old) {
                    if index >= a.count {
                        guard index - count <= maximumArrayPadding else { throw ModelError.tooFar }
                        a += Array(repeating: .null, count: index - a.count + 1)
                        added = true
                    }
                    a[index] = new
                } else if old != nil {
                    a[index] = .null
                    removed = true
                    if index == count - 1 { removedLast = true }
                }
            }
            if removed && !added && a.allSatisfy(\.isNull) { return nil }
            if removedLast && !added { while a.last == .null { a.removeLast() } }
            return .array(a)
        case let scalar?:
            // A leaf written below becomes an object of the written children.
            return tree.writes ? try apply(tree, to: nil) : scalar
        }
    }
}

// MARK: - Random documents and writes

let keyPool = ["a", "b", "c", "id", "name", "é", "e\u{301}", "k/1", "t~0", "0", "1", "2", "x y", "\"q\"", "🙂", ""]

func randomScalar(_ rng: inout SplitMix64) -> JSON {
    switch rng.next(6) {
    case 0: return .null
    case 1: return .bool(rng.next(2) == 0)
    case 2: return .number(JSONNumber(Int(rng.next(2000)) - 1000))
    case 3: return .number(JSONNumber(Double(rng.next(100_000)) / 64))
    case 4: return .string(["", "x", "héllo", "tab\there", "quote\"", "line\nbreak", "🙂"][Int(rng.next(7))])
    default: return .string(String(rng.next(1000)))
    }
}

func randomTree(_ rng: inout SplitMix64, depth: Int, rootKind: JSONKind? = nil) -> JSON {
    let kind = rootKind ?? (depth >= 3 || rng.next(3) == 0 ? .null : (rng.next(3) == 0 ? .array : .object))
    switch kind {
    case .object:
        var members = [(key: String, value: JSON)]()
        for _ in 0..<rng.next(depth == 0 ? 6 : 4) {
            members.append((keyPool[Int(rng.next(UInt64(keyPool.count)))], randomTree(&rng, depth: depth + 1)))
        }
        return .object(JSONObject(members))
    case .array:
        return .array((0..<rng.next(4)).map { _ in randomTree(&rng, depth: depth + 1) })
    default:
        return randomScalar(&rng)
    }
}

/// 1–3 writes at existing or new paths, with random values (a quarter are removals).
/// Paths of one update rarely overlap, and rarely go below a scalar (both are errors).
func randomWrites(_ rng: inout SplitMix64, _ tree: JSON) -> [JSONWrite] {
    var writes = [JSONWrite]()
    // Now and then many writes, so that several land in one object (its members are then
    // found by hashing their keys, not compared one by one).
    let count = rng.next(6) == 0 ? 5 + Int(rng.next(6)) : Int(rng.next(3))
    for _ in 0...count {
        for _ in 0..<4 {
            let path = randomPath(&rng, tree)
            let overlaps = writes.contains {
                $0.path.keys.starts(with: path.keys, by: codeUnitsEqual) || path.keys.starts(with: $0.path.keys, by: codeUnitsEqual)
            }
            if overlaps && rng.next(10) != 0 { continue }
            let value: JSON = rng.next(4) == 0 ? .null : randomTree(&rng, depth: 2 + Int(rng.next(2)))
            writes.append(JSONWrite(path, value))
            break
        }
    }
    return writes
}

func randomPath(_ rng: inout SplitMix64, _ tree: JSON) -> Path {
    var keys = [String]()
    var node: JSON? = tree
    // Walk down existing children for a while.
    while let n = node, rng.next(4) != 0 {
        let children: [String]
        switch n {
        case .object(let o): children = o.keys
        case .array(let a): children = a.indices.map(String.init)
        default: children = []
        }
        guard !children.isEmpty else { break }
        let key = children[Int(rng.next(UInt64(children.count)))]
        keys.append(key)
        node = n[key]
    }
    // Maybe go on into new keys (array indexes past the end, too).
    if let node, node.isScalar && !node.isNull && rng.next(8) != 0 { return Path(keys: keys) }
    let isArray = node?.arrayValue != nil
    for i in 0..<rng.next(3) {
        let index = (i == 0 && isArray) ? rng.next(8) != 0 : rng.next(3) == 0
        keys.append(index ? String(rng.next(6)) : keyPool[Int(rng.next(UInt64(keyPool.count)))])
    }
    return Path(keys: keys)
}

/// Writes a value in a random but consistent style per container.
struct StyledWriter {
    var newline: String
    var unit: String
    var colons: [String]
    var commas: [String]
    var trailingSpace: Bool
    var seed: UInt64

    static func random(_ rng: inout SplitMix64) -> StyledWriter {
        StyledWriter(
            newline: rng.next(4) == 0 ? "\r\n" : "\n",
            unit: ["  ", "    ", "\t", " "][Int(rng.next(4))],
            colons: [[":"], [": "], [" : "], [":", ": "]][Int(rng.next(4))],
            commas: [[","], [", "], [" ,"], [",", ", "]][Int(rng.next(4))],
            trailingSpace: rng.next(5) == 0,
            seed: rng.next(1 << 32))
    }

    func write(_ value: JSON) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var out = rng.next(5) == 0 ? " " : ""
        write(value, depth: 0, multiline: rng.next(3) != 0, &rng, &out)
        out += rng.next(2) == 0 ? newline : ""
        return Array(out.utf8)
    }

    private func write(_ value: JSON, depth: Int, multiline: Bool, _ rng: inout SplitMix64, _ out: inout String) {
        func pick(_ options: [String]) -> String { options[Int(rng.next(UInt64(options.count)))] }
        let indent = String(repeating: unit, count: depth)
        let inner = indent + unit
        switch value {
        case .object(let o) where o.count > 0:
            out += "{"
            for (i, m) in o.members.enumerated() {
                if i > 0 { out += multiline ? "," + (trailingSpace ? "  " : "") : pick(commas) }
                if multiline { out += newline + inner }
                out += String(decoding: JSON.string(m.key).serialized(), as: UTF8.self) + pick(colons)
                write(m.value, depth: depth + 1, multiline: multiline && rng.next(4) != 0, &rng, &out)
            }
            if multiline { out += newline + indent }
            out += "}"
        case .array(let a) where !a.isEmpty:
            out += "["
            for (i, e) in a.enumerated() {
                if i > 0 { out += multiline ? "," : pick(commas) }
                if multiline { out += newline + inner }
                write(e, depth: depth + 1, multiline: multiline && rng.next(4) != 0, &rng, &out)
            }
            if multiline { out += newline + indent }
            out += "]"
        case .object:
            out += pick(["{}", "{ }", "{" + newline + indent + "}"])
        case .array:
            out += pick(["[]", "[ ]"])
        case .number(let n) where n.double == n.double.rounded() && abs(n.double) < 1e6:
            // Other spellings of the same number, which must survive untouched.
            out += pick([n.text, n.text + ".0", n.text + "e0", n.text + "E+00"])
        case .string(let s) where s == "x":
            out += "\"\\u0078\""
        default:
            out += String(decoding: value.serialized(), as: UTF8.self)
        }
    }
}
