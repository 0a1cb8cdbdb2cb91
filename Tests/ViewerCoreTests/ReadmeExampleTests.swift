// The library's example (docs/library.md), compiled and run as written. The text between the
// README example markers below is that page's Swift block, line for line (the test checks it).
import Testing
import TestSupport

// README example: begin
import FileStore
import JSONTree
import LiveQuery
import SyncedArray
import TableUI
import ViewerCore

/// A list's stand-in: the keys of the rows, kept up to date by one batch per revision.
final class PlayerList: SyncedArrayBatchDelegate {
    var keys: [String] = []

    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
        // deletes (old indexes), inserts (new indexes), moves (old → new), reloads
        keys = batch.apply(to: keys) { array[$0].key }
    }
}

/// The top 50 scores of `file`, then the same players by name, then a page more.
func playersByName(file: String) throws -> [String] {
    let store = try FileStore(path: file)
    let players = SyncedArray(
        try store.reference(Path("/players")).orderByChild(Path("score")),
        paging: Paging(pageSize: 50, from: .end))     // the top 50 scores; loadMore() adds 50
    let list = PlayerList()
    players.batchDelegate = list                       // one BatchDiff per revision
    players.startSync()
    _ = try store.waitForRevision(1)                   // a run loop polls store.pollDescriptors instead
    players.replaceQuery(try Query().orderByChild(Path("name")))  // one batch: rows move
    if players.hasMore { players.loadMore() }
    players.stopSync()
    return list.keys                                   // the same as players.keys
}

/// The viewer as a library: any Canvas, keys and ticks in, the screen out.
func viewerScreen(file: String) throws -> [String] {
    let store = try FileStore(path: file)
    _ = try store.waitForRevision(1)
    let canvas = MemoryCanvas(rows: 24, columns: 80)
    let viewer = Viewer(options: ViewerOptions(file: file, location: try Path("/players")),
                        store: store, canvas: canvas)
    viewer.handle(.character("S"))                     // sort by key (see `keyBindings`)
    viewer.tick()                                      // animations and paging move on
    viewer.render()
    viewer.stop()
    return canvas.lines
}
// README example: end

@Suite("The library's example in docs/library.md")
struct ReadmeExampleTests {
    static func players() -> String {
        var text = #"{"players":{"#
        for i in 0..<120 { text += (i == 0 ? "" : ",") + #""p\#(i)":{"name":"n\#(1000 + 119 - i)","score":\#(i * 7 % 120)}"# }
        return text + "}}"
    }

    @Test("runs as written")
    func runs() throws {
        let folder = ScratchFolder("readme")
        let file = folder.file("players.json")
        writeFileInPlace(file, Array(Self.players().utf8))
        let keys = try playersByName(file: file)
        // Paged from the end: the last 100 names (n1020…n1119, which are p99…p0), ascending.
        #expect(keys == (0..<100).map { "p\(99 - $0)" })
        let screen = try viewerScreen(file: file)
        #expect(screen[0].contains("key") && screen[0].contains("name") && screen[0].contains("score"))
        #expect(screen.contains { $0.contains("by key") })
    }

    @Test("is docs/library.md's Swift block, line for line")
    func matchesTheReadme() throws {
        let readme = try #require(readFileText(packageRoot + "/docs/library.md"))
        let source = try #require(readFileText(#filePath))
        func between(_ text: String, _ begin: String, _ end: String) -> [Substring]? {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let a = lines.firstIndex(where: { $0.hasPrefix(begin) }),
                  let b = lines[(a + 1)...].firstIndex(where: { $0.hasPrefix(end) }) else { return nil }
            return Array(lines[(a + 1)..<b])
        }
        let example = try #require(between(source, "// README example: begin", "// README example: end"))
        let block = try #require(between(readme, "```swift", "```"), "no Swift block in docs/library.md")
        #expect(block == example, "docs/library.md's Swift block differs from Tests/ViewerCoreTests/ReadmeExampleTests.swift")
    }
}
