// Writes beside hostile or busy neighbours: temporary names someone else holds, another user in
// a shared folder, and writers of other files in the same folder.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

/// Runs `body` on another thread; its result, or nil when it has not finished within `seconds`
/// (it is then left running: the write it tests hangs).
private func finishing<T: Sendable>(within seconds: Int, _ body: @escaping @Sendable () -> T) -> T? {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
    return result.withLock { $0 }
}

private func setA(_ value: Int, in file: String, options: AtomicFile.Options = .init()) -> Result<WriteResult, WriteError> {
    Result { () throws(WriteError) in
        try FileStore.write(JSONWrite.set(try! Path("/a"), .number(JSONNumber(value))), toFile: file, options: options)
    }
}

/// Runs `command` as user `uid` (and group `gid`) with `setpriv`; its exit status.
private func runAs(uid: Int, gid: Int, _ argv: [String]) -> Int32 {
    spawnAndWait(["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"] + argv)
}

@Suite struct WriteNeighbourTests {
    // Item 1: the temporary file's name was fixed, and a file of that name that could not be
    // removed made every write spin forever.
    @Test(arguments: [true, false])
    func aTemporaryNameTakenByAnUnremovableFolderDoesNotStopTheWrite(unnamed: Bool) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        // The old fixed name, and a leftover of ours, held by folders that unlink cannot remove.
        shell(#"mkdir -p "$1/.data.json.synctable.tmp/x" "$1/.data.json.synctable-1-0.tmp/x""#, folder.path)
        var options = AtomicFile.Options()
        options.unnamedTemporaries = unnamed
        let fixed = options
        let result = try #require(finishing(within: 60) { setA(2, in: file, options: fixed) }, "the write hangs")
        #expect(throws: Never.self) { try result.get() }
        #expect(Disk.text(file) == #"{"a": 2}"#)
        #expect(Disk.entries(folder.path) == [".data.json.synctable-1-0.tmp", ".data.json.synctable.tmp", "data.json"])
    }

    @Test(arguments: [true, false])
    func temporaryFilesAreNewEachTime(unnamed: Bool) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        var options = AtomicFile.Options()
        options.unnamedTemporaries = unnamed
        let names = Mutex<Set<String>>([])
        let path = folder.path
        options.beforeSwap = { @Sendable in
            let temporaries = Disk.entries(path).filter { $0 != "data.json" }
            names.withLock { $0.formUnion(temporaries) }
        }
        for i in 0..<5 { _ = try setA(i, in: file, options: options).get() }
        let seen = names.withLock { $0 }
        #expect(seen.count == 5 && seen.allSatisfy { $0.hasPrefix(".data.json.synctable-") && $0.hasSuffix(".tmp") }, "\(seen)")
        #expect(Disk.entries(folder.path) == ["data.json"])
    }

    // Item 1 with a real second user: in a sticky shared folder (as /tmp), a file that another
    // user created under the temporary name cannot be removed by the writer.
    @Test(.enabled(if: geteuid() == 0, "needs root to act as two other users (setpriv); skipped"))
    func anotherUsersFileInASharedFolderDoesNotStopTheWrite() throws {
        let binary = try builtSynctable()
        let folder = ScratchFolder(underTmp: true)
        let shared = folder.file("shared")
        let file = shared + "/f.json"
        shell(#"mkdir "$1" && chmod 1777 "$1" && cp "$2" "$1/synctable" && chmod 755 "$1/synctable""#, shared, binary)
        writeInPlace(file, #"{"a": 1}"#)
        let writer = 4242, planter = 65534  // planter: nobody
        chown(file, uid_t(writer), gid_t(writer))
        // The folder above must be searchable by both users.
        chmod(folder.path, 0o755)
        #expect(runAs(uid: planter, gid: planter, ["/usr/bin/touch", shared + "/.f.json.synctable.tmp"]) == 0)
        let status = try #require(finishing(within: 60) {
            runAs(uid: writer, gid: writer, ["/usr/bin/timeout", "50", shared + "/synctable", "set", file, "/a", "2"])
        }, "the write hangs")
        #expect(status == 0)
        #expect(Disk.text(file) == #"{"a": 2}"#)
        var st = stat()
        #expect(stat(shared + "/.f.json.synctable.tmp", &st) == 0 && st.st_uid == planter, "the other user's file is left alone")
    }

    // Item 11: the lock was the folder's, so a write held up every other file's in the folder.
    @Test func writersOfDifferentFilesInOneFolderDoNotWaitForEachOther() throws {
        let folder = ScratchFolder()
        let a = folder.file("a.json"), b = folder.file("b.json")
        writeInPlace(a, #"{"a": 1}"#)
        writeInPlace(b, #"{"a": 1}"#)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let slow = DispatchSemaphore(value: 0)
        let slowResult = Mutex<Result<AtomicFile.Outcome, WriteError>?>(nil)
        DispatchQueue.global().async {
            let r = Result { () throws(WriteError) in
                try AtomicFile.modify(a) { _ throws(WriteError) in
                    inside.signal()
                    _ = release.wait(timeout: .now() + 60)
                    return Array(#"{"a": 2}"#.utf8)
                }
            }
            slowResult.withLock { $0 = r }
            slow.signal()
        }
        #expect(inside.wait(timeout: .now() + 60) == .success)
        // a.json's writer is between its read and its swap, holding a.json's lock.
        #expect(throws: Never.self) { try setA(3, in: b, options: .init(lockTimeoutMilliseconds: 500)).get() }
        #expect(Disk.text(b) == #"{"a": 3}"#)
        // A second writer of a.json itself still waits for the first.
        #expect(throws: WriteError.lockTimeout(path: a, milliseconds: 300)) {
            try setA(4, in: a, options: .init(lockTimeoutMilliseconds: 300)).get()
        }
        release.signal()
        #expect(slow.wait(timeout: .now() + 60) == .success)
        #expect(throws: Never.self) { try slowResult.withLock { $0 }!.get() }
        #expect(Disk.text(a) == #"{"a": 2}"#)
    }

    // The lock follows the file: a writer that waited on the inode another writer's swap
    // replaced locks the new file and writes on top of its content.
    @Test func aWriterWaitingForTheLockWritesOnTheNewFile() throws {
        let folder = ScratchFolder()
        let file = folder.file("n.json")
        writeInPlace(file, #"{"n": 0}"#)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let attempts = Mutex<[Int]>([])
        let increment: JSON = [".sv": ["increment": 1]]
        DispatchQueue.global().async {
            let r = try? AtomicFile.modify(file) { snapshot throws(WriteError) in
                inside.signal()
                _ = release.wait(timeout: .now() + 60)
                let document = try! JSONDocument(parsing: snapshot.bytes)
                return try! document.applying(JSONWrite.set(try! Path("/n"), increment), serverTime: 0).bytes
            }
            attempts.withLock { $0.append(r?.attempts ?? -1) }
            first.signal()
        }
        #expect(inside.wait(timeout: .now() + 60) == .success)
        DispatchQueue.global().async {
            let r = try? FileStore.write(JSONWrite.set(try! Path("/n"), increment), toFile: file)
            attempts.withLock { $0.append(r?.attempts ?? -1) }
            second.signal()
        }
        // The second writer is waiting for the lock (it cannot finish while the first holds it).
        #expect(second.wait(timeout: .now() + .milliseconds(300)) == .timedOut)
        release.signal()
        #expect(first.wait(timeout: .now() + 60) == .success)
        #expect(second.wait(timeout: .now() + 60) == .success)
        // Both applied once each: the second read the first's file, no conflict retries.
        #expect(attempts.withLock { $0 } == [1, 1], "\(attempts.withLock { $0 })")
        #expect(Disk.text(file) == #"{"n": 2}"#)
    }
}
