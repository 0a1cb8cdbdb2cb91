// Bursts of writes are coalesced; a folder full of other activity costs no reads.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing
import TestSupport

/// A JSON object with `count` children and a sequence number, about 100 bytes a child.
func sampleDocument(seq: Int, count: Int) -> String {
    var s = "{\"seq\":\(seq),\"items\":{"
    for i in 0..<count {
        if i > 0 { s += "," }
        s += "\"item\(i)\":{\"name\":\"item number \(i)\",\"score\":\((i * 7919 + seq) % 1000),\"tags\":[\"a\",\"b\"]}"
    }
    return s + "}}"
}

@Suite struct BurstTests {
    /// A separate process saving as fast as it can: every revision is a complete state it
    /// wrote, in order, and the last state is the final revision.
    @Test(arguments: ["rename", "inplace"])
    func burstEndsInTheLastState(_ style: String) throws {
        let (r, stats) = try runBurst(style: style, children: 500, saves: 600)
        // Revisions go forward only, each a complete state the writer wrote.
        let seqs = r.revisions.compactMap { $0.root.child("seq")?.doubleValue }
        #expect(seqs.count == r.revisions.count)
        #expect(seqs == seqs.sorted())
        #expect(r.revisions.allSatisfy { $0.root.child("items")?.count == 500 })
        #expect(r.revisions.count <= stats.parses)
    }

    /// Saves that arrive while the loop is busy cost one read, not one each: at most one
    /// read is in flight and one pending. (The writer finishes before the loop turns, so the
    /// figure does not depend on how fast this machine is.)
    @Test func burstOfLargeSavesIsCoalesced() throws {
        let (r, stats) = try runBurst(style: "rename", children: 5000, saves: 150, waitForWriter: true)
        #expect(stats.parses <= 2, "\(stats)")
        #expect(r.revisions.count <= stats.parses)
    }

    /// Starts a store on a file, runs a python writer doing `saves` saves, and runs the loop until
    /// the last one is the current revision.
    private func runBurst(style: String, children: Int, saves: Int, waitForWriter: Bool = false) throws -> (RecordingStore, FileStore.Statistics) {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, sampleDocument(seq: 0, count: children))
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 10000)
        let script = """
            import os, sys
            path, style, children, saves = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
            items = ",".join('"item%d":{"name":"item number %d","score":%d,"tags":["a","b"]}' % (i, i, i) for i in range(children))
            for seq in range(1, saves + 1):
                text = '{"seq":%d,"items":{%s}}' % (seq, items)
                if style == "rename":
                    with open(path + ".tmp", "w") as f: f.write(text)
                    os.rename(path + ".tmp", path)
                else:
                    with open(path, "w") as f: f.write(text)
            """
        let writer = folder.file("writer.py")
        writeInPlace(writer, script)
        // The writer runs in the background while the loop runs here, or first, to the end.
        let background = waitForWriter ? "" : " &"
        #expect(shell(#"python3 "$1" "$2" "$3" "$4" "$5" >/dev/null 2>&1"# + background, writer, path, style, String(children), String(saves)) == 0)
        r.run(seconds: 60) { r.store.currentRevision?.root.child("seq")?.doubleValue == Double(saves) }
        let stats = r.store.statistics
        print("burst \(style), \(children) children, \(saves) saves: \(stats), \(r.revisions.count) revisions")
        return (r, stats)
    }

    /// Hundreds of other files changing in the same folder cause no reads of ours.
    @Test func otherFilesInTheFolderAreIgnored() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":0}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        let readsBefore = r.store.statistics.reads
        #expect(shell(#"""
            cd "$1" && for i in $(seq 1 300); do
              printf x > "other$i.json"; mv "other$i.json" "o$i.json"; printf y >> "o$i.json"
              printf z > "data.json.$i"; rm "data.json.$i"
            done
            """#, folder.path) == 0)
        writeByRename(path, #"{"v":1}"#)
        r.waitForContent(#"{"v":1}"#)
        r.settle(milliseconds: 100)
        #expect(r.store.statistics.reads - readsBefore == 1)
        #expect(r.contents == [#"{"v":0}"#, #"{"v":1}"#])
    }

    /// More events than the inotify queue holds (overflow): the store re-reads the file.
    @Test func queueOverflowRereadsTheFile() throws {
        var limit = 16384
        if let text = try? String(decoding: #require(readAll("/proc/sys/fs/inotify/max_queued_events")), as: UTF8.self),
            let n = Int(text.filter(\.isNumber)) { limit = n }
        try #require(limit <= 100_000, "max_queued_events is \(limit): too large to overflow in a test")
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":0}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        // Without running the loop, queue more events than fit, then change the file.
        #expect(shell(#"""
            python3 -c '
            import os, sys
            d, n = sys.argv[1], int(sys.argv[2])
            names = [os.path.join(d, "f%d" % i) for i in range(50)]
            for p in names: open(p, "w").close()
            for i in range(n): os.utime(names[i % 50])
            ' "$1" "$2"
            """#, folder.path, String(limit + 1000)) == 0)
        writeInPlace(path, #"{"v":1}"#)
        r.waitForContent(#"{"v":1}"#)
        #expect(r.store.statistics.overflows >= 1)
    }
}

func readAll(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = [UInt8](), chunk = [UInt8](repeating: 0, count: 4096)
    while case let n = read(fd, &chunk, chunk.count), n > 0 { out += chunk[0..<n] }
    return out
}
