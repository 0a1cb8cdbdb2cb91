// A separate process makes thousands of random edits with random save styles while listeners
// keep their own arrays from the events; everything they see must be a state that was written.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// The states the writer logged, by sequence number (read as the log grows).
final class WrittenStates {
    private let fd: Int32
    private var states: [Int: ArraySlice<UInt8>] = [:]
    private var pending = [UInt8]()

    init(logPath: String) {
        // Created here so that it can be opened before the writer starts.
        fd = open(logPath, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
    }

    deinit { close(fd) }

    /// The exact bytes written for `seq`.
    func state(_ seq: Int) -> ArraySlice<UInt8>? {
        if states[seq] == nil { readMore() }
        return states[seq]
    }

    /// Reads what was appended since the last call; lines start with `{"seq":N,`.
    private func readMore() {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while case let n = read(fd, &chunk, chunk.count), n > 0 { pending += chunk[0..<n] }
        var lineStart = 0
        let prefix = Array(#"{"seq":"#.utf8)
        pending.withUnsafeBufferPointer { p in
            // memchr: the log holds megabytes, and this runs on the loop thread in a debug build.
            while lineStart < p.count, let nl = memchr(p.baseAddress! + lineStart, 0x0A, p.count - lineStart) {
                let end = p.baseAddress!.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                let line = p[lineStart..<end]
                if line.starts(with: prefix) {
                    let digits = line.dropFirst(prefix.count).prefix { (48...57).contains($0) }
                    if let seq = Int(String(decoding: digits, as: UTF8.self)) { states[seq] = ArraySlice(line) }
                }
                lineStart = end + 1
            }
        }
        pending.removeFirst(lineStart)
    }
}

/// One listener: a query, its rows rebuilt from child events, and its rows rebuilt from batches.
final class TortureListener {
    let reference: StoreReference
    var replay = ReplayedRows()
    var batchKeys = [String]()
    var mismatches = [String]()

    init(_ reference: StoreReference) {
        self.reference = reference
        for type in [EventType.childRemoved, .childAdded, .childMoved, .childChanged] {
            reference.observe(type) { [unowned self] in replay.apply($0) }
        }
        reference.observe(.value) { [unowned self] window in
            if !replay.matches(window) { mismatches.append("events do not replay to the window of \(reference.query)") }
        }
        reference.observeChanges { [unowned self] change in
            batchKeys = change.batch.apply(to: batchKeys) { change.new.key(at: $0) }
            if batchKeys != change.new.keys { mismatches.append("batch does not rebuild the window of \(reference.query)") }
        }
    }

    func matches(_ document: JSONDocument) -> Bool {
        let window = Window(query: reference.query, path: reference.path, document: document)
        return replay.matches(window) && batchKeys == window.keys
    }
}

/// Runs the torture writer against a store and checks what the listeners saw.
/// - Returns: milliseconds from the writer's last save to the revision with its content.
func runTorture(folder: String, seed: UInt64, edits: Int, children: Int) throws -> Double {
    let path = folder + "/data.json", log = folder + "/states.log", done = folder + "/done"
    let written = WrittenStates(logPath: log)
    let store = try FileStore(path: path)
    let items = try store.reference("/items")
    let listeners = [
        TortureListener(try items.orderByChild("score")),
        TortureListener(try items.orderByChild("score").limitToLast(10)),
        TortureListener(try items.orderByKey().limitToFirst(7)),
        TortureListener(try items.orderByChild("name").startAt("item 1").endAt("item 5")),
    ]
    var seqs = [Int]()
    var foreign = [String]()
    var deliveredAt = [Int: UInt64]()
    store.observeRevisions { revision in
        let seq = Int(revision.root.child("seq")?.doubleValue ?? -1)
        seqs.append(seq)
        deliveredAt[seq] = monotonicNanoseconds()
        if written.state(seq).map({ !$0.elementsEqual(revision.document.bytes) }) ?? true {
            foreign.append("revision \(revision.number) (seq \(seq)) is not a state the writer wrote")
        }
    }
    let script = packageRoot + "/Fixtures/filestore/torture_writer.py"
    #expect(shell(#"python3 "$1" "$2" "$3" "$4" "$5" "$6" "$7" >/dev/null 2>&1 &"#,
        script, path, log, done, String(seed), String(edits), String(children)) == 0)
    try store.run(timeoutMilliseconds: 120_000) { access(done, F_OK) == 0 }
    let doneText = String(decoding: readAll(done) ?? [], as: UTF8.self).split(separator: " ")
    let lastWrite = UInt64(doneText.first ?? "") ?? 0
    let final = try JSONDocument(parsing: readAll(path) ?? [])
    #expect(final.root.child("seq")?.doubleValue == Double(edits))
    try store.run(timeoutMilliseconds: 10_000) { listeners.allSatisfy { $0.matches(final) } }

    let context = "seed \(seed), \(edits) edits, \(store.statistics)"
    #expect(foreign.isEmpty, "\(foreign.prefix(3)) — \(context)")
    #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "revisions out of order — \(context)")
    for listener in listeners { #expect(listener.mismatches.isEmpty, "\(listener.mismatches.prefix(3)) — \(context)") }
    let lag = Double(Int64(bitPattern: (deliveredAt[edits] ?? 0) &- lastWrite)) / 1e6
    print("torture \(context): \(seqs.count) revisions, final revision \((lag * 10).rounded() / 10) ms after the last save")
    return lag
}

@Suite struct TortureTests {
    /// Fast: on tmpfs when there is one, so thousands of saves take a second or two.
    @Test func thousandsOfMixedSaves() throws {
        let long = getenv("SYNCTABLE_TORTURE").map { String(cString: $0) } == "long"
        var seed = UInt64(monotonicNanoseconds() % 1_000_000)
        if let text = getenv("SYNCTABLE_TORTURE_SEED"), let s = UInt64(String(cString: text)) { seed = s }
        let onShm = access("/dev/shm", W_OK) == 0
        let base = onShm ? "/dev/shm/synctable-torture-\(getpid())" : ScratchFolder().path + "-torture"
        shell(#"rm -rf "$1" && mkdir -p "$1""#, base)
        defer { shell(#"rm -rf "$1""#, base) }
        _ = try runTorture(folder: base, seed: seed, edits: long ? 30_000 : 3000, children: 200)
    }

    /// The same on the disk the tests live on (slower saves, real journaling), fewer edits.
    @Test func mixedSavesOnDisk() throws {
        let long = getenv("SYNCTABLE_TORTURE").map { String(cString: $0) } == "long"
        let folder = ScratchFolder()
        _ = try runTorture(folder: folder.path, seed: 42, edits: long ? 5000 : 300, children: 100)
    }
}
