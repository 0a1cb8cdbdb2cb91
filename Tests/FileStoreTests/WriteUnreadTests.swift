// `FileStore.writeUnread`: the command's write, made from the old file's bytes around the values
// spliced in, without a second copy or parse of the file. It must write what `write` writes.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

@Suite struct WriteUnreadTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    /// Random writes (set, remove, past the end of an array, nested, several at once) on files
    /// of random layout: the file `writeUnread` leaves is byte for byte the one `write` leaves,
    /// with the file read or mapped (as a large one is: `MappedWriteTests`), its unchanged bytes
    /// copied by the kernel or written.
    @Test(arguments: [(false, false, EngineTuning.plain), (false, true, .plain), (false, true, .tuned), (true, true, .tuned)])
    func writesWhatTheReadingWriteWrites(mapped: Bool, copiedByKernel: Bool, tuning: EngineTuning) throws {
        let folder = ScratchFolder()
        var options = AtomicFile.Options()
        options.mappingThreshold = mapped ? 1 : .max
        options.kernelCopyThreshold = copiedByKernel ? 1 : .max
        options.tuning = tuning
        let copied = Mutex((files: 0, bytes: 0))
        options.copiedByKernel = { bytes in copied.withLock { $0 = ($0.files + 1, $0.bytes + bytes) } }
        defer {
            let (files, bytes) = copied.withLock { $0 }
            #expect(copiedByKernel ? files > 40 && bytes > files * 20 : bytes == 0, "\(bytes) bytes copied by the kernel into \(files) files")
        }
        forEachSeed(150) { seed, rng in
            let (text, writes) = randomWriteCase(&rng)
            let a = folder.file("a.json"), b = folder.file("b.json")
            writeInPlace(a, text)
            writeInPlace(b, text)
            let read = Result { () throws(WriteError) in try FileStore.write(writes, toFile: a, serverTime: { 42 }) }
            let unread = Result { () throws(WriteError) in try FileStore.writeUnread(writes, toFile: b, options: options, serverTime: { 42 }) }
            switch (read, unread) {
            case (.success(let r), .success(let u)):
                #expect(u.changed == r.changed && u.attempts == 1, "seed \(seed)")
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

    /// The kernel copies the old bytes around the value. From a mapping, those that keep their
    /// place in a page: all of them when the value keeps its length; the bytes before it when it
    /// does not (`write` from the mapping is cheaper for bytes that move within their pages),
    /// unless they move by whole pages. From a file read, all of them (`write` from a read copy
    /// costs more).
    @Test(arguments: [("12345", true, true), ("123456", true, false), (String(repeating: "7", count: 4096 + 5), true, true),
                      ("12345", false, true), ("123456", false, true), ("1", false, true)])
    func theKernelCopiesTheUnchangedBytes(value: String, mapped: Bool, suffixCopied: Bool) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        let before = #"{"pad": ""# + String(repeating: "x", count: 50_000) + #"", "n": "#
        let after = #", "more": ""# + String(repeating: "y", count: 50_000) + #""}"#
        writeInPlace(file, before + "54321" + after)
        var options = AtomicFile.Options()
        options.mappingThreshold = mapped ? 1 : .max
        options.kernelCopyThreshold = 1
        options.tuning = mapped ? .tuned : .plain
        let copied = Mutex([Int]())
        options.copiedByKernel = { bytes in copied.withLock { $0.append(bytes) } }
        let outcome = try FileStore.writeUnread(JSONWrite.set(try Path("/n"), .number(try #require(JSONNumber(text: value)))), toFile: file, options: options)
        #expect(outcome.changed && outcome.attempts == 1 && Disk.text(file) == before + value + after)
        #expect(copied.withLock { $0 } == [before.utf8.count + (suffixCopied ? after.utf8.count : 0)])
    }

    /// The kernel copies the file as it is when it copies: another process's write in place
    /// just before the copy, undone just after it (the same bytes, size and time as read, so
    /// that the file's identity does not tell), is seen by the watch, and the edit made again;
    /// its bytes never reach the file. Neither engine reads the file again to check it (it is
    /// watched from before its read): only the watch can tell.
    @Test(arguments: [EngineTuning.plain, .tuned])
    func aWriteUnderTheKernelsCopyIsSeenThoughItIsUndone(tuning: EngineTuning) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        let original = counterFile(1, "a"), foreign = counterFile(1, "b")
        writeInPlace(file, original)
        var options = readAndKernelCopied(tuning)
        // 0: before the first copy; 1: the foreign bytes in; 2: undone.
        let stage = Mutex(0)
        options.beforeKernelCopy = {
            if stage.withLock({ stage in stage == 0 && { stage = 1; return true }() }) { overwriteKeepingTime(file, foreign) }
        }
        options.copiedByKernel = { _ in
            if stage.withLock({ stage in stage == 1 && { stage = 2; return true }() }) { overwriteKeepingTime(file, original) }
        }
        let outcome = try FileStore.writeUnread(JSONWrite.set(try Path("/n"), 2), toFile: file, options: options)
        try #require(stage.withLock { $0 } == 2, "the kernel copied nothing (no inotify, or not a local file system?)")
        #expect(outcome.changed && outcome.attempts == 2)
        let edited = Disk.text(file) == counterFile(2, "a")
        #expect(edited, "the file is not the original with the edit")
    }

    /// Another process's write in place just after the read, of the same length and with the
    /// file's time given back (so that the identity does not tell), is seen by the watch kept
    /// since before the read: the edit, which depends on what was read, is made again on the
    /// new bytes, and the other process's edit is not lost.
    @Test(arguments: [EngineTuning.plain, .tuned])
    func aWriteJustAfterTheReadIsSeenThoughItKeepsTheTime(tuning: EngineTuning) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, counterFile(1, "a"))
        var options = readAndKernelCopied(tuning)
        options.afterRead = { attempt in
            if attempt == 1 { overwriteKeepingTime(file, counterFile(5, "a")) }
        }
        let copied = Mutex(0)
        options.copiedByKernel = { bytes in copied.withLock { $0 += bytes } }
        let outcome = try FileStore.writeUnread(toFile: file, options: options) { document throws(WriteError) in
            JSONWrite.set(try! Path("/n"), .number(JSONNumber((document.root.child("n")?.doubleValue ?? 0) + 1)))
        }
        try #require(copied.withLock { $0 } > 0, "the kernel copied nothing (no inotify, or not a local file system?)")
        #expect(outcome.changed && outcome.attempts == 2)
        let edited = Disk.text(file) == counterFile(6, "a")
        #expect(edited, "the file is not the other process's edit with ours on it")
    }

    /// A file replaced by another of the same length between its opening for the kernel's copy
    /// and its read: the kernel copies nothing from the file opened (the file replaced), and
    /// the edit is made on the bytes read, in one attempt.
    @Test(arguments: [EngineTuning.plain, .tuned])
    func aFileReplacedJustBeforeItsReadIsNotCopiedFrom(tuning: EngineTuning) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, counterFile(1, "a"))
        var options = readAndKernelCopied(tuning)
        options.beforeRead = { attempt in
            if attempt == 1 { writeByRename(file, counterFile(1, "b")) }
        }
        let copied = Mutex([Int]())
        options.copiedByKernel = { bytes in copied.withLock { $0.append(bytes) } }
        let outcome = try FileStore.writeUnread(JSONWrite.set(try Path("/n"), 2), toFile: file, options: options)
        #expect(outcome.changed && outcome.attempts == 1 && copied.withLock { $0 } == [0])
        let edited = Disk.text(file) == counterFile(2, "b")
        #expect(edited, "the file is not the replacing file with the edit")
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

/// `{"n": n, "text": "…"}` with 20,000 of `letter`: a file whose bytes around `n` the kernel
/// copies, and another process can change without changing its length.
private func counterFile(_ n: Int, _ letter: Character) -> String {
    #"{"n": \#(n), "text": ""# + String(repeating: letter, count: 20_000) + #""}"#
}

/// Options that read the file (never map it) and have the kernel copy every piece it keeps.
private func readAndKernelCopied(_ tuning: EngineTuning) -> AtomicFile.Options {
    var options = AtomicFile.Options()
    options.mappingThreshold = .max
    options.kernelCopyThreshold = 1
    options.tuning = tuning
    return options
}

/// Writes `text` over the file in place (the same length) and gives it back the modification
/// time it had, as a writer can: its identity then looks unchanged.
private func overwriteKeepingTime(_ path: String, _ text: String) {
    var st = stat()
    precondition(stat(path, &st) == 0)
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    precondition(fd >= 0)
    defer { close(fd) }
    precondition(Array(text.utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == text.utf8.count)
    var times = [st.st_atim, st.st_mtim]
    precondition(futimens(fd, &times) == 0)
}

/// One number, string or boolean set, or one removal: its new file is started while the parse
/// still checks the rest of the file (an early write), and kept only when it is what the
/// finished edit writes.
@Suite struct EarlyWriteTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    struct Case: CustomStringConvertible {
        let text: String
        let path: String
        let value: JSON
        /// Whether the early write is the file written.
        let early: Bool
        var description: String { "\(path) = \(value) in \(text)" }
    }

    static let cases = [
        Case(text: #"{"a": {"x": 1}, "b": 2}"#, path: "/a/x", value: 5, early: true),
        Case(text: #"{"a": [1, 2, 3]}"#, path: "/a/1", value: "x", early: true),
        Case(text: #"{"\u0061": {"x": 1}}"#, path: "/a/x", value: 2.5, early: true),
        Case(text: #"{"a": {"x": 1}, "a": {"x": 2}}"#, path: "/a/x", value: 5, early: false),  // the later "a" is the value
        Case(text: #"{"a": 1.0}"#, path: "/a", value: 1, early: false),  // equal: nothing written
        Case(text: #"{"a": 7, "b": [7]}"#, path: "/a", value: 7, early: false),  // the same bytes: never started
        Case(text: #"{"a": 1}"#, path: "/c", value: "new", early: true),  // added at the end: after all the parse passed
        Case(text: #"{"c": {}, "a": [1, 2]}"#, path: "/c/d", value: 1, early: false),  // added before what the parse passed
        Case(text: #"{"a": {"x": [1]}}"#, path: "/a/x", value: true, early: true),  // replaces an array, after all the parse passed
        Case(text: #"{"a": 1, "b": tru}"#, path: "/a", value: 2, early: false),  // invalid after the value
        Case(text: #"{"a": "x" "b": 1}"#, path: "/a", value: 2, early: false),
        // Removals foreseen: the member and the separator after it, once the next key is read.
        Case(text: #"{"a": {"x": 1}, "b": 2}"#, path: "/a", value: nil, early: true),
        Case(text: #"{"\u0061": [1], "b": 2}"#, path: "/a", value: nil, early: true),
        Case(text: #"{"z": 0, "a": 1,\#n "b": 2}"#, path: "/a", value: nil, early: true),
        Case(text: #"{"a": 1, "b": 2, "a": 3}"#, path: "/a", value: nil, early: false),  // both go
        Case(text: #"{"x": {"only": 1, "n": null}}"#, path: "/x/only", value: nil, early: false),  // x goes
        Case(text: #"{"a": 1, "b": 2}"#, path: "/c", value: nil, early: false),  // nothing to remove
        Case(text: #"{"a": 1, "b": tru}"#, path: "/a", value: nil, early: false),
    ]

    /// Each case leaves what the reading `write` leaves (or fails as it does), with no temporary
    /// file left, named or not.
    @Test(arguments: cases, [true, false])
    func earlyWritesAreKeptOnlyWhenTheyAreTheEdit(_ c: Case, unnamed: Bool) throws {
        let folder = ScratchFolder()
        let a = folder.file("a.json"), b = folder.file("b.json")
        writeInPlace(a, c.text)
        writeInPlace(b, c.text)
        var options = AtomicFile.Options()
        options.unnamedTemporaries = unnamed
        let writes = JSONWrite.set(try Path(c.path), c.value)
        let read = Result { () throws(WriteError) in try FileStore.write(writes, toFile: a, serverTime: { 42 }) }
        let unread = Result { () throws(WriteError) in
            try FileStore.writeUnreadOutcome(writes, toFile: b, options: options, serverTime: { 42 })
        }
        switch (read, unread) {
        case (.success(let r), .success(let u)):
            #expect(u.wroteEarly == c.early, "\(c)")
            #expect((u.written != nil) == r.changed && Disk.text(b) == Disk.text(a), "\(c): \(Disk.text(b))")
        case (.failure(let r), .failure(let u)):
            #expect(u == r && Disk.text(b) == c.text, "\(c)")
        default:
            Issue.record("\(c): \(read) but \(unread)")
        }
        #expect(Disk.entries(folder.path) == ["a.json", "b.json"])
    }

    /// Removals and writes of containers copy the file as the parse passes it, up to the path,
    /// and go on with the edit from there: near the end, at the start, and with a duplicate
    /// key whose removal empties a container above (the change then starts before the path).
    @Test(arguments: [
        (#"{"a": 1, "b": [1, 2], "c": {"d": 3}}"#, "/c", nil as JSON?),
        (#"{"a": 1, "b": [1, 2], "c": {"d": 3}}"#, "/a", nil),
        (#"{"a": 1, "b": [1, 2], "c": {"d": 3}}"#, "/b/1", nil),
        (#"{"a": {"only": 1}, "a": {"only": 2}}"#, "/a/only", nil),
        (#"{"z": [5, 6], "a": {"only": 1}}"#, "/a/only", nil),
        (#"{"a": 1, "c": {"d": 3}}"#, "/c", ["e": [1, 2]] as JSON),
    ])
    func removalsAndContainersAreCopiedUpToThePath(_ text: String, _ path: String, _ value: JSON?) throws {
        let folder = ScratchFolder()
        let a = folder.file("a.json"), b = folder.file("b.json")
        writeInPlace(a, text)
        writeInPlace(b, text)
        let writes = JSONWrite.set(try Path(path), value ?? .null)
        _ = try FileStore.write(writes, toFile: a)
        let outcome = try FileStore.writeUnreadOutcome(writes, toFile: b, options: .init(), serverTime: { 42 })
        #expect(Disk.text(b) == Disk.text(a), "\(Disk.text(b))")
        // Nothing is passed before the path in these small files, so every change starts after.
        #expect(outcome.wroteEarly)
        #expect(Disk.entries(folder.path) == ["a.json", "b.json"])
    }

    /// A push copies the file as the parse passes it and adds the child at the end of its
    /// parent: under an object (a new push id) or an array (its next index), in a file of
    /// megabytes or a small one, missing parents made. Each leaves what a reading write of the
    /// same child leaves, and no temporary file.
    @Test(arguments: [
        (#"{"list": {"a": 1, "b": 2}, "z": 0}"#, "/list"),
        (#"{"list": [1, 2, 3], "z": 0}"#, "/list"),
        (#"{"z": 0}"#, "/list/inner"),
        (#"{"list": {}}"#, "/list"),
        (#"{"list": 7}"#, "/list"),
    ])
    func pushesAreCopiedAsTheParseGoes(_ text: String, _ parent: String) throws {
        let folder = ScratchFolder()
        let a = folder.file("a.json"), b = folder.file("b.json")
        writeInPlace(a, text)
        writeInPlace(b, text)
        let value: JSON = ["name": "new", "n": 1]
        let under = try Path(parent)
        let pushed = Result { () throws(WriteError) in try FileStore.push(value, under: under, toFile: b) }
        switch pushed {
        case .success(let key):
            _ = try FileStore.write(JSONWrite.set(under.child(key), value), toFile: a)
            #expect(Disk.text(b) == Disk.text(a))
            #expect(key.hasPrefix("-") || text.contains("[1, 2, 3]") && key == "3", "\(key)")
        case .failure(let error):
            let read = Result { () throws(WriteError) in try FileStore.write(JSONWrite.set(under.child("k"), value), toFile: a) }
            #expect(throws: WriteError.self) { try read.get() }
            #expect(Disk.text(b) == text, "\(error)")
        }
        #expect(Disk.entries(folder.path) == ["a.json", "b.json"])
    }

    @Test func aPushToALargeObjectIsWrittenEarly() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        var text = "{\n  \"players\": {\n"
        for i in 0..<50_000 { text += "    \"p\(i)\": {\"score\": \(i)},\n" }
        text += "    \"last\": {}\n  },\n  \"after\": 1\n}\n"
        writeInPlace(file, text)
        let parent = try Path("/players")
        let outcome = try FileStore.writeUnread(
            toFile: file, options: .init(), serverTime: { 42 }, reading: parent.child("-new"), early: .copying
        ) { _ throws(WriteError) in JSONWrite.set(parent.child("-new"), 5) }
        #expect(outcome.wroteEarly && outcome.written != nil)
        #expect(Disk.text(file) == text.replacing("\"last\": {}\n", with: "\"last\": {},\n    \"-new\": 5\n"))
        #expect(Disk.entries(folder.path) == ["big.json"])
    }

    /// In a file of megabytes, the new file is written while the parse goes on, whether the
    /// value is near the start or near the end (the file then follows the parse as it goes),
    /// whether it is set or removed, and whether the file is read or mapped.
    @Test(arguments: ["p000003", "p049997"], [(false, false), (true, false), (false, true), (true, true)])
    func largeFilesAreWrittenEarlyWhereverTheValueIs(_ key: String, _ how: (removing: Bool, mapped: Bool)) throws {
        let removing = how.removing
        var options = AtomicFile.Options()
        options.mappingThreshold = how.mapped ? 1 : .max
        options.tuning = how.mapped ? .tuned : .plain
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        var text = "{\n  \"players\": {\n"
        for i in 0..<50_000 { text += "    \"p\(String(repeating: "0", count: 6 - String(i).count))\(i)\": {\"score\": \(i), \"name\": \"n\(i)\"},\n" }
        text += "    \"last\": {}\n  }\n}\n"
        writeInPlace(file, text)
        let n = Int(key.dropFirst())!
        let old = removing ? "    \"\(key)\": {\"score\": \(n), \"name\": \"n\(n)\"},\n" : "\"\(key)\": {\"score\": \(n),"
        let new = removing ? "" : "\"\(key)\": {\"score\": \"top\","
        let write = removing ? JSONWrite(Path(keys: ["players", key]), .null) : JSONWrite(Path(keys: ["players", key, "score"]), "top")
        let outcome = try FileStore.writeUnreadOutcome([write], toFile: file, options: options, serverTime: { 42 })
        #expect(outcome.wroteEarly && outcome.written != nil && outcome.attempts == 1)
        #expect(Disk.text(file) == text.replacing(old, with: new))
        #expect(Disk.entries(folder.path) == ["big.json"])
    }
}

/// A file's text and writes to it: arrays and objects, nulls in arrays, nested paths.
private func randomWriteCase(_ rng: inout SplitMix64) -> (String, [JSONWrite]) {
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
