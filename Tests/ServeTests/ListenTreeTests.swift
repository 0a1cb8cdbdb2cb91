// A session's listens by location: a revision visits exactly the listens whose location changed.
import FileStore
import JSONTree
@testable import Serve
import Testing
import TestSupport

@Suite struct ListenTreeTests {
    /// Random listens (some added twice, some removed) on random trees and edits: `forEach` gives
    /// each listen once, a location before those below it; `forEachChanged`, asked whether each
    /// location below the root changed, gives the root's listens and those whose value differs
    /// between the two trees, in the same order, and asks about no location below one that did
    /// not change.
    @Test func aRevisionVisitsExactlyTheListensWhoseLocationChanged() throws {
        var random = SplitMix64(seed: 11)
        for round in 0..<300 {
            let old = WireCacheTests.tree(&random, depth: 3)
            let new = WireCacheTests.edited(old, &random, depth: 3)
            let (first, second) = (try JSONDocument(parsing: old.serialized(.compact)), try JSONDocument(parsing: new.serialized(.compact)))
            var tree = ListenTree()
            var expected = [ListenKey: Listen]()
            for _ in 0..<random.int(0...12) {
                let path = Path(keys: (0..<random.int(0...3)).map { _ in WireCacheTests.keys[random.int(0..<WireCacheTests.keys.count)] })
                let tag = random.chance(0.4) ? nil : random.int(1...3)
                let listen = try #require(Self.listen(path, tag: tag))
                if random.chance(0.2), !expected.isEmpty {
                    let some = Array(expected.keys)[random.int(0..<expected.count)]
                    tree.remove(some)
                    expected[some] = nil
                } else {
                    tree.insert(listen)
                    expected[listen.key] = listen
                }
            }
            var all = [ListenKey]()
            tree.forEach { all.append($0.key) }
            #expect(tree.count == expected.count && Set(all) == Set(expected.keys) && all.count == expected.count, "round \(round)")
            #expect(all == all.sorted { Self.treeOrder($0, $1) }, "round \(round): \(all)")

            func value(_ path: Path, _ document: JSONDocument) -> JSON { ServedValue.value(at: path, in: document, export: true) }
            var asked = [Path]()
            var changed = [ListenKey]()
            tree.forEachChanged({ path in
                asked.append(path)
                return value(path, first) != value(path, second)
            }, { changed.append($0.key) })
            // The root's listens always (a revision is a change of the root).
            #expect(changed == all.filter { $0.path.keys.isEmpty || value($0.path, first) != value($0.path, second) }, "round \(round)")
            for path in asked {
                #expect(!path.keys.isEmpty && path.ancestors.allSatisfy { value($0, first) != value($0, second) }, "round \(round): \(path) asked")
            }
        }
    }

    /// A location before the locations below it, siblings by key, the untagged listen first.
    private static func treeOrder(_ a: ListenKey, _ b: ListenKey) -> Bool {
        if a.path == b.path { return (a.tag ?? -1) < (b.tag ?? -1) }
        return a.path.keys.lexicographicallyPrecedes(b.path.keys)
    }

    /// A listen as a client asks for it: the location's value, or a query's window with `tag`.
    private static func listen(_ path: Path, tag: Int?) -> Listen? {
        let at = "/" + path.keys.joined(separator: "/")
        let body = tag.map { #"{"p":"\#(at)","q":{"l":2,"vf":"l"},"t":\#($0),"h":""}"# } ?? #"{"p":"\#(at)","h":""}"#
        guard case .request(_, .success(.listen(let request)))? = ClientMessage(decoding: #"{"t":"d","d":{"r":1,"a":"q","b":\#(body)}}"#) else {
            return nil
        }
        return Listen(request)
    }
}

private extension Path {
    /// The locations above this one, not the root.
    var ancestors: [Path] { (1..<max(1, keys.count)).map { Path(keys: Array(keys.prefix($0))) } }
}
