// The writes of one update as one tree: applied at once, they give what the same writes
// applied one by one give; overlapping paths are refused whatever their order.
import Testing
@testable import JSONTree
import TestSupport

@Suite struct EditTreeTests {
    /// Random documents and random multi-path updates (many paths in one object now and then):
    /// the update applied at once equals its writes applied one by one to a copy.
    @Test func anUpdateAtOnceEqualsItsWritesOneByOne() throws {
        var compared = 0
        try forEachSeed(400) { seed, rng in
            let tree = randomTree(&rng, depth: 0, rootKind: rng.next(5) == 0 ? .array : .object)
            let document = try JSONDocument(parsing: StyledWriter.random(&rng).write(tree))
            var writes = randomWrites(&rng, tree)
            if rng.next(4) == 0 { writes += manyWrites(&rng, tree) }
            let overlapping = writes.indices.contains { i in
                writes.indices.contains { j in i != j && writes[i].path.keys.starts(with: writes[j].path.keys, by: codeUnitsEqual) }
            }
            let atOnce: JSONDocument
            do throws(JSONEditError) {
                atOnce = try document.applying(writes)
            } catch {
                if case .overlapping = error.reason {
                    #expect(overlapping, "seed \(seed): \(error) for \(writes)")
                }
                // Other refusals (an index far past an array's end, a key in an array) may
                // not be refusals one by one, when an earlier write changed the array.
                return
            }
            #expect(!overlapping, "seed \(seed): overlapping writes accepted: \(writes)")
            var oneByOne = document
            for write in writes {
                do throws(JSONEditError) {
                    oneByOne = try oneByOne.applying([write])
                } catch {
                    Issue.record("seed \(seed): \(write) refused alone (\(error)) but not in \(writes)")
                    return
                }
            }
            #expect(atOnce.root.json == oneByOne.root.json, "seed \(seed): \(writes)")
            compared += 1
        }
        #expect(compared > 160, "only \(compared) updates were applied at once")
    }

    /// Writes of one update reaching a written path through new and existing keys are refused
    /// in either order, naming both paths.
    @Test func overlapsAreFoundInEitherOrder() throws {
        let document = try JSONDocument(parsing: #"{"a": {"b": {"c": 1}}, "d": 2}"#)
        let cases: [(first: String, second: String)] = [("/a/b/c", "/a"), ("/a/x/y/z", "/a/x"), ("/n/e/w", "/n")]
        for (deep, shallow) in cases {
            let sibling = JSONWrite(path("/d"), 3)
            for writes in [[JSONWrite(path(deep), 1), sibling, JSONWrite(path(shallow), 2)],
                           [JSONWrite(path(shallow), 2), sibling, JSONWrite(path(deep), 1)]] {
                let error = try #require(throws: JSONEditError.self) { try document.applying(writes) }
                #expect(error.reason == .overlapping(ancestor: path(shallow), descendant: path(deep)), "\(writes)")
            }
        }
    }
}

/// 20–120 writes below one object of `tree` (or the root): members set, removed and added,
/// in random order, each path once.
private func manyWrites(_ rng: inout SplitMix64, _ tree: JSON) -> [JSONWrite] {
    var base = Path.root
    var node = tree
    while case .object(let o) = node, !o.members.isEmpty, rng.next(2) == 0 {
        let member = o.members[Int(rng.next(UInt64(o.members.count)))]
        guard case .object = member.value else { break }
        base = base.child(member.key)
        node = member.value
    }
    var writes = [JSONWrite]()
    for i in (0..<(20 + Int(rng.next(100)))).shuffled(using: &rng) {
        let value: JSON = rng.next(4) == 0 ? .null : randomScalar(&rng)
        writes.append(JSONWrite(base.child("m\(i)").child(rng.next(3) == 0 ? "deep" : "v"), value))
    }
    return writes
}
