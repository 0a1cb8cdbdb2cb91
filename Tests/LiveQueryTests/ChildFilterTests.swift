import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

/// Children whose `name` member is one of `names` (edits change names without touching the sort
/// value, so a child passes or stops passing in place).
private func nameFilter(_ names: [String]) -> (ChildFilter, (JSON) -> Bool) {
    let wanted = names.map { Array($0.utf8) }
    let filter = ChildFilter(text: ".name in \(names)") { value, tape in
        guard let m = Array("name".utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }),
              tape.kind(m) == .string else { return false }
        return tape.withStringBytes(m) { s in wanted.contains { $0.elementsEqual(s) } }
    }
    return (filter, { v in v["name"]?.stringValue.map { s in wanted.contains { $0.elementsEqual(s.utf8) } } ?? false })
}

/// Children whose `score` is a number above 0.5.
private func scoreFilter() -> (ChildFilter, (JSON) -> Bool) {
    let filter = ChildFilter(text: ".score > 0.5") { value, tape in
        guard let m = Array("score".utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }),
              tape.kind(m) == .number else { return false }
        return tape.number(m) > 0.5
    }
    return (filter, { v in (v["score"]?.doubleValue ?? 0) > 0.5 })
}

/// The filtered window by the book: the children in range, those the filters keep, then the limit.
private func refFilteredWindow(_ query: Query, _ root: JSON, _ keep: (JSON) -> Bool) -> [RefChild] {
    let kept = refWindow(query.withoutFilters.withoutLimit, root, itemsPath).filter { keep($0.value) }
    switch query.limit {
    case .first(let n)?: return Array(kept.prefix(n))
    case .last(let n)?: return Array(kept.suffix(n))
    case nil: return kept
    }
}

@Suite struct ChildFilterTests {
    /// A filtered window kept live across random edits equals the filtered window computed from
    /// scratch on the final tree, and its events and batch stay exact; `count` agrees.
    @Test func filteredWindowsFollowEditsExactly() {
        forEachSeed(100, base: 0xF117) { seed, rng in
            let asArray = rng.chance(0.2)
            var items = randomCollection(&rng)
            var q = randomQuery(&rng)
            var keeps = [(JSON) -> Bool]()
            for make in [{ nameFilter(["n0", "n1", "n3"]) }, { scoreFilter() }] where rng.chance(0.6) || keeps.isEmpty {
                let (filter, keep) = make()
                q = q.filtered(by: filter)
                keeps.append(keep)
            }
            let keep = { (v: JSON) in keeps.allSatisfy { $0(v) } }
            var (doc, root) = document(documentText(items, asArray: asArray, pretty: false))
            var window = Window(query: q, path: itemsPath, document: doc)
            for step in 0..<6 {
                items = randomEdit(items, &rng, keysAreIndexes: asArray)
                let oldRows = rows(window)
                (doc, root) = document(documentText(items, asArray: asArray, pretty: rng.chance(0.3)))
                let change = window.advanced(to: doc)
                let expected = refFilteredWindow(q, root, keep)
                #expect(rows(change.new) == expected, "seed \(seed) step \(step): \(q) got \(change.new.keys) want \(expected.map(\.key))")
                #expect(rows(Window(query: q, path: itemsPath, document: doc)) == expected, "seed \(seed) step \(step): fresh")
                #expect(change.new.invariantViolations().isEmpty, "seed \(seed) step \(step): \(change.new.invariantViolations())")
                let issues = problems(change, old: oldRows, new: expected, query: q)
                #expect(issues.isEmpty, "seed \(seed) step \(step): \(q): \(issues)")
                #expect(q.count(at: itemsPath, in: doc) == expected.count, "seed \(seed) step \(step): count")
                window = change.new
            }
        }
    }

    /// A limit counts the children the filter keeps, and a child that stops passing leaves a
    /// limited window as a removal, the next one kept taking its place.
    @Test func aLimitCountsTheChildrenKept() throws {
        let text = #"{"items":{"a":{"score":1,"name":"n0"},"b":{"score":2,"name":"n2"},"c":{"score":3,"name":"n1"},"d":{"score":4,"name":"n0"}}}"#
        let (filter, _) = nameFilter(["n0", "n1"])
        let q = try Query().orderByChild("score").limitToFirst(2).filtered(by: filter)
        let window = Window(query: q, path: itemsPath, document: try JSONDocument(parsing: text))
        #expect(window.keys == ["a", "c"])
        let edited = text.replacing(#""score":1,"name":"n0""#, with: #""score":1,"name":"n4""#)
        let change = window.advanced(to: try JSONDocument(parsing: edited))
        #expect(change.new.keys == ["c", "d"])
        #expect(change.childEvents.map { "\($0.kind) \($0.key)" } == ["childRemoved a", "childAdded d"])
        #expect(q.count(at: itemsPath, in: try JSONDocument(parsing: edited)) == 2)
        #expect(q.withoutLimit.count(at: itemsPath, in: try JSONDocument(parsing: text)) == 3)
    }

    @Test func filtersTakePartInEqualityAndDescription() throws {
        let (a, _) = nameFilter(["n0"])
        let (b, _) = scoreFilter()
        let q = try Query().orderByKey()
        #expect(q.filtered(by: a) == q.filtered(by: a))
        #expect(q.filtered(by: a) != q.filtered(by: b))
        #expect(q.filtered(by: a) != q)
        #expect(q.filtered(by: b).description == #"orderByKey().filter(".score > 0.5")"#)
    }
}
