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

    /// A container off the path is checked in a pass of its own (`jsonscan_skip_container`),
    /// which must refuse exactly what the parser refuses: values mutated with the bytes and
    /// pieces that strings, escapes, UTF-8 and numbers go wrong with, beside the path kept.
    @Test func aContainerOffThePathIsCheckedAsStrictlyAsAWholeParse() throws {
        let strings = ["\\", "u", "D", "8", "0", "C", "e", "E", "+", "-", ".", "\t", "\r", "\n", " ", "\"", ",", ":", "[", "]", "{", "}",
                       "\\uD800", "\\uDBFF\\uDC00", "\\uDC00", "\\uD83D\\uDE42", "\\uD83D\\u0041", "\\u12G4", "\\x",
                       "tru", "nul", "fals", "truex", "01", "1.", "-", "-0", "1e", "1e+", "0.5e-3", "\u{E9}", "\u{1F642}"]
        let bytes: [[UInt8]] = [0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x00, 0x1F, 0x7F].map { [$0] }
            + [[0xC0, 0x80], [0xC1, 0xBF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80]]
            + strings.map { Array($0.utf8) }
        var (valid, invalid) = (0, 0)
        for seed in 1...UInt64(3000) {
            var rng = SplitMix64(seed: seed)
            let value = StyledWriter.random(&rng).write(randomTree(&rng, depth: 0, rootKind: rng.next(2) == 0 ? .array : .object))
            var off = value
            for _ in 0..<rng.pick([0, 1, 1, 1, 2, 3]) {
                let at = rng.int(0...off.count)
                let piece = rng.pick(bytes)
                if rng.next(2) == 0 || at == off.count { off.insert(contentsOf: piece, at: at) } else { off[at] = piece[0] }
            }
            // The value off the path before or after the kept one, at the top or one level down.
            let pair = rng.next(2) == 0 ? Array(#""keep": 1, "off": "#.utf8) + off : Array(#""off": "#.utf8) + off + Array(#", "keep": 1"#.utf8)
            let nested = rng.next(2) == 0
            let text = nested ? Array(#"{"a": {"#.utf8) + pair + Array("}}".utf8) : Array("{".utf8) + pair + Array("}".utf8)
            let kept = nested ? Path(keys: ["a", "keep"]) : Path(keys: ["keep"])
            let whole = Result { () throws(JSONParseError) in try JSONDocument(parsing: text) }
            let part = Result { () throws(JSONParseError) in try JSONDocument(parsing: DocumentBytes(text), keeping: kept) }
            switch (whole, part) {
            case (.success(let a), .success(let b)):
                valid += 1
                #expect(b.root.node(at: kept)?.json == 1 && a.root.node(at: kept)?.json == 1, "seed \(seed)")
            case (.failure(let a), .failure(let b)):
                invalid += 1
                #expect(a == b, "seed \(seed): \(a) / \(b)")
            default:
                Issue.record("seed \(seed): \(whole) whole, \(part) pruned: \(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(valid > 400 && invalid > 1200, "\(valid) valid, \(invalid) invalid")
    }

    /// Containers off the path nested up to the depth limit, and one past it.
    @Test(arguments: [1, 2, 3]) func aContainerOffThePathMeetsTheDepthLimit(above: Int) throws {
        for depth in (maximumJSONDepth - 3)...(maximumJSONDepth + 1) {
            // The root, `above - 1` objects on the path, then the value off it.
            let open = String(repeating: #""a": {"#, count: above - 1)
            let off = String(repeating: "[", count: depth - above) + String(repeating: "]", count: depth - above)
            let text = Array(("{" + open + #""keep": 1, "off": "# + off + String(repeating: "}", count: above)).utf8)
            let kept = Path(keys: Array(repeating: "a", count: above - 1) + ["keep"])
            let whole = Result { () throws(JSONParseError) in try JSONDocument(parsing: text) }
            let part = Result { () throws(JSONParseError) in try JSONDocument(parsing: DocumentBytes(text), keeping: kept) }
            switch (whole, part) {
            case (.success, .success): #expect(depth <= maximumJSONDepth)
            case (.failure(let a), .failure(let b)): #expect(a == b && depth > maximumJSONDepth, "\(a) / \(b)")
            default: Issue.record("depth \(depth): \(whole) whole, \(part) pruned")
            }
        }
    }

    /// A write of one member of an object on the path edits it from what the parse found there
    /// (`PathMembers`), not from its members: the same bytes as from a whole parse, in the
    /// cases where the members around it decide (duplicates, shadowed and null members, the end).
    @Test(arguments: [
        (#"{"o": {"a": 1, "a": null, "k": 5}}"#, "/o/k", JSON.null),
        (#"{"o": {"a": 1, "a": 2, "k": 5}}"#, "/o/k", JSON.null),
        (#"{"o": {"a": 1, "k": 5, "k": 6}}"#, "/o/k", JSON.null),
        (#"{"o": {"k": 5, "a": 1, "k": 6}}"#, "/o/k", JSON.null),
        (#"{"o": {"k": 5, "k": 6, "a": 1}}"#, "/o/k", JSON.null),
        (#"{"o": {"k": 5}, "p": 1}"#, "/o/k", JSON.null),
        (#"{"o": {"k": {"x": 1}, "k": {"x": 2}}}"#, "/o/k/x", JSON.number(JSONNumber(3))),
        (#"{"o": {"k": {"x": 1}}, "o": {"k": {"x": 2}}}"#, "/o/k/x", JSON.null),
        (#"{"o": {}}"#, "/o/k", JSON.number(JSONNumber(1))),
        (#"{"o": {"a": 1,"b": 2}}"#, "/o/k", JSON.number(JSONNumber(1))),
        (#"{"o": {"a": 1, "a": 2}}"#, "/o/k", JSON.string("s")),
        (#"{"o": {\#n  "a": 1\#n}}"#, "/o/k/deeper", JSON.number(JSONNumber(1))),
        (#"{"o": {"a": 1}}"#, "/o/k", JSON.null),
        (#"{"o": {"k\u0041": 1}}"#, "/o/kA", JSON.null),
    ])
    func anEditAlongThePathIsTheEditFromAWholeParse(text: String, path: String, value: JSON) throws {
        let writes = JSONWrite.set(try Path(path), value)
        let whole = try JSONDocument(parsing: text)
        let part = try JSONDocument(parsing: DocumentBytes(Array(text.utf8)), keeping: Self.ancestor(writes))
        #expect(part.pathMembers != nil)
        #expect(try part.applying(writes).bytes.array == whole.applying(writes).bytes.array)
    }
}
