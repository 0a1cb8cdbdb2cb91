// The viewer over more than 50,000 children, where a new query's rows are evaluated on the
// store's worker and arrive after the key that asked for them.
import Foundation
import Testing

@Suite("The viewer over a large location")
struct ViewerLargeLocationTests {
    /// 60,000 children `k000000`… whose names order differently from their keys.
    static func collection() -> (text: String, byName: [String]) {
        let count = 60_000
        var members: [String] = []
        var names: [(name: String, key: String)] = []
        for i in 0..<count {
            let key = String(format: "k%06d", i), name = String(format: "n%06d", (i * 7919) % count)
            members.append("\"\(key)\": {\"name\": \"\(name)\"}")
            names.append((name, key))
        }
        return ("{\"items\": {" + members.joined(separator: ",\n") + "}}", names.sorted { $0.name < $1.name }.map(\.key))
    }

    @Test("G loads one page more, once; a sort made while paused is shown, with an UPDATING badge meanwhile")
    func pagesAndSortsArriveOnce() throws {
        let folder = try ScratchFolder()
        let file = folder.file("large.json")
        let (text, byName) = Self.collection()
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let session = try TerminalSession(try viewerCommand([file, "--path", "/items", "--no-cache"]), height: 20)
        try session.waitFor("the first page", seconds: 30) { $0.contains("· 200 rows of 60000") && $0.line(ofKey: "k000000") != nil }

        // The last row asks for a page more; until it arrives, no other page is asked for.
        try session.send("G")
        try session.waitFor("the second page", seconds: 30) { $0.contains("· 400 rows of 60000") && !$0.contains("UPDATING") }
        usleep(1_500_000)
        let screen = try session.waitFor("still two pages") { $0.contains("· 400 rows of 60000") && $0.contains("first 400 ·") }
        #expect(!screen.contains("UPDATING"))

        // Paused, the user's own sort is still shown when its rows arrive.
        try session.send("g", "p")
        try session.waitFor("the pause") { $0.contains("PAUSED") }
        try session.send("Tab", "s")
        try session.waitFor("rows by name, nothing held back", seconds: 30) { screen in
            screen.hasRows(inOrder: Array(byName.prefix(3))) && screen.contains("PAUSED: 0 waiting")
                && !screen.contains("UPDATING")
        }
    }
}
