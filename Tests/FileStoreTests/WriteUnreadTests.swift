// `FileStore.writeUnread`: the command's write, made from the old file's bytes around the values
// spliced in, without a second copy or parse of the file. It must write what `write` writes.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import Testing
import TestSupport

@Suite struct WriteUnreadTests {
    /// Random writes (set, remove, past the end of an array, nested, several at once) on files
    /// of random layout: the file `writeUnread` leaves is byte for byte the one `write` leaves.
    @Test func writesWhatTheReadingWriteWrites() throws {
        let folder = ScratchFolder()
        forEachSeed(150) { seed, rng in
            let (text, writes) = randomCase(&rng)
            let a = folder.file("a.json"), b = folder.file("b.json")
            writeInPlace(a, text)
            writeInPlace(b, text)
            let read = Result { () throws(WriteError) in try FileStore.write(writes, toFile: a, serverTime: { 42 }) }
            let unread = Result { () throws(WriteError) in try FileStore.writeUnread(writes, toFile: b, serverTime: { 42 }) }
            switch (read, unread) {
            case (.success(let r), .success(let u)):
                #expect(u.changed == r.changed, "seed \(seed)")
                #expect(Disk.text(b) == Disk.text(a), "seed \(seed): \(writes)")
                #expect(Array(Disk.text(b).utf8) == r.document.bytes.array, "seed \(seed)")
            case (.failure(let r), .failure(let u)):
                #expect(u == r, "seed \(seed)")
                #expect(Disk.text(b) == text, "seed \(seed)")
            default:
                Issue.record("seed \(seed): \(read) but \(unread) for \(writes) on \(text)")
            }
        }
    }

    /// A write that changes nothing leaves the very same file (not even rewritten).
    @Test func aWriteOfTheSameValueLeavesTheFile() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "[1, 2.0, 3]")
        var before = stat(), after = stat()
        stat(file, &before)
        let outcome = try FileStore.writeUnread(JSONWrite.set(try Path("/1"), 2), toFile: file)
        stat(file, &after)
        #expect(!outcome.changed && outcome.attempts == 1)
        #expect(before.st_ino == after.st_ino && Disk.text(file) == "[1, 2.0, 3]")
    }

    /// Another writer's edit between our read and our swap: ours is applied again to its content.
    @Test func aChangeMeanwhileIsReappliedToTheNewContent() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"n": [1, 2, 3]}"#)
        var calls = 0
        let path = try Path("/n/0")
        let outcome = try FileStore.writeUnread(toFile: file) { _ throws(WriteError) in
            calls += 1
            if calls == 1 { writeByRename(file, #"{"n": [1, 2, 3, 4], "other": true}"#) }
            return JSONWrite.set(path, 10)
        }
        #expect(outcome.changed && outcome.attempts == 2 && calls == 2)
        #expect(Disk.text(file) == #"{"n": [10, 2, 3, 4], "other": true}"#)
    }
}

/// A file's text and writes to it: arrays and objects, nulls in arrays, nested paths.
private func randomCase(_ rng: inout SplitMix64) -> (String, [JSONWrite]) {
    let values: [JSON] = [1, 2.5, "x", true, nil, [:], [], ["a": 1], [1, nil, 3], ["z": ["y": 2]]]
    func pick() -> JSON { rng.pick(values) }
    let count = rng.int(0..<6)
    let array = JSON.array((0..<count).map { _ in pick() })
    let object = JSON.object(JSONObject((0..<rng.int(0..<5)).map { (key: "k\($0)", value: pick()) }))
    let root: JSON = ["list": array, "map": object]
    let text = String(decoding: root.serialized(rng.int(0..<2) == 0 ? .compact : .pretty), as: UTF8.self)
    var writes = [JSONWrite]()
    for _ in 0...rng.int(0..<2) {
        let path: Path
        switch rng.int(0..<4) {
        case 0: path = Path(keys: ["list", String(rng.int(0..<(count + 3)))])
        case 1: path = Path(keys: ["map", "k\(rng.int(0..<6))"])
        case 2: path = Path(keys: ["map", "k\(rng.int(0..<3))", "z"])
        default: path = Path(keys: ["list", String(rng.int(0..<(count + 1))), "a"])
        }
        writes.append(JSONWrite(path, rng.int(0..<3) == 0 ? .null : pick()))
    }
    return (text, writes)
}
