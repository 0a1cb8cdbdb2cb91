// A writer's parse keeps only the nodes on the way to the paths it writes (and under them): it
// must accept and refuse exactly what a whole parse does, and every edit made from it must be
// byte for byte the edit made from a whole parse.
@testable import JSONTree
import Testing
import TestSupport

@Suite struct PrunedParseTests {
    /// The deepest path at or above every write's.
    static func ancestor(_ writes: [JSONWrite]) -> Path {
        guard var keys = writes.first?.path.keys else { return .root }
        for w in writes.dropFirst() { keys = Array(zip(keys, w.path.keys).prefix { $0.0.utf8.elementsEqual($0.1.utf8) }.map(\.0)) }
        return keys.reduce(Path.root) { $0.child($1) }
    }

    @Test func editsFromAPrunedParseAreTheEditsFromAWholeOne() throws {
        var pruned = 0
        for seed in 1...UInt64(1500) {
            var rng = SplitMix64(seed: seed)
            let tree = randomTree(&rng, depth: 0, rootKind: rng.next(5) == 0 ? .array : .object)
            let text = StyledWriter.random(&rng).write(tree)
            let whole = try JSONDocument(parsing: text)
            let writes = randomWrites(&rng, tree)
            let kept = Self.ancestor(writes)
            let part = try JSONDocument(parsing: DocumentBytes(text), keeping: kept)
            if part.nodeCount < whole.nodeCount { pruned += 1 }
            // The kept node is the whole parse's, and so is every container on the way to it.
            #expect(part.root.node(at: kept)?.json == whole.root.node(at: kept)?.json, "seed \(seed) at \(kept)")
            var way = Path.root
            for key in kept.keys {
                #expect(part.root.node(at: way)?.members.map(\.key.stringValue) == whole.root.node(at: way)?.members.map(\.key.stringValue)
                        || part.root.node(at: way)?.kind == .array, "seed \(seed) at \(way)")
                way = way.child(key)
            }
            let fromWhole = Result { () throws(JSONEditError) in try whole.applying(writes).bytes.array }
            let fromPart = Result { () throws(JSONEditError) in try part.applying(writes).bytes.array }
            switch (fromWhole, fromPart) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "seed \(seed): \(writes)\n\(String(decoding: text, as: UTF8.self))")
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "seed \(seed)")
            default:
                Issue.record("seed \(seed): \(fromWhole) from a whole parse, \(fromPart) from a pruned one")
            }
        }
        // Writes to several places often share only the root, which keeps everything.
        #expect(pruned > 200, "only \(pruned) parses were pruned")
    }

    @Test func aPrunedParseRefusesWhatAWholeParseRefusesWithTheSameError() throws {
        for seed in 1...UInt64(1500) {
            var rng = SplitMix64(seed: seed)
            let tree = randomTree(&rng, depth: 0, rootKind: .object)
            var text = StyledWriter.random(&rng).write(tree)
            // One byte changed, inserted or removed: often invalid, sometimes deep in a pruned part.
            let at = rng.int(0..<text.count)
            switch rng.int(0..<3) {
            case 0: text[at] = rng.pick(Array("{}[]\",:0-e.tfn \\\u{1}".utf8))
            case 1: text.insert(rng.pick(Array("{}[]\",:0e\\".utf8)), at: at)
            default: text.remove(at: at)
            }
            var keys: [String] = []
            if case .object(let members) = tree { keys = members.keys }
            let kept = keys.isEmpty ? Path.root : Path.root.child(rng.pick(keys))
            let whole = Result { () throws(JSONParseError) in try JSONDocument(parsing: text) }
            let part = Result { () throws(JSONParseError) in try JSONDocument(parsing: DocumentBytes(text), keeping: kept) }
            switch (whole, part) {
            case (.success, .success): break
            case (.failure(let a), .failure(let b)):
                #expect(a.offset == b.offset && a.message == b.message, "seed \(seed): \(a) / \(b)")
            default:
                Issue.record("seed \(seed): \(whole) whole, \(part) pruned")
            }
        }
    }
}
