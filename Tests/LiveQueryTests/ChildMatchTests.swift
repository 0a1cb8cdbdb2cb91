import JSONTree
import Testing
@testable import LiveQuery

/// A watched command's run: a table re-parsed from the last run with a few values changed here
/// and there, so the children between the common ends are many and nearly all unchanged.
@Suite struct ChildMatchTests {
    func table(_ values: [Int], keys: [String]? = nil) -> [UInt8] {
        let rows = values.enumerated().map { i, n in #"  "\#(keys?[i] ?? "r\(i)")": {"name": "host-\#(i)", "n": \#(n)}"# }
        return Array(("{\"items\": {\n" + rows.joined(separator: ",\n") + "\n}}\n").utf8)
    }

    func match(_ before: [UInt8], _ after: [UInt8]) throws -> ChildMatch {
        let old = try JSONDocument(parsing: before)
        let new = try old.reparsing(after)
        return Window.matchChildren(ChildList(document: old, path: itemsPath), new, itemsPath).1
    }

    @Test func scatteredChangesAreTheDirtyChildrenAndTheRestKeepTheirPlaces() throws {
        let values = (0..<500).map { 1_000 + $0 }
        var next = values
        let changed = [3, 97, 250, 251, 420, 498]
        for i in changed { next[i] += 7 }
        let m = try match(table(values), table(next))
        #expect(m.dirty == changed.map(Int32.init))
        #expect(!m.isIdentity && m.removedCount == 0)
        #expect((0..<500).allSatisfy { m.newOrdinal(ofOld: $0) == $0 && m.oldOrdinal(ofNew: $0) == $0 })
        #expect((0..<500).allSatisfy { m.isChanged(new: $0) == changed.contains($0) })
    }

    /// The same key spelled with an escape is not the same bytes but is the same child; a value
    /// written differently but equal as JSON is not a change.
    @Test func aKeyOrValueSpelledDifferentlyIsTheSameChild() throws {
        let keys = (0..<50).map { "r\($0)" }
        var escaped = keys
        escaped[20] = #"\u0072\#(20)"#
        var before = table(Array(0..<50), keys: keys)
        let after = table(Array(0..<50), keys: escaped)
        #expect(try match(before, after).isIdentity)
        before = Array(String(decoding: before, as: UTF8.self).replacingOccurrences(of: #""n": 30}"#, with: #""n": 3.0e1}"#).utf8)
        let m = try match(before, after)
        #expect(m.dirty.isEmpty && m.removedCount == 0 && m.oldOrdinal(ofNew: 30) == 30)
    }
}
