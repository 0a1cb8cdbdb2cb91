// A revision read as pieces of the last one (`SnapshotReader.readSharing`) while another
// process's save changes the file: the read is never a mix of two states of the file.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

@Suite struct SharingReadTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    static let children = 200_000

    /// `{"players": {"p000000": {"score": N, "name": "player 000000"}, …}}`, about 11 MB: the
    /// score of child i is `score(i)`.
    static func document(children: Int = children, _ score: (Int) -> Int) -> [UInt8] {
        var text = #"{"players": {"#
        for i in 0..<children {
            let key = String(1_000_000 + i).dropFirst()
            text += #""p\#(key)": {"score": \#(score(i)), "name": "player \#(key)"}"# + (i + 1 < children ? ",\n" : "")
        }
        return Array((text + "}}\n").utf8)
    }

    static func base(_ i: Int) -> Int { 100_000 + i * 7919 % 800_000 }
    /// The first state, and the edit read as pieces of it: child 7's score a digit longer.
    static let first = document(base)
    static let edited = document { $0 == 7 ? 1_000_000 : base($0) }
    /// The state a save writes during that read, of the edit's length: child 7's score again,
    /// and child 1's (before it, in bytes the read has compared by then and takes from the last
    /// revision) changed. Child 7's bytes, copied from the file after the comparison, with
    /// child 1's from the last revision would be neither state.
    static let saved = document { $0 == 7 ? 1_000_001 : $0 == 1 ? 999_999 : base($0) }

    enum Change: CaseIterable, Sendable {
        case inPlaceSameSize, inPlaceShorter, truncated, appended, renamedOver
    }

    /// The file changes once the read has compared its first 2 MiB: the read finds that (it is
    /// made again), or its bytes are one state the file held — never the first 2 MiB of one
    /// and the rest of another; a file renamed over is read whole as it was. A read after it is
    /// the file as it now is.
    @Test(arguments: Change.allCases, ["tuned", "plain"])
    func aChangeWhileReadingAsPiecesIsNeverTheRevision(_ change: Change, _ engine: String) throws {
        let tuning: EngineTuning = engine == "tuned" ? .tuned : .plain
        let folder = ScratchFolder()
        let path = folder.file("players.json")
        let fired = Mutex(false)
        let reader = SnapshotReader(tuning: tuning, sharedPagesFrom: 1 << 20) { end in
            // After the first chunk of the first half (the chunks are 2 MiB).
            guard end == Posix.hugePageSize, fired.withLock({ done in defer { done = true }; return !done }) else { return }
            switch change {
            case .inPlaceSameSize: overwrite(path, with: Self.saved)
            case .inPlaceShorter: writeFileInPlace(path, Self.document(children: Self.children / 2, Self.base))
            case .truncated: #expect(truncate(path, off_t(Self.edited.count / 2)) == 0)
            case .appended:
                let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
                #expect(write(fd, " ", 1) == 1)
                close(fd)
            case .renamedOver:
                writeFileInPlace(path + ".tmp", Self.saved)
                #expect(rename(path + ".tmp", path) == 0)
            }
        }
        writeFileInPlace(path, Self.first)
        guard case .bytes(let bytes, _) = reader.read(path, comparingWith: nil).snapshot else {
            Issue.record("the first state was not read")
            return
        }
        let last = try JSONDocument(parsing: bytes)
        writeFileInPlace(path, Self.edited)

        let (during, _) = reader.read(path, comparingWith: last.bytes, following: last)
        #expect(fired.withLock { $0 }, "the read was not made as pieces of the last revision")
        let now = try #require(readAll(path))
        switch during {
        case .unstable where change != .renamedOver: break
        case .bytes(let read, _):
            let array = read.array
            #expect(array == Self.edited || array == now, "\(change), \(engine): a mix of two states")
            // The inode read is never written: the read is the state it began with.
            #expect(change != .renamedOver || array == Self.edited, "\(change), \(engine)")
        default: Issue.record("\(change), \(engine): \(during)")
        }

        guard case .bytes(let after, _) = reader.read(path, comparingWith: last.bytes, following: last).snapshot else {
            Issue.record("\(change), \(engine): the file as it now is was not read")
            return
        }
        #expect(after.array == now, "\(change), \(engine)")
    }
}

/// Writes `bytes` over the start of the file at `path` without truncating it first.
private func overwrite(_ path: String, with bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    precondition(fd >= 0, "cannot open \(path)")
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    precondition(written == bytes.count, "short write to \(path)")
}
