// Polling where inotify is not used, and the folder itself going away and coming back.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing
import TestSupport

@Suite struct WatchModeTests {
    @Test func pollingSeesInPlaceAndRenameSaves() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"v":0}"#)
        let r = try RecordingStore(path: path, options: .init(watchMode: .polling))
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(r.store.status.watchMode == .polling)
        #expect(r.store.pollDescriptors.count == 1)
        writeInPlace(path, #"{"v":1}"#)
        r.waitForContent(#"{"v":1}"#)
        writeByRename(path, #"{"v":22}"#)
        r.waitForContent(#"{"v":22}"#)
        unlink(path)
        r.run { r.store.status.problem == .missing }
        writeInPlace(path, #"{"v":3}"#)
        r.waitForContent(#"{"v":3}"#)
        #expect(r.store.status.problem == nil)
    }

    /// The folder is deleted: the store polls until it is back, then watches it again.
    @Test func folderRemovedAndRecreated() throws {
        let folder = ScratchFolder()
        let dir = folder.file("sub")
        let path = dir + "/data.json"
        mkdir(dir, 0o755)
        writeInPlace(path, #"{"v":0}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(shell(#"rm -rf "$1""#, dir) == 0)
        r.run { r.store.status.problem == .missing && r.store.status.watchMode == .polling }
        mkdir(dir, 0o755)
        writeInPlace(path, #"{"v":1}"#)
        r.waitForContent(#"{"v":1}"#)
        r.run { r.store.status.watchMode == .inotify }
        // Watching with inotify again: a rename save is seen.
        writeByRename(path, #"{"v":2}"#)
        r.waitForContent(#"{"v":2}"#)
    }

    /// A folder that does not exist yet at start.
    @Test func folderAppearingAfterStart() throws {
        let folder = ScratchFolder()
        let path = folder.file("later/data.json")
        let r = try RecordingStore(path: path)
        r.run { r.store.status.problem == .missing }
        #expect(r.store.status.watchMode == .polling)
        #expect(shell(#"mkdir "$1" && printf '[1,2]' > "$1/data.json""#, folder.file("later")) == 0)
        r.waitForContent("[1,2]")
        r.run { r.store.status.watchMode == .inotify }
    }

    /// A path that is a symbolic link to a file in another folder: saves to the target
    /// (by rename, in that other folder) are seen, and so is re-pointing the link.
    @Test func symlinkTargetInAnotherFolder() throws {
        let folder = ScratchFolder()
        mkdir(folder.file("real"), 0o755)
        let target = folder.file("real/data.json"), other = folder.file("real/other.json")
        let link = folder.file("link.json")
        writeInPlace(target, #"{"v":0}"#)
        writeInPlace(other, #"{"other":true}"#)
        symlink(target, link)
        let r = try RecordingStore(path: link)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        writeByRename(target, #"{"v":1}"#)
        r.waitForContent(#"{"v":1}"#)
        #expect(shell(#"ln -sfn "$1" "$2.new" && mv "$2.new" "$2""#, other, link) == 0)
        r.waitForContent(#"{"other":true}"#)
        writeByRename(other, #"{"other":false}"#)
        r.waitForContent(#"{"other":false}"#)
    }

    /// A relative path, resolved against the working directory (of a separate process, since
    /// tests share this one's).
    @Test func relativePath() throws {
        let folder = ScratchFolder()
        writeInPlace(folder.file("data.json"), "[1]")
        let events = try ChildProcess(["/bin/sh", "-c", #"cd "$1" && exec "$2" events data.json --exit-after-revisions 2"#,
                                       "sh", folder.path, try synctableBinary()])
        #expect(events.readLines(until: isValueLine).count == 2)
        writeByRename(folder.file("data.json"), "[1,2]")
        #expect(events.readLines(until: isValueLine) == [#"{"event":"child_added","key":"1","prevKey":"0","index":1,"value":2}"#, #"{"event":"value","count":2}"#])
        #expect(events.wait() == 0)
    }
}
