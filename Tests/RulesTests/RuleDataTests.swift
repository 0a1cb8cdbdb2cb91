// The data rules read for a multi-path update: the writes laid over the tree one after another,
// each object's children found by key in one step however many paths it holds.
import JSONTree
@testable import Rules
import Testing

@Suite struct RuleDataTests {
    /// Later writes win, a value written above replaces what was written below, and a write
    /// below a written value goes into it: as the writes set one after another.
    @Test func writesAreLaidOverTheTreeInTurn() {
        let base = tree(#"{"a": {"x": 1, "y": 2}, "s": 5, "keep": true}"#)
        let writes: [(path: Path, value: JSON)] = [
            (path("/a/x"), json("10")), (path("/a/z"), json(#"{"deep": 1}"#)), (path("/a/z/more"), json("2")),
            (path("/b/c"), json("3")), (path("/b"), json(#"{"d": 4}"#)), (path("/s/t"), json("6")),
            (path("/a/y"), .null), (path("/a/x"), json("11")),
        ]
        let after = RuleData.applying(writes, to: .node(base.root, ChildIndex()))
        let expected = json(#"{"a": {"x": 11, "z": {"deep": 1, "more": 2}}, "b": {"d": 4}, "keep": true, "s": {"t": 6}}"#)
        #expect(after?.value.map(sortedKeys) == sortedKeys(expected))
        #expect(after?.child("a")?.child("y") == nil)
        #expect(after?.child("keep")?.value == json("true"))
    }

    /// A rules check of an update of 3k paths below one object, each validated: the object is
    /// indexed once, every written value is checked, and one bad value denies the whole update.
    @Test func eachPathOfALargeUpdateIsCheckedWithTheObjectIndexedOnce() throws {
        let n = 3_000
        let r = try rules(#"{"rules": {"items": {"$id": {".write": "auth != null", "score": {".validate": "newData.isNumber() && newData.val() >= 0"}}}}}"#)
        let document = tree(#"{"items": {"# + (0..<n).map { #""k\#($0)": {"score": 1}"# }.joined(separator: ",") + "}}")
        var writes = (0..<n).reversed().map { (path: path("/items/k\($0)/score"), value: json(String($0))) }
        #expect(r.permitsWrite(writes, to: document.root, auth: user("u"), now: 0))
        writes[n / 2].value = json("-1")
        #expect(!r.permitsWrite(writes, to: document.root, auth: user("u"), now: 0))
        #expect(!r.permitsWrite(writes, to: document.root, auth: .null, now: 0))

        let lookup = ChildIndex()
        let items = try #require(document.root[key: "items"])
        for i in stride(from: n - 1, through: 0, by: -7) {
            #expect(lookup.child("k\(i)", of: items)?.rawBytes.elementsEqual(#"{"score": 1}"#.utf8) == true)
        }
        #expect(lookup.child("missing", of: items) == nil)
        #expect(lookup.containersIndexed == 1)
    }
}

/// `value` with every object's members in key order (for comparing laid-over data, whose
/// replaced children come after the base's).
private func sortedKeys(_ value: JSON) -> JSON {
    switch value {
    case .object(let o): return .object(JSONObject(o.members.sorted { $0.key < $1.key }.map { ($0.key, sortedKeys($0.value)) }))
    case .array(let a): return .array(a.map(sortedKeys))
    default: return value
    }
}
