// The search's rules, as properties: the scan of a child's JSON text never hides a match.
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import ViewerCore

@Suite("Search matching")
struct SearchIndexTests {
    /// Texts that exercise escapes, case, non-ASCII and container summaries.
    static let pieces = ["Gold", "gold", "GOLD", "\\u0047old", "G\\u006fld", "\\\\", "\\\"", "Zoë", "ZOË", "東京", "{", "}", "[1]", "42", "4\\u0032", "true", " ", "-"]

    static func randomText(_ rng: inout SplitMix64) -> String {
        (0..<rng.int(0..<4)).map { _ in pieces[rng.int(0..<pieces.count)] }.joined()
    }

    static func randomValue(_ rng: inout SplitMix64) -> String {
        switch rng.int(0..<6) {
        case 0: return "\"\(randomText(&rng))\""
        case 1: return String(rng.int(0..<500))
        case 2: return rng.int(0..<2) == 0 ? "true" : "null"
        case 3: return "[1, 2, 3]"
        case 4: return "{\"x\": \"\(randomText(&rng))\"}"
        default: return "\"\(randomText(&rng))\""
        }
    }

    @Test("findMatches equals testing every cell's text, for random children and patterns")
    func prefilterNeverHidesAMatch() throws {
        var rng = SplitMix64(seed: 15)
        let needles = ["gold", "Gold", "GOLD", "old", "zoë", "ZOË", "東", "42", "{3}", "[3]", "{", "\\", "\"", "true", "o", "d 4", "\\vg.ld", "\\v^[0-9]+$"]
        for round in 0..<200 {
            let count = rng.int(1..<12)
            let members = (0..<count).map { i in
                "\"k\(i)\(rng.int(0..<2) == 0 ? "gold" : "")\": {\"name\": \(Self.randomValue(&rng)), \"n\": \(Self.randomValue(&rng))}"
            }
            let document = try JSONDocument(parsing: Array(("{\"p\": {" + members.joined(separator: ", ") + "}}").utf8))
            let columns: [ColumnSpec] = [.key, .member(try Path("name")), .member(try Path("n"))]
            let context = SearchContext(revision: 1, location: try Path("/p"), query: Query(), reversed: round % 2 == 1, columns: columns)
            for typed in needles {
                let pattern = try SearchPattern(parsing: typed)
                let found = try findMatches(pattern, in: document, context).matches.map(\.key)
                let matches = pattern.matcher()
                let window = Window(query: Query(), path: try Path("/p"), document: document)
                var expected = window.map { row in (row.key, columns.contains { matches($0.cell(key: row.key, child: row.value)) }) }
                    .filter(\.1).map(\.0)
                if round % 2 == 1 { expected.reverse() }
                #expect(found == expected, "round \(round), pattern \(typed)")
            }
        }
    }

    @Test("the substring test agrees with a naive one, on random short and long texts over a small alphabet")
    func substringAgreesWithNaive() throws {
        var rng = SplitMix64(seed: 52)
        let alphabet = Array("aAbB5 -\"é")
        func text(_ length: Int) -> String { String((0..<length).map { _ in alphabet[rng.int(0..<alphabet.count)] }) }
        for _ in 0..<3000 {
            // Short texts take a plain scan; from 512 bytes on, Boyer–Moore–Horspool.
            let haystack = text(rng.int(0..<4) == 0 ? rng.int(500..<700) : rng.int(0..<24))
            var needle = text(rng.int(1..<4))
            if needle.hasPrefix("\\v") { needle = "x" + needle }
            let pattern = try SearchPattern(parsing: needle)
            let naive = pattern.ignoresCase ? haystack.lowercased().contains(needle.lowercased()) : haystack.contains(needle)
            #expect(pattern.matcher()(haystack) == naive, "\(needle.debugDescription) in \(haystack.debugDescription)")
        }
    }

    @Test("smart case and regex rules")
    func rules() throws {
        #expect(try SearchPattern(parsing: "orch").matcher()("ORCHID"))
        #expect(try !SearchPattern(parsing: "Orch").matcher()("ORCHID"))
        #expect(try SearchPattern(parsing: "zoë").matcher()("ZOË"))
        #expect(try SearchPattern(parsing: "\\vor(ch|ca)$").matcher()("Orca"))
        #expect(try !SearchPattern(parsing: "\\vOr(ch|ca)$").matcher()("orca"))
        #expect(throws: SearchPatternError.self) { try SearchPattern(parsing: "\\v(") }
        #expect(throws: SearchPatternError.self) { try SearchPattern(parsing: "") }
    }

    /// Issue 43 item 9: `(a|aa)*b` over forty `a`s backtracks for hours.
    @Test("a regular expression's time on one text is bounded: that text is skipped and counted; a cancelled search stops")
    func backtrackingIsBounded() throws {
        let a = String(repeating: "a", count: 40)
        let document = try JSONDocument(parsing: Array(#"{"p": {"k1": {"s": "\#(a)"}, "k2": {"s": "ab"}, "k3": {"s": "b"}}}"#.utf8))
        let context = SearchContext(revision: 1, location: try Path("/p"), query: Query(), reversed: false,
                                    columns: [.key, .member(try Path("s"))])
        let pattern = try SearchPattern(parsing: "\\v(a|aa)*b")
        let found = try findMatches(pattern, in: document, context, control: SearchControl(secondsPerText: 0.01))
        #expect(found.matches.map(\.key) == ["k2", "k3"] && found.skipped == 1)
        let cancelled = SearchControl()
        cancelled.cancel()
        #expect(throws: SearchCancelled.self) { try findMatches(pattern, in: document, context, control: cancelled) }
        // A cell's highlight gives up on it too, and still marks what matches.
        let highlight = pattern.matcher()
        #expect(!highlight(a) && highlight("ab"))
    }
}
