// A generated collection and random edits to it, written as real files.
import JSONTree
import LiveQuery
@testable import SyncedArray
import TestSupport

/// The children under `/items`, in file order, plus a counter that makes every write differ.
struct Model {
    var items: [(key: String, value: JSON)] = []
    var revision = 0
    private var fresh = 0

    /// Keys that stress key order and identity: integer keys, canonically equivalent strings
    /// ("é" precomposed and decomposed), astral characters, push-id-like keys.
    static let keyPool = [
        "a", "b", "c", "d", "m", "z", "A", "Z", "1", "2", "10", "007", "-5", "2147483648",
        "\u{E9}", "e\u{301}", "\u{1F600}", "\u{FF21}", "key9", "key10", "-Mx3", "_x",
    ]
    static let names = ["ann", "bob", "cy", "dee", "\u{E9}ve", "e\u{301}ve", "zed", ""]

    mutating func freshKey(_ rng: inout SplitMix64) -> String {
        let unused = Model.keyPool.filter { k in !items.contains { codeUnitsEqual($0.key, k) } }
        if !unused.isEmpty && rng.chance(0.8) { return rng.pick(unused) }
        fresh += 1
        return "k\(fresh)"
    }

    static func value(_ rng: inout SplitMix64) -> JSON {
        if rng.chance(0.12) {
            return rng.chance(0.5) ? .number(JSONNumber(rng.int(0..<100))) : .string(rng.pick(names))
        }
        var members: [(key: String, value: JSON)] = [("name", .string(rng.pick(names)))]
        if let score = score(&rng) { members.append(("score", score)) }
        if rng.chance(0.15) { members.append((".priority", .number(JSONNumber(rng.int(0..<4))))) }
        if rng.chance(0.3) { members.append(("tags", .array([.string("t"), .number(JSONNumber(rng.int(0..<3)))]))) }
        return .object(JSONObject(members))
    }

    static func score(_ rng: inout SplitMix64) -> JSON? {
        switch rng.int(0..<20) {
        case 0: nil
        case 1: .string("s\(rng.int(0..<3))")
        case 2: .bool(rng.chance(0.5))
        case 3: .number(JSONNumber(Double(rng.int(0..<100)) + 0.5))
        default: .number(JSONNumber(rng.int(0..<100)))
        }
    }

    static func withScore(_ value: JSON, _ score: JSON?) -> JSON {
        guard case .object(let o) = value else { return .object(JSONObject(score.map { [("score", $0)] } ?? [])) }
        var members = o.members.filter { !codeUnitsEqual($0.key, "score") }
        if let score { members.append(("score", score)) }
        return .object(JSONObject(members))
    }

    static func withName(_ value: JSON, _ name: String) -> JSON {
        guard case .object(let o) = value else { return value }
        return .object(JSONObject(o.members.map { codeUnitsEqual($0.key, "name") ? ($0.key, .string(name)) : $0 }))
    }

    /// One random edit; several may go into one write.
    mutating func edit(_ rng: inout SplitMix64) {
        let roll = rng.int(0..<100)
        if items.isEmpty || roll < 28 {
            let key = freshKey(&rng)
            items.insert((key, Model.value(&rng)), at: rng.int(0...items.count))
        } else if roll < 45 {
            items.remove(at: rng.int(0..<items.count))
        } else if roll < 72 {
            let i = rng.int(0..<items.count)
            items[i].value = Model.withScore(items[i].value, Model.score(&rng))
        } else if roll < 82 {
            let i = rng.int(0..<items.count)
            items[i].value = Model.withName(items[i].value, rng.pick(Model.names))
        } else if roll < 94 {
            // A key renamed: the same value under another key, at the same place.
            let i = rng.int(0..<items.count)
            items[i].key = freshKey(&rng)
        } else {
            items[rng.int(0..<items.count)].value = Model.value(&rng)
        }
    }

    /// The file: `{"rev": n, "items": {...}}`, compact or pretty.
    mutating func bytes(_ rng: inout SplitMix64) -> [UInt8] {
        revision += 1
        let root = JSON.object(JSONObject([("rev", .number(JSONNumber(revision))), ("items", .object(JSONObject(items)))]))
        return root.serialized(rng.chance(0.5) ? .compact : .pretty)
    }
}

/// What a typed array decodes each child into.
struct Item: Decodable, Equatable {
    var name: String
    var score: Double?
}
