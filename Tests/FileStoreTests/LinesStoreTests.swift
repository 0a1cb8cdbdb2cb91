// A JSON Lines file as a live list: appends, partial lines, rotation, truncation, deletion, pipes.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// Appends `bytes` to `path` with one write on an O_APPEND descriptor.
private func append(_ path: String, _ bytes: some Collection<UInt8>) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    precondition(fd >= 0)
    let array = Array(bytes)
    array.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

private func readAll(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    defer { close(fd) }
    var out = [UInt8](), chunk = [UInt8](repeating: 0, count: 65536)
    while case let n = read(fd, &chunk, chunk.count), n > 0 { out += chunk[0..<n] }
    return out
}

/// The records of the complete lines of `bytes`, as a fresh read of the whole file gives them.
private func freshDocument(_ bytes: [UInt8]) -> JSONDocument {
    var builder = JSONLinesBuilder(mode: .lines)
    builder.append(bytes)
    return builder.document()
}

private func lines(_ store: FileStore) -> [JSON?] {
    guard let root = store.currentRevision?.root else { return [] }
    return root.elements.map { $0.isNull ? nil : $0.json }
}

private let jsonLines = FileStore.Options(format: .jsonLines)

@Suite(.serialized) struct LinesStoreTests {
    @Test func appendsInRandomPiecesAlwaysEqualAFreshReadOfTheFile() throws {
        try forEachSeed(12) { seed, rng in
            let folder = ScratchFolder()
            let path = folder.file("log.jsonl")
            append(path, Array(#"{"first":true}"#.utf8) + [0x0A])
            let recording = try RecordingStore(path: path, options: jsonLines)
            recording.run { recording.store.currentRevision != nil }
            var text = [UInt8]()
            for _ in 0..<rng.int(5...20) {
                let value: JSON = .object(JSONObject([
                    ("n", .number(JSONNumber(rng.int(0...1000)))), ("s", .string(rng.pick(["é", "日本", "😀x", "a\tb", ""]))),
                ]))
                text += rng.chance(0.1) ? Array("{oops".utf8) : value.serialized()
                text.append(0x0A)
                if rng.chance(0.1) { text.append(0x0A) }
            }
            var at = 0
            while at < text.count {
                // Cuts fall mid-line and inside UTF-8 sequences: the store must wait for the newline.
                let end = min(text.count, at + rng.int(1...25))
                append(path, text[at..<end])
                at = end
                let expected = freshDocument(readAll(path)).bytes
                recording.run { recording.store.currentRevision?.document.bytes == expected }
                #expect(recording.store.currentRevision?.document.bytes == expected, "seed \(seed)")
            }
            #expect(recording.store.status.lines?.restarts == 0, "seed \(seed)")
        }
    }

    @Test func aShellLoopAppendingIsFollowedToTheLastLine() throws {
        let folder = ScratchFolder()
        let path = folder.file("app.ndjson")
        writeInPlace(path, "")
        let recording = try RecordingStore(path: path, options: FileStore.Options(format: FileStore.Format(path: path)))
        shell(#"i=0; while [ $i -lt 300 ]; do echo "{\"i\":$i}" >> "$1"; i=$((i+1)); done"#, path)
        recording.run { lines(recording.store).count == 300 }
        #expect(lines(recording.store) == (0..<300).map { JSON.object(JSONObject([("i", .number(JSONNumber($0)))])) })
        #expect(recording.store.status.lines?.invalidRecords == 0)
    }

    @Test func aPythonWriterFlushingHalfLinesIsReadWholeLineByLine() throws {
        let folder = ScratchFolder()
        let path = folder.file("py.jsonl")
        writeInPlace(path, "")
        let recording = try RecordingStore(path: path, options: jsonLines)
        var seen: [Int] = []
        recording.store.observeRevisions { revision in seen.append(revision.root.elements.reduce(0) { n, _ in n + 1 }) }
        // Each record is flushed in two halves, with a pause between: never a half record.
        let script = """
            import sys, time
            f = open(sys.argv[1], "a")
            for i in range(20):
                f.write('{"i": %d, "text": "' % i); f.flush(); time.sleep(0.01)
                f.write('h\\u00e9llo"}\\n'); f.flush()
            """
        #expect(spawnAndWait(["/usr/bin/env", "python3", "-c", script, path]) == 0)
        recording.run { lines(recording.store).count == 20 }
        #expect(recording.store.status.lines?.invalidRecords == 0)
        #expect(lines(recording.store).last??["text"] == .string("héllo"))
        #expect(seen == seen.sorted())
    }

    @Test func aBadLineInTheMiddleIsAnErrorRowAndTheLinesAfterItCount() throws {
        let folder = ScratchFolder()
        let path = folder.file("bad.jsonl")
        writeInPlace(path, "{\"a\":1}\n{\"a\":2,}\n{\"a\":3}\n")
        let recording = try RecordingStore(path: path, options: jsonLines)
        recording.run { lines(recording.store).count == 3 }
        let rows = lines(recording.store)
        #expect(rows[1]?[JSONLinesBuilder.errorMember]?["line"] == .number(JSONNumber(2)))
        #expect(rows[1]?[JSONLinesBuilder.errorMember]?["column"] == .number(JSONNumber(8)))
        #expect(rows[2] == .object(JSONObject([("a", .number(JSONNumber(3)))])))
        #expect(recording.store.status.lines?.invalidRecords == 1)
        #expect(recording.store.status.problem == nil)
    }

    @Test func copytruncateStartsTheListOver() throws {
        let folder = ScratchFolder()
        let path = folder.file("rot.jsonl")
        writeInPlace(path, (0..<5).map { "{\"old\":\($0)}\n" }.joined())
        let recording = try RecordingStore(path: path, options: jsonLines)
        recording.run { lines(recording.store).count == 5 }
        // logrotate's copytruncate: copy, truncate in place, and the writer goes on appending.
        #expect(shell(#"cp "$1" "$1.1" && : > "$1" && echo '{"new":0}' >> "$1""#, path) == 0)
        recording.run { lines(recording.store) == [.object(JSONObject([("new", .number(JSONNumber(0)))]))] }
        #expect(recording.store.status.lines?.lastRestart == .truncated)
        // Rewritten past the old length before the store looked: the changed bytes give it away.
        let longer = (0..<9).map { "{\"newer\":\($0)}\n" }.joined()
        writeInPlace(path, longer)
        recording.run { lines(recording.store).count == 9 }
        #expect(lines(recording.store).first == .object(JSONObject([("newer", .number(JSONNumber(0)))])))
        #expect(recording.store.status.lines?.restarts == 2)
    }

    @Test func aRenameAndCreateLikeLogrotateStartsTheListOver() throws {
        let folder = ScratchFolder()
        let path = folder.file("app.jsonl")
        writeInPlace(path, "{\"gen\":1}\n{\"gen\":1}\n")
        let recording = try RecordingStore(path: path, options: jsonLines)
        recording.run { lines(recording.store).count == 2 }
        #expect(shell(#"mv "$1" "$1.1" && echo '{"gen":2}' > "$1""#, path) == 0)
        recording.run { lines(recording.store) == [.object(JSONObject([("gen", .number(JSONNumber(2)))]))] }
        #expect(recording.store.status.lines?.lastRestart == .replaced)
    }

    @Test func deletionEmptiesTheListAndWaitsForTheFile() throws {
        let folder = ScratchFolder()
        let path = folder.file("gone.jsonl")
        writeInPlace(path, "{\"a\":1}\n")
        let recording = try RecordingStore(path: path, options: jsonLines)
        recording.run { lines(recording.store).count == 1 }
        unlink(path)
        recording.run { recording.store.status.problem == .missing }
        #expect(lines(recording.store).isEmpty)
        #expect(recording.store.status.lines?.lastRestart == .deleted)
        writeInPlace(path, "{\"b\":2}\n")
        recording.run { lines(recording.store).count == 1 && recording.store.status.problem == nil }
        #expect(lines(recording.store) == [.object(JSONObject([("b", .number(JSONNumber(2)))]))])
    }

    @Test func aQueryOnTheRecordsGetsOnlyTheNewRowsAsEvents() throws {
        let folder = ScratchFolder()
        let path = folder.file("q.jsonl")
        writeInPlace(path, (0..<10).map { "{\"level\":\"\($0 % 3 == 0 ? "error" : "info")\",\"n\":\($0)}\n" }.joined())
        let store = try FileStore(path: path, options: jsonLines)
        let errors = try store.reference().orderByChild("level").equalTo(.string("error")).limitToLast(2)
        var added: [String] = []
        errors.observe(.childAdded) { added.append($0.key) }
        try store.run(timeoutMilliseconds: 10_000) { added == ["6", "9"] }
        append(path, Array("{\"level\":\"info\",\"n\":10}\n{\"level\":\"error\",\"n\":11}\n".utf8))
        try store.run(timeoutMilliseconds: 10_000) { added == ["6", "9", "11"] }
    }

    @Test func aPipeOfValuesIsAListAndItsEndIsReported() throws {
        let fds = try #require(closeOnExecPipe())
        let store = try FileStore(stream: fds[0])
        let text = "{\"a\":1} {\"a\":\n2}\n[3]\n"
        _ = text.withCString { write(fds[1], $0, strlen($0)) }
        try store.run(timeoutMilliseconds: 10_000) { (store.currentRevision?.root.count ?? 0) == 3 }
        #expect(store.status.lines?.inputEnded == false)
        close(fds[1])
        try store.run(timeoutMilliseconds: 10_000) { store.status.lines?.inputEnded == true }
        #expect(store.currentRevision?.root.json == .array([
            .object(JSONObject([("a", .number(JSONNumber(1)))])), .object(JSONObject([("a", .number(JSONNumber(2)))])),
            .array([.number(JSONNumber(3))]),
        ]))
        close(fds[0])
    }

    @Test func aPipeHoldingOneDocumentIsThatDocument() throws {
        let fds = try #require(closeOnExecPipe())
        let store = try FileStore(stream: fds[0])
        _ = "{\"players\": {\"x\": {\"score\": 1}}}\n".withCString { write(fds[1], $0, strlen($0)) }
        close(fds[1])
        try store.run(timeoutMilliseconds: 10_000) { store.status.lines?.inputEnded == true && store.currentRevision != nil }
        #expect(store.currentRevision?.root.node(at: try Path("/players/x/score"))?.json == .number(JSONNumber(1)))
        close(fds[0])
    }

    /// The store reads a copy of the descriptor it is given and stops with the store: the caller
    /// may close its own at once (and the kernel give the number to another file), and what is
    /// written once the store has gone stays in the pipe for whoever reads it next.
    @Test func aStreamStoreReadsItsOwnCopyOfTheDescriptorAndStopsWithTheStore() throws {
        let fds = try #require(closeOnExecPipe())
        defer { close(fds[1]) }
        let ours = fcntl(fds[0], F_DUPFD_CLOEXEC, 0)
        try #require(ours >= 0)
        defer { close(ours) }
        var store: FileStore? = try FileStore(stream: fds[0])
        close(fds[0])
        _ = "{\"a\":1}\n".withCString { write(fds[1], $0, strlen($0)) }
        try store!.run(timeoutMilliseconds: 10_000) { (store!.currentRevision?.root.count ?? 0) == 1 }
        #expect(store!.status.lines?.inputEnded == false)
        store = nil
        _ = "{\"a\":2}\n".withCString { write(fds[1], $0, strlen($0)) }
        var ready = [pollfd(fd: ours, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&ready, 1, 10_000) == 1, "the store's thread took what was written after the store had gone")
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(ours, &bytes, bytes.count)
        #expect(String(decoding: bytes[0..<max(n, 0)], as: UTF8.self) == "{\"a\":2}\n")
    }

    /// `yes '{"a":1}' | synctable view -`: a writer faster than the store is held by the pipe
    /// once a bounded backlog is read, and goes on as the store takes it.
    @Test func aPipeIsReadNoFasterThanTheStoreTakesIt() throws {
        let fds = try #require(closeOnExecPipe())
        defer { close(fds[0]) }
        let store = try FileStore(stream: fds[0])
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        // Long records: the bytes, not the records, are what the backlog bounds.
        let record = Array(#"{"a":1,"pad":""#.utf8) + [UInt8](repeating: 0x78, count: 240) + Array(#""}"#.utf8) + [0x0A]
        let chunk = [UInt8]((0..<256).flatMap { _ in record })
        var offset = 0
        /// Writes records until the pipe holds the writer for `patience` ms (or `most` bytes):
        /// the bytes written.
        func writeUntilHeld(most: Int, patience: Int32 = 100) -> Int {
            var written = 0
            while written < most {
                let n = chunk[offset...].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
                if n > 0 {
                    written += n
                    offset = (offset + n) % chunk.count
                    continue
                }
                var out = [pollfd(fd: fds[1], events: Int16(POLLOUT), revents: 0)]
                if poll(&out, 1, patience) == 0 { break }
            }
            return written
        }
        // Nothing is taken while the store's loop does not run: the backlog (1 MiB), the reading
        // thread's buffer and the pipe's, and no more.
        let held = writeUntilHeld(most: 64 << 20)
        #expect(held < 2 << 20, "\(held) bytes went into a pipe nobody took from")
        // The store takes it, and the writer goes on.
        try store.run(timeoutMilliseconds: 10_000) { (store.currentRevision?.root.count ?? 0) * record.count >= held - held % record.count }
        #expect(writeUntilHeld(most: 1 << 19) >= 1 << 19, "the writer is still held")
        close(fds[1])
    }
}

@Suite struct LinesNewestFirstTests {
    @Test func aLargeLogsNewestRecordsComeFirstThenTheWholeFile() throws {
        let folder = ScratchFolder()
        let path = folder.file("big.jsonl")
        var text = ""
        for i in 0..<500 { text += i == 497 ? "\n" : i == 3 ? "{oops\n" : "{\"i\":\(i)}\n" }
        writeInPlace(path, text)
        let options = FileStore.Options(format: .jsonLines, newestFirst: FileStore.NewestFirst(records: 5, minimumBytes: 1000))
        let recording = try RecordingStore(path: path, options: options)
        recording.run { recording.revisions.count >= 2 }
        // First: the last 5 children (the blank line 497 is none), with their keys; nothing before.
        let first = recording.revisions[0].root.elements.enumerated().filter { !$0.element.isNull }
        #expect(first.map(\.offset) == [494, 495, 496, 498, 499])
        #expect(first.first?.element.json == .object(JSONObject([("i", .number(JSONNumber(494)))])))
        #expect(recording.statuses.contains { $0.lines?.isPartial == true })
        // Then the whole file, error row included; no longer partial.
        let whole = recording.revisions[1].root.elements.filter { !$0.isNull }
        #expect(whole.count == 499)
        #expect(recording.store.status.lines?.isPartial == false)
        #expect(recording.store.status.lines?.invalidRecords == 1)
        // And it follows appends from there.
        shell("echo '{\"i\":500}' >> \"$1\"", path)
        recording.run { (recording.store.currentRevision?.root.child("500")) != nil }
    }

    /// `onlyNewest`: the newest records, then appends in random pieces, never the older lines. At
    /// every step the window of the newest K children (by key and by default order) equals a
    /// full read's, and lines before the first read stay `null`; a copytruncate starts over.
    @Test func onlyTheNewestRecordsAreReadAndTheLogIsFollowedFromThere() throws {
        try forEachSeed(8) { seed, rng in
            let folder = ScratchFolder()
            let path = folder.file("big.jsonl")
            var text = [UInt8]()
            let firstLines = rng.int(200...400)
            for i in 0..<firstLines { text += Array((rng.chance(0.05) ? "\n" : "{\"i\":\(i)}\n").utf8) }
            writeInPlace(path, String(decoding: text, as: UTF8.self))
            let k = rng.int(1...6)
            let options = FileStore.Options(format: .jsonLines,
                                            newestFirst: FileStore.NewestFirst(records: k, minimumBytes: 1000, onlyNewest: true))
            let recording = try RecordingStore(path: path, options: options)
            let byKey = try Query().orderByKey().limitToLast(k), byDefault = try Query().limitToLast(k)
            func windowsMatch() -> Bool {
                guard let document = recording.store.currentRevision?.document else { return false }
                let full = freshDocument(readAll(path))
                return [byKey, byDefault].allSatisfy { q in
                    Window(query: q, path: .root, document: document).map(\.key) == Window(query: q, path: .root, document: full).map(\.key)
                        && Window(query: q, path: .root, document: document).map(\.value.json)
                        == Window(query: q, path: .root, document: full).map(\.value.json)
                }
            }
            recording.run { windowsMatch() }
            #expect(windowsMatch(), "seed \(seed): first read")
            // The older lines were never read as records.
            let parsed = recording.store.currentRevision?.root.elements.filter { !$0.isNull }.count ?? 0
            #expect(parsed < firstLines / 2, "seed \(seed): \(parsed) records read")
            #expect(recording.revisions.count == 1, "seed \(seed): no second, whole read")
            var appended = [UInt8]()
            for j in 0..<rng.int(3...12) { appended += Array((rng.chance(0.1) ? "\n" : "{\"j\":\(j)}\n").utf8) }
            var at = 0
            while at < appended.count {
                let end = min(appended.count, at + rng.int(1...30))
                append(path, appended[at..<end])
                at = end
                recording.run { windowsMatch() }
                #expect(windowsMatch(), "seed \(seed): after \(at) appended bytes")
            }
            #expect(recording.store.status.lines?.restarts == 0)
            #expect(recording.store.status.lines?.olderUnread == true)
            // Every record, when asked: the whole file, the same windows.
            recording.store.readEveryRecord()
            recording.run { recording.store.status.lines?.olderUnread == false }
            #expect(recording.store.currentRevision?.root.elements.map(\.json) == freshDocument(readAll(path)).root.elements.map(\.json),
                    "seed \(seed): every record")
            #expect(windowsMatch() && recording.store.status.lines?.olderRequested == false)
            // Truncated and written again: read again from its newest records.
            #expect(shell(#": > "$1" && printf '{"new":0}\n{"new":1}\n' >> "$1""#, path) == 0)
            recording.run { windowsMatch() && recording.store.status.lines?.restarts == 1 }
            #expect(windowsMatch(), "seed \(seed): after a truncation")
        }
    }
}
