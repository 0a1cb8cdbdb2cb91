// Search: the time from `/` Enter to the first match selected on screen, over 1,000,000
// children, beside `grep -c` of the same text over the same file.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import TableUI
import ViewerCore

func runSearchBenchmarks(_ report: Report, _ options: BenchOptions) {
    let children = options.quick ? 10_000 : 1_000_000
    let runs = options.quick ? 1 : 3
    let folder = options.root + "/.build/bench/search"
    _ = shellStatus("rm -rf '\(folder)' && mkdir -p '\(folder)'")
    let path = folder + "/items.json"
    let bytes = generateCollection(children: children)
    writeFileInPlace(path, bytes)

    // A child half-way down, in key order (the default order): its page is far past the first.
    let target = children / 2
    let text = "user \(target)"
    guard let store = try? FileStore(path: path), (try? store.waitForRevision(1, timeoutMilliseconds: 120_000)) != nil else {
        printError("search: the store did not read \(path)")
        return
    }
    // The part of a search that orders the children (the query's window over all of them).
    let document = store.currentRevision!.document
    let items = try! Path("/items")
    let ordering = timeRuns(runs) { _ = Window(query: Query(), path: items, document: document) }
    var samples: [Double] = []
    var found: [Double] = []
    for _ in 0..<runs {
        let canvas = MemoryCanvas(rows: 40, columns: 160)
        let viewer = Viewer(options: ViewerOptions(file: path, location: try! Path("/items"), animations: false),
                            store: store, canvas: canvas)
        guard waitForScreen(viewer, store, canvas, seconds: 120, { $0.contains { $0.contains("200 rows of") } }) else {
            printError("search: the first page never came")
            return
        }
        viewer.handle(.character("/"))
        for c in text { viewer.handle(.character(c)) }
        let start = now()
        viewer.handle(.enter)
        // The matches counted (the message says so), then the row selected with its pages loaded.
        _ = waitForScreen(viewer, store, canvas, seconds: 120) { lines in lines.contains { $0.contains("match 1 of 1") } }
        found.append(now() - start)
        let landed = waitForScreen(viewer, store, canvas, seconds: 120) { lines in
            lines.contains { $0.contains("match 1 of 1") } && lines.contains { ($0.hasPrefix("▶") || $0.hasPrefix(">")) && $0.contains(text) }
        }
        let elapsed = now() - start
        viewer.stop()
        guard landed else {
            printError("search: never landed on \(text)")
            return
        }
        samples.append(elapsed)
    }
    let grep = timeRuns(runs) { _ = shellStatus("grep -c -F '\(text)' '\(path)' > /dev/null") }
    let label = children >= 1_000_000 ? "\(children / 1_000_000)M" : "\(children / 1000)k"
    let ours = Stats(samples.map { $0 * 1000 })
    let counted = Stats(found.map { $0 * 1000 })
    report.add(Figure(
        name: "search, \(label) children: / Enter to the matches counted (match 1 of 1)", unit: "ms",
        synctable: counted,
        peers: [(name: "grep -c (same text, same file)", stats: Stats([grep.min * 1000, grep.median * 1000, grep.max * 1000]), note: nil)],
        target: "for reference", met: nil, ratio: grep.median * 1000 / counted.median,
        note: "of which ordering the children (the query's window) takes \(Int(ordering.median * 1000)) ms; then each child's JSON text is scanned"))
    report.add(Figure(
        name: "search, \(label) children: / Enter to the match selected (row \(target), its pages loaded)", unit: "ms",
        synctable: ours,
        peers: [(name: "grep -c (same text, same file)", stats: Stats([grep.min * 1000, grep.median * 1000, grep.max * 1000]), note: nil)],
        target: "for reference", met: nil, ratio: grep.median * 1000 / ours.median,
        note: "grep only counts lines; the viewer orders every child, tests every cell and loads \(target / 200 + 1) pages"))
}

/// Runs the store's loop and renders until `condition` holds for the screen's lines.
private func waitForScreen(_ viewer: Viewer, _ store: FileStore, _ canvas: MemoryCanvas, seconds: Double,
                           _ condition: ([String]) -> Bool) -> Bool {
    let deadline = now() + seconds
    while now() < deadline {
        viewer.render()
        if condition(canvas.lines) { return true }
        store.waitAndProcessChanges(timeoutMilliseconds: 1)
        viewer.tick()
    }
    return false
}
