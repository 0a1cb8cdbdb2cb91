// Every way a writer saves the file becomes a revision: in place, by rename, vim, sed, python, jq.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing
import TestSupport

/// A real program saving `{"n":2}` over `{"n":1}` ($1 is the file).
struct SaveStyle: CustomTestStringConvertible, Sendable {
    let name: String
    let command: String
    /// Whether the save replaces the file's inode (a rename) rather than writing it in place;
    /// nil when it depends (a deleted file's inode number may be reused at once).
    let replacesInode: Bool?
    var testDescription: String { name }

    static let all: [SaveStyle] = [
        SaveStyle(name: "shell redirect (truncate, write)", command: #"printf '{"n":2}' > "$1""#, replacesInode: false),
        SaveStyle(name: "cp over the file", command: #"printf '{"n":2}' > "$1.new" && cp "$1.new" "$1" && rm "$1.new""#, replacesInode: false),
        SaveStyle(name: "python json.dump in place", command: #"python3 -c 'import json,sys; json.dump({"n": 2}, open(sys.argv[1], "w"))' "$1""#, replacesInode: false),
        SaveStyle(name: "temporary file and mv", command: #"printf '{"n":2}' > "$1.tmp" && mv "$1.tmp" "$1""#, replacesInode: true),
        SaveStyle(name: "sed -i", command: #"sed -i 's/1/2/' "$1""#, replacesInode: true),
        SaveStyle(name: "jq to a temporary file, then mv", command: #"jq -c '.n = 2' "$1" > "$1.jq" && mv "$1.jq" "$1""#, replacesInode: true),
        SaveStyle(name: "python os.replace (atomic write)", command: #"python3 -c 'import json,os,sys; f=open(sys.argv[1]+".x","w"); json.dump({"n":2},f); f.close(); os.replace(sys.argv[1]+".x", sys.argv[1])' "$1""#, replacesInode: true),
        // vim's save outside /tmp; `backupskip=` keeps it so wherever the repository is cloned.
        SaveStyle(name: "vim default save (rename away, create)", command: #"vim -u NONE -N -es -c 'set backupskip= backupcopy=no' -c 's/1/2/' -c 'wq' "$1""#, replacesInode: true),
        SaveStyle(name: "delete and re-create", command: #"rm "$1" && printf '{"n":2}' > "$1""#, replacesInode: nil),
    ]
}

@Suite struct SaveStyleTests {
    @Test func firstReadIsRevisionOne() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let r = try RecordingStore(path: path)
        let revision = try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(revision.number == 1)
        #expect(revision.root.child("a")?.doubleValue == 1)
        #expect(r.store.status == StoreStatus(revision: 1, problem: nil, watchMode: .inotify))
    }

    @Test(arguments: SaveStyle.all)
    func saveBecomesRevision(_ style: SaveStyle) throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"n":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(shell(style.command, path) == 0)
        r.run { r.store.currentRevision?.root.child("n")?.doubleValue == 2 }
        let first = try #require(r.revisions.first), last = try #require(r.revisions.last)
        if let replaces = style.replacesInode { #expect((first.identity.inode != last.identity.inode) == replaces) }
        #expect(r.store.status.problem == nil)
        // Every revision is a state the writer wrote: the old one or the new one.
        for revision in r.revisions {
            let n = revision.root.child("n")?.doubleValue
            #expect(n == 1 || n == 2)
        }
    }

    /// Under /tmp vim skips its backup and writes in place: the store sees that too.
    @Test func vimUnderTmpWritesInPlace() throws {
        let folder = ScratchFolder(underTmp: true)
        let path = folder.file("data.json")
        writeInPlace(path, #"{"n":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(shell(#"vim -u NONE -N -es -c 's/1/2/' -c 'wq' "$1""#, path) == 0)
        r.run { r.store.currentRevision?.root.child("n")?.doubleValue == 2 }
        #expect(r.revisions.first?.identity.inode == r.revisions.last?.identity.inode)
    }

    @Test func fileAppearingAfterStart() throws {
        let folder = ScratchFolder()
        let path = folder.file("late.json")
        let r = try RecordingStore(path: path)
        r.run { r.store.status.problem == .missing }
        #expect(r.store.currentRevision == nil)
        writeByRename(path, #"{"late":true}"#)
        r.waitForContent(#"{"late":true}"#)
        #expect(r.store.status == StoreStatus(revision: 1, problem: nil, watchMode: .inotify))
    }

    @Test func fileRemovedIsReportedAndAwaited() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        unlink(path)
        r.run { r.store.status.problem == .missing }
        // The last good revision stays current while the file is away.
        #expect(r.currentText == #"{"v":1}"#)
        writeInPlace(path, #"{"v":2}"#)
        r.waitForContent(#"{"v":2}"#)
        #expect(r.store.status.problem == nil)
        #expect(r.revisions.map(\.number) == [1, 2])
    }

    /// A save that replaces the file quickly is not reported as a missing file or as invalid
    /// JSON on the way: those states last less than the settle delay.
    @Test func completedSavesReportNoTransientProblem() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":0}"#)
        let r = try RecordingStore(path: path, options: .init(settleMilliseconds: 2000))
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        for v in 1...30 {
            switch v % 3 {
            case 0:  // vim: rename the old file away, create the new one
                rename(path, path + "~")
                writeInPlace(path, #"{"v":\#(v)}"#)
                unlink(path + "~")
            case 1:  // delete and re-create, written in two pieces
                unlink(path)
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                _ = write(fd, "{\"v\":", 5)
                usleep(2000)
                var rest = "\(v)}"
                rest.withUTF8 { p in _ = write(fd, p.baseAddress, p.count) }
                close(fd)
            default:
                writeInPlace(path, #"{"v":\#(v)}"#)
            }
            r.waitForContent(#"{"v":\#(v)}"#)
        }
        #expect(r.statuses.allSatisfy { $0.problem == nil })
    }

    @Test func touchAndChmodMakeNoRevision() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(shell(#"touch "$1" && chmod 600 "$1" && cp -p "$1" "$1.b" && mv "$1.b" "$1""#, path) == 0)
        r.settle()
        #expect(r.revisions.count == 1)
    }
}
