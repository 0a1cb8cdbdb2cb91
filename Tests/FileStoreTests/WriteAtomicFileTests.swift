// Atomic replacement: permissions, symbolic links, temporary files, the compare-and-swap check,
// and the rename exchange that hands back another writer's file.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

/// Files as the write tests look at them.
enum Disk {
    /// The file's text (empty when unreadable).
    static func text(_ path: String) -> String { readAll(path).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// The permission bits of `path`.
    static func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    /// The names in `folder`, sorted, without `.` and `..`.
    static func entries(_ folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names = [String]()
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

private func write(_ text: String, to path: String) throws -> WriteResult {
    try FileStore.write(JSONWrite.set(Path("/k"), .string(text)), toFile: path)
}

@Suite struct WriteAtomicFileTests {
    @Test(arguments: [0o600, 0o640, 0o604, 0o755] as [mode_t])
    func permissionBitsAreKept(mode: mode_t) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        chmod(file, mode)
        _ = try write("x", to: file)
        #expect(Disk.mode(file) == mode)
        #expect(Disk.text(file) == #"{"a": 1, "k": "x"}"#)
    }

    @Test(.enabled(if: geteuid() == 0, "only root may give a file away"))
    func ownerAndGroupAreKept() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{}")
        chown(file, 4321, 8765)
        chmod(file, 0o2640)  // set-group-id too: chown must not clear it
        _ = try write("x", to: file)
        var st = stat()
        #expect(stat(file, &st) == 0)
        #expect(st.st_uid == 4321 && st.st_gid == 8765)
        #expect(Disk.mode(file) == 0o2640)
    }

    @Test func aSymbolicLinkWritesItsTargetAndStaysALink() throws {
        let folder = ScratchFolder()
        shell("mkdir -p \"$1/real\" && printf '{}' > \"$1/real/data.json\" && ln -s real/data.json \"$1/link.json\"", folder.path)
        _ = try write("via link", to: folder.file("link.json"))
        var st = stat()
        #expect(lstat(folder.file("link.json"), &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(Disk.text(folder.file("real/data.json")).contains("via link"))
        // The temporary file went into the target's folder and is gone.
        #expect(Disk.entries(folder.path + "/real") == ["data.json"])
        #expect(Disk.entries(folder.path) == ["link.json", "real"])
    }

    @Test func noTemporaryFilesAreLeft() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{}")
        for i in 0..<20 { _ = try write("\(i)", to: file) }
        #expect(Disk.entries(folder.path) == ["data.json"])
    }

    @Test func anotherFileUnderAnOldTemporaryNameIsLeftAlone() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{}")
        writeInPlace(folder.file(".data.json.synctable.tmp"), "{half")
        _ = try write("x", to: file)
        #expect(Disk.entries(folder.path) == [".data.json.synctable.tmp", "data.json"])
        #expect(Disk.text(folder.file(".data.json.synctable.tmp")) == "{half")
    }

    @Test func failuresLeaveTheFileUntouched() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": [1]}"#)
        let before = readAll(file)
        #expect(throws: WriteError.edit(JSONEditError(.notAnIndex(write: try Path("/a/b"), array: try Path("/a"), key: "b")))) {
            try FileStore.write(JSONWrite.set(Path("/a/b"), 1), toFile: file)
        }
        #expect(readAll(file) == before)
        writeInPlace(file, #"{"a": "#)
        let invalid = try #require(throws: WriteError.self) { try write("x", to: file) }
        guard case .invalidJSON(let e) = invalid else { Issue.record("got \(invalid)"); return }
        #expect(e.line == 1 && e.column == 7)
        #expect(Disk.text(file) == #"{"a": "#)
        #expect(Disk.entries(folder.path) == ["data.json"])
        #expect(throws: WriteError.missing(path: folder.file("none.json"))) { try write("x", to: folder.file("none.json")) }
        #expect(throws: WriteError.notAFile(path: folder.path)) { try write("x", to: folder.path) }
    }

    @Test(.enabled(if: geteuid() != 0, "root may write any file"))
    func aReadOnlyFileIsNotReplaced() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{}")
        chmod(file, 0o444)
        #expect(throws: WriteError.readOnly(path: file)) { try write("x", to: file) }
        #expect(Disk.text(file) == "{}")
    }

    @Test func aChangeBetweenReadAndCheckIsReappliedToTheNewContent() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"n": 1}"#)
        var calls = 0
        let outcome = try AtomicFile.modify(file) { snapshot throws(WriteError) in
            calls += 1
            // The first time, another writer replaces the file while we work.
            if calls == 1 { writeByRename(file, #"{"n": 10, "other": true}"#) }
            let doc = try! JSONDocument(parsing: snapshot.bytes)
            return try! doc.applying(JSONWrite.set(Path("/n"), [".sv": ["increment": 1]])).bytes.array
        }
        #expect(calls == 2 && outcome.attempts == 2 && outcome.replaced)
        #expect(Disk.text(file) == #"{"n": 11, "other": true}"#)
    }

    @Test func aFileThatNeverSettlesIsAConflict() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "0")
        var calls = 0
        let error = try #require(throws: WriteError.self) {
            try AtomicFile.modify(file, options: .init(maxAttempts: 4)) { _ throws(WriteError) in
                calls += 1
                writeByRename(file, "\(calls)")
                return Array("ours".utf8)
            }
        }
        #expect(error == .conflict(path: file, attempts: 4))
        #expect(calls == 4)
        #expect(Disk.text(file) == "4")  // the other writer's last state, not ours
        #expect(Disk.entries(folder.path) == ["data.json"])
    }

    @Test func aRenameBetweenCheckAndSwapIsHandedBackAndMerged() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"n": 1}"#)
        var options = AtomicFile.Options()
        let fired = HookCounter()
        options.beforeSwap = {
            // Once: another program renames its edit over the file in the last moment.
            if fired.increment() == 1 { writeByRename(file, #"{"n": 5, "theirs": 1}"#) }
        }
        var bases = [String]()
        let outcome = try AtomicFile.modify(file, options: options) { snapshot throws(WriteError) in
            bases.append(String(decoding: snapshot.bytes, as: UTF8.self))
            let doc = try! JSONDocument(parsing: snapshot.bytes)
            return try! doc.applying(JSONWrite.set(Path("/n"), [".sv": ["increment": 1]])).bytes.array
        }
        // Our change was applied again to their content, which was not lost.
        #expect(bases == [#"{"n": 1}"#, #"{"n": 5, "theirs": 1}"#])
        #expect(Disk.text(file) == #"{"n": 6, "theirs": 1}"#)
        #expect(outcome.attempts == 2)
        #expect(Disk.entries(folder.path) == ["data.json"])
    }

    @Test func aDisplacedEditIsPutBackEvenWhenOursNoLongerApplies() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": {}}"#)
        var options = AtomicFile.Options()
        let fired = HookCounter()
        options.beforeSwap = { if fired.increment() == 1 { writeByRename(file, #"{"a": [7]}"#) } }
        let error = try #require(throws: WriteError.self) {
            try FileStore.write(JSONWrite.set(Path("/a/b"), 1), toFile: file, options: options)
        }
        #expect(error == .edit(JSONEditError(.notAnIndex(write: try Path("/a/b"), array: try Path("/a"), key: "b"))))
        #expect(Disk.text(file) == #"{"a": [7]}"#)
        #expect(Disk.entries(folder.path) == ["data.json"])
    }

    @Test func writersInThreadsNeverLoseAnUpdate() async throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"n": 0}"#)
        let perWriter = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<perWriter {
                        try FileStore.write(JSONWrite.set(Path("/n"), [".sv": ["increment": 1]]), toFile: file)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(Disk.text(file) == #"{"n": \#(3 * perWriter)}"#)
    }
}

/// A thread-safe counter for hooks.
final class HookCounter: Sendable {
    private let value = Mutex(0)
    /// Adds one; returns the new value.
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}


