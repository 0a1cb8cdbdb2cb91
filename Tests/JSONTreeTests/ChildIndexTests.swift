// Children found through an index give what `JSONNode.child` gives; only containers looked up
// again are indexed.
import Testing
@testable import JSONTree
import TestSupport

@Suite struct ChildIndexTests {
    /// Every key of random documents (and keys that are not there), looked up three times
    /// through one index: the same node as `JSONNode.child`.
    @Test func answersAsTheNodeDoes() throws {
        try forEachSeed(200) { seed, rng in
            let tree = randomTree(&rng, depth: 0, rootKind: rng.next(4) == 0 ? .array : .object)
            let document = try JSONDocument(parsing: StyledWriter.random(&rng).write(tree))
            let index = ChildIndex()
            for _ in 0..<3 {
                var containers = [document.root]
                while let node = containers.popLast() {
                    let keys = node.kind == .object
                        ? node.members.compactMap { $0.key.stringValue }
                        : node.elements.enumerated().map { String($0.offset) }
                    for key in keys + keyPool + ["99", "01"] {
                        let expected = node.child(key)
                        let found = index.child(key, of: node)
                        #expect(found?.index == expected?.index, "seed \(seed): \(key) in \(String(decoding: node.rawBytes, as: UTF8.self))")
                        if let found, found.isContainer { containers.append(found) }
                    }
                }
            }
        }
    }

    /// The last of duplicate keys is the member; keys are told apart by their code units.
    @Test func duplicatesAndEquivalentKeys() throws {
        let document = try JSONDocument(parsing: #"{"d": 1, "\u00e9": "composed", "d": 2, "e\u0301": "decomposed"}"#)
        let index = ChildIndex()
        for _ in 0..<3 {
            #expect(index.child("d", of: document.root)?.json == 2)
            #expect(index.child("\u{e9}", of: document.root)?.json == "composed")
            #expect(index.child("e\u{301}", of: document.root)?.json == "decomposed")
        }
        #expect(index.containersIndexed == 1)
    }

    @Test func onlyContainersLookedUpAgainAreIndexed() throws {
        let document = try JSONDocument(parsing: #"{"a": {"x": 1}, "b": [10, 20, 30], "c": {"y": 2}}"#)
        let index = ChildIndex()
        #expect(index.node(at: try Path("/a/x"), in: document.root)?.json == 1)
        #expect(index.containersIndexed == 0)
        #expect(index.node(at: try Path("/b/2"), in: document.root)?.json == 30)
        #expect(index.containersIndexed == 1, "the root")
        #expect(index.node(at: try Path("/b/1"), in: document.root)?.json == 20)
        #expect(index.node(at: try Path("/b/3"), in: document.root) == nil)
        #expect(index.node(at: try Path("/c/y/z"), in: document.root) == nil)
        #expect(index.containersIndexed == 2, "the root and b")
    }
}
