// The viewer over more than 50,000 children, where a new query's rows are evaluated on the
// store's worker and arrive after the key that asked for them.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import ViewerCore

@Suite("The viewer over a large location")
struct ViewerLargeLocationTests {
    /// `count` children `k000000`… whose names order differently from their keys.
    static func collection(_ count: Int) -> (text: String, byName: [String]) {
        func six(_ n: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, 6 - s.count)) + s
        }
        var members: [String] = []
        var names: [(name: String, key: String)] = []
        for i in 0..<count {
            let key = "k" + six(i), name = "n" + six((i * 7919) % count)
            members.append("\"\(key)\": {\"name\": \"\(name)\", \"n\": \(i)}")
            names.append((name, key))
        }
        return ("{\"items\": {" + members.joined(separator: ",\n") + "}}", names.sorted { $0.name < $1.name }.map(\.key))
    }

    @Test("the end of the rows loads one page more, once; a sort made while paused is shown, with an UPDATING badge meanwhile")
    func pagesAndSortsArriveOnce() throws {
        let (text, byName) = Self.collection(60_000)
        let h = try ViewerHarness(memory: text, rows: 20, columns: 120, path: "/items")
        try h.waitUntil("the first page") { $0.contains("· 200 rows of 60000") && h.line(ofKey: "k000000") != nil }

        // The last rows ask for a page more; until it arrives, no other page is asked for.
        for _ in 0..<12 { h.viewer.handle(.pageDown) }
        h.viewer.tick()
        try h.waitUntil("the second page") { $0.contains("· 400 rows of 60000") && !$0.contains("UPDATING") }
        for _ in 0..<20 { h.advance(0.1) }
        let screen = h.screen
        // Pages are no limit the user gave: the count says how many rows are loaded.
        #expect(screen.contains("· 400 rows of 60000") && !screen.contains("first 400") && !screen.contains("UPDATING"))

        // Paused, the user's own sort is still shown when its rows arrive.
        h.send(.character("g"), .character("p"))
        #expect(h.screen.contains("PAUSED"))
        h.send(.tab, .character("s"))
        try h.waitUntil("rows by name, nothing held back") { screen in
            h.hasRows(inOrder: Array(byName.prefix(3))) && screen.contains("PAUSED: 0 waiting") && !screen.contains("UPDATING")
        }
    }
}
