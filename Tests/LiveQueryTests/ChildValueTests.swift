import Expressions
import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

/// An expression as a computed order, as the viewer makes one: no value or an error is null.
private func computed(_ text: String) throws -> ChildValue {
    let e = try Expression(text)
    return ChildValue(text: text) { value, tape in
        if case .value(let json) = e.value(of: value, in: tape) { json } else { nil }
    }
}

/// Expressions whose values mix kinds across the generated children: numbers, strings, nulls,
/// objects, and errors (a string divided, a number indexed).
private let expressions = ["-.score", ".score / 2", ".name", ".score // .name", ".m", ".m.v + 1", "(.score | type) + .name?"]

/// A query ordered by `value`, with a random range and limit.
private func computedQuery(_ value: ChildValue, _ rng: inout SplitMix64) throws -> Query {
    var q = try Query().orderByComputed(value)
    let bounds: [JSON] = [.null, false, true, -1, 0, 0.5, 2, "n1", "n3", "numbern2"]
    if rng.chance(0.3) { q = rng.chance(0.5) ? try q.startAt(rng.pick(bounds)) : try q.startAfter(rng.pick(bounds)) }
    if rng.chance(0.3) { q = rng.chance(0.5) ? try q.endAt(rng.pick(bounds)) : try q.endBefore(rng.pick(bounds)) }
    switch rng.int(0..<3) {
    case 0: q = try q.limitToFirst(rng.int(1..<6))
    case 1: q = try q.limitToLast(rng.int(1..<6))
    default: break
    }
    return q
}

@Suite struct ChildValueTests {
    /// A window ordered by an expression, kept live across random edits, equals the window
    /// computed from scratch on the final tree (and the reference's), with exact events and batch:
    /// rows move when their computed value changes.
    @Test func computedOrderFollowsEditsExactly() throws {
        try forEachSeed(40, base: 0xC0C0) { seed, rng in
            let asArray = rng.chance(0.2)
            var items = rng.chance(0.2) ? randomLargeCollection(&rng) : randomCollection(&rng)
            let q = try computedQuery(try computed(rng.pick(expressions)), &rng)
            var (doc, root) = document(documentText(items, asArray: asArray, pretty: false))
            var window = Window(query: q, path: itemsPath, document: doc)
            #expect(rows(window) == refWindow(q, root, itemsPath), "seed \(seed): \(q) first window")
            for step in 0..<6 {
                items = randomEdit(items, &rng, keysAreIndexes: asArray)
                let oldRows = rows(window)
                (doc, root) = document(documentText(items, asArray: asArray, pretty: rng.chance(0.3)))
                let change = window.advanced(to: doc)
                let expected = refWindow(q, root, itemsPath)
                #expect(rows(change.new) == expected, "seed \(seed) step \(step): \(q) got \(change.new.keys) want \(expected.map(\.key))")
                #expect(rows(Window(query: q, path: itemsPath, document: doc)) == expected, "seed \(seed) step \(step): fresh")
                #expect(change.new.invariantViolations().isEmpty, "seed \(seed) step \(step): \(change.new.invariantViolations())")
                let issues = problems(change, old: oldRows, new: expected, query: q)
                #expect(issues.isEmpty, "seed \(seed) step \(step): \(q): \(issues)")
                window = change.new
            }
        }
    }

    /// The order is the database's value order over the computed values, ties by key; a child
    /// whose value changes moves, with child_moved before child_changed.
    @Test func aChildMovesWhenItsComputedValueChanges() throws {
        let text = #"{"items":{"a":{"score":4,"level":2},"b":{"score":9,"level":3},"c":{"score":"x","level":1},"d":{"score":1,"level":4}}}"#
        let q = try Query().orderByComputed(try computed(".score / .level"))
        let window = Window(query: q, path: itemsPath, document: try JSONDocument(parsing: text))
        // c's value is an error (a string divided): null, first.
        #expect(window.keys == ["c", "d", "a", "b"])
        let edited = text.replacing(#""d":{"score":1,"level":4}"#, with: #""d":{"score":40,"level":4}"#)
        let change = window.advanced(to: try JSONDocument(parsing: edited))
        #expect(change.new.keys == ["c", "a", "b", "d"])
        #expect(change.childEvents.map { "\($0.kind) \($0.key)" } == ["childMoved d", "childChanged d"])
    }

    @Test func computedOrdersTakePartInEqualityAndDescription() throws {
        let a = try Query().orderByComputed(try computed(".score / .level"))
        #expect(a == (try Query().orderByComputed(try computed(".score / .level"))))
        #expect(a != (try Query().orderByComputed(try computed(".score"))))
        #expect(a.description == #"orderByComputed(".score / .level")"#)
        #expect(throws: QueryError.self) { try a.orderByKey() }
    }
}
