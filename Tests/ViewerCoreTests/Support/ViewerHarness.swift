// A viewer in-process: a real file and store (or a store in memory, where only revisions
// matter), a MemoryCanvas, a clock the test moves, and the screen read back as text.
import FileStore
import JSONTree
import RateStore
import TableUI
import Testing
import TestSupport
import ViewerCore

/// One viewer on one file (or one document in memory). Keys, revisions and ticks go in; the
/// screen comes out as text.
final class ViewerHarness {
    let folder: ScratchFolder
    /// The file (for a store in memory, its name only: no file is written).
    let file: String
    let store: any LiveStore
    /// The store in memory, when the viewer has one instead of a file.
    private var memory: MemoryStore? { (store as? MemoryStore) ?? ((store as? RateStore)?.source as? MemoryStore) }
    let canvas: MemoryCanvas
    var viewer: Viewer!
    /// The monotonic clock the viewer reads (seconds).
    var now = 1_000.0
    /// The effects the viewer asked for, in order.
    var effects: [ViewerEffect] = []

    /// - Parameters:
    ///   - json: the file's content (nil: no file yet).
    ///   - format: how the store reads the file (JSON Lines: `data.jsonl`, shown as a log).
    ///   - configure: adjusts the options (query, columns, page size) before the viewer starts.
    convenience init(_ json: String?, format: FileStore.Format = .json, rows: Int = 24, columns: Int = 80, path: String = "/",
                     unicode: Bool = true, newestFirst: FileStore.NewestFirst? = nil,
                     configure: (inout ViewerOptions) -> Void = { _ in }) throws {
        let folder = ScratchFolder("viewercore")
        let file = folder.file(format == .jsonLines ? "data.jsonl" : "data.json")
        if let json { writeFileInPlace(file, Array(json.utf8)) }
        let store = try FileStore(path: file, options: FileStore.Options(format: format, newestFirst: newestFirst))
        if json != nil { _ = try store.waitForRevision(1, timeoutMilliseconds: 10_000) }
        try self.init(folder: folder, file: file, store: store, format: format, rows: rows, columns: columns,
                      path: path, unicode: unicode, configure: configure)
    }

    /// A viewer of `json` held by a `MemoryStore`: for tests that need revisions, not a file.
    convenience init(memory json: String, rows: Int = 24, columns: Int = 80, path: String = "/", unicode: Bool = true,
                     configure: (inout ViewerOptions) -> Void = { _ in }) throws {
        let memory = try MemoryStore(try JSONDocument(parsing: Array(json.utf8)).root.json, name: "data.json")
        try self.init(folder: ScratchFolder("viewercore"), file: "data.json", store: memory, format: .json,
                      rows: rows, columns: columns, path: path, unicode: unicode, configure: configure)
    }

    /// A viewer of `json` in memory behind a store of rates (as the viewer opens a command's output).
    convenience init(memoryWithRates json: String, rows: Int = 24, columns: Int = 80) throws {
        let memory = try MemoryStore(try JSONDocument(parsing: Array(json.utf8)).root.json, name: "data.json")
        try self.init(folder: ScratchFolder("viewercore"), file: "data.json", store: try RateStore(source: memory), format: .json,
                      rows: rows, columns: columns, path: "/", unicode: true, configure: { _ in })
    }

    private init(folder: ScratchFolder, file: String, store: any LiveStore, format: FileStore.Format,
                 rows: Int, columns: Int, path: String, unicode: Bool, configure: (inout ViewerOptions) -> Void) throws {
        self.folder = folder
        self.file = file
        self.store = store
        canvas = MemoryCanvas(rows: rows, columns: columns)
        var options = ViewerOptions(file: file, format: format, location: try Path(path), animations: false)
        configure(&options)
        let environment = ViewerEnvironment(
            unicode: unicode, colors: .none,
            clock: ViewerClock(now: { [unowned self] in now }, timeOfDay: { "12:00:00" }),
            perform: { [unowned self] effect in effects.append(effect) })
        viewer = Viewer(options: options, store: store, canvas: canvas, environment: environment)
        // A large first window is evaluated off the loop thread: wait for its rows.
        try waitUntil { !$0.contains("reading") }
    }

    deinit { viewer?.stop() }

    /// The screen after a render, one string per line (trailing spaces kept).
    var lines: [String] {
        viewer.render()
        return canvas.lines
    }

    /// The lines below the status bar (prompts, messages), without their trailing spaces,
    /// joined with one space: a message wrapped at its words reads as one line again.
    var messageArea: String {
        let lines = self.lines
        guard let status = lines.lastIndex(where: { $0.contains(" rows ") || $0.contains(" row ") }) else { return "" }
        return lines[(status + 1)...].map { line in String(line.reversed().drop { $0 == " " }.reversed()) }.joined(separator: " ")
    }

    /// The whole screen as text, lines joined with newlines.
    var screen: String { lines.joined(separator: "\n") }

    /// Sends keys, each followed by a tick, as the run loop does.
    func send(_ keys: Key...) {
        for key in keys {
            viewer.handle(key)
            viewer.tick()
        }
    }

    /// Types `text` one character at a time.
    func type(_ text: String) {
        for c in text { send(.character(c)) }
    }

    /// Moves the clock on and ticks.
    func advance(_ seconds: Double) {
        now += seconds
        viewer.tick()
    }

    /// Saves `json` to the file (or publishes it, in memory) and runs the store's loop until the revision after the
    /// current one has been applied.
    func save(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let next = (store.currentRevision?.number ?? 0) + 1
        if let memory { memory.publish(try JSONDocument(parsing: Array(json.utf8))) } else { writeFileByRename(file, Array(json.utf8)) }
        _ = try store.waitForRevision(next, timeoutMilliseconds: 10_000)
        viewer.tick()
    }

    /// Runs the store's loop until the screen satisfies `condition` (rows evaluated off the
    /// loop thread arrive through it); fails after 10 s.
    @discardableResult
    func waitUntil(_ what: String = "the screen", sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: (String) -> Bool) throws -> String {
        var deadline = 0
        while true {
            let text = screen
            if condition(text) { return text }
            guard deadline < 1000 else {
                Issue.record("\(what) never came; the screen:\n\(text)", sourceLocation: sourceLocation)
                throw HarnessTimeout()
            }
            store.waitAndProcessChanges(timeoutMilliseconds: 10)
            viewer.tick()
            deadline += 1
        }
    }

    /// Runs the store's loop until every write the viewer started has finished and been handed
    /// back (writes run off the loop thread); fails after 10 s.
    func waitForWrites(sourceLocation: SourceLocation = #_sourceLocation) throws {
        var waited = 0
        while store.hasWritesInProgress {
            guard waited < 1000 else {
                Issue.record("a write never finished", sourceLocation: sourceLocation)
                throw HarnessTimeout()
            }
            store.waitAndProcessChanges(timeoutMilliseconds: 10)
            waited += 1
        }
        viewer.tick()
    }

    /// The table line (0-based canvas line) whose key column shows `key`.
    func line(ofKey key: String) -> Int? {
        let lines = self.lines
        return lines.firstIndex { line in line.dropFirst(3).split(separator: " ", maxSplits: 1).first.map(String.init) == key }
    }

    /// Each key is on screen, in this order from the top.
    func hasRows(inOrder keys: [String]) -> Bool {
        let found = keys.map { line(ofKey: $0) }
        guard found.allSatisfy({ $0 != nil }) else { return false }
        return zip(found, found.dropFirst()).allSatisfy { $0! < $1! }
    }

    /// The key on the selected line (the line marked with the selection glyph).
    var selectedKey: String? {
        let lines = self.lines
        guard let line = lines.first(where: { $0.hasPrefix("▶") || $0.hasPrefix(">") }) else { return nil }
        return line.dropFirst(3).split(separator: " ", maxSplits: 1).first.map(String.init)
    }
}

struct HarnessTimeout: Error {}

/// `{"items": {"k0000": {"n": 0, "name": "item 0"}, …}}` with `count` children.
func itemsJSON(_ count: Int, digits: Int = 4) -> String {
    var parts: [String] = []
    parts.reserveCapacity(count)
    for i in 0..<count {
        let number = String(i)
        let key = "k" + String(repeating: "0", count: max(0, digits - number.count)) + number
        parts.append("\"\(key)\": {\"n\": \(i), \"name\": \"item \(i)\"}")
    }
    return "{\"items\": {" + parts.joined(separator: ", ") + "}}"
}
