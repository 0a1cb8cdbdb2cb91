// The file a write replaces, freed after a command's exit (`freesReplacedFileAfterExit`):
// which process holds it, with what, and that nothing holds it once the command is gone; and a
// write killed at any instant leaves no temporary name behind.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import FileStore
import JSONTree
import Testing
import TestSupport

/// Processes as `/proc` shows them.
private enum Processes {
    /// The ids of all processes.
    static var all: [pid_t] { Disk.entries("/proc").compactMap { pid_t($0) } }

    /// The parent of `pid`, from `/proc/PID/stat` (its name, in parentheses, may hold spaces).
    static func parent(of pid: pid_t) -> pid_t? {
        let stat = Disk.text("/proc/\(pid)/stat")
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// Where each open descriptor of `pid` leads (`readlink` of `/proc/PID/fd/N`).
    static func descriptors(of pid: pid_t) -> [Int32: String] {
        var links = [Int32: String]()
        for name in Disk.entries("/proc/\(pid)/fd") {
            guard let fd = Int32(name) else { continue }
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            if n >= 0 { links[fd] = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return links
    }

    /// The processes holding a removed file of `folder` open.
    static func holdingRemovedFiles(in folder: String) -> [pid_t] {
        all.filter { pid in
            descriptors(of: pid).values.contains { $0.hasPrefix(folder + "/") && $0.hasSuffix(" (deleted)") }
        }
    }
}

private func inode(_ path: String) -> ino_t {
    var st = stat()
    return stat(path, &st) == 0 ? st.st_ino : 0
}

@Suite struct ReplacedFileReleaseTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    /// The helper holds the replaced file and the folder and nothing else of ours: its input is
    /// the pipe that ends with this process, its output goes nowhere. (Other tests start
    /// processes too: the helper is told by the file it holds.)
    @Test func aHelperHoldsTheReplacedFileAndNothingElse() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        let old = inode(file)
        var options = AtomicFile.Options()
        options.freesReplacedFileAfterExit = true
        options.tuning = .tuned
        let outcome = try AtomicFile.modify(file, options: options) { _ in Array(#"{"a": 2}"#.utf8) }
        #expect(outcome.replaced)
        #expect(Disk.text(file) == #"{"a": 2}"#)
        #expect(Disk.entries(folder.path) == ["data.json"])
        // One helper of ours (a child of this process); while it starts `cat`, its own child may
        // hold the file for a moment too.
        let helpers = Processes.holdingRemovedFiles(in: folder.path).filter { Processes.parent(of: $0) == getpid() }
        try #require(helpers.count == 1)
        // Once the shell waits for `cat` (the loader may hold a library open while it starts):
        // the pipe, /dev/null, the old file and the folder (the shell keeps the last two where
        // it likes while `cat` runs without them), nothing else.
        let folderPath = URL(fileURLWithPath: folder.path).resolvingSymlinksInPath().path
        func settled(_ held: [Int32: String]) -> Bool {
            held.values.contains { $0.hasSuffix(" (deleted)") } && held.values.contains(folderPath)
                && held.values.allSatisfy { $0.hasPrefix("pipe:") || $0 == "/dev/null" || $0.hasSuffix(" (deleted)") || $0 == folderPath }
        }
        var held = Processes.descriptors(of: helpers[0])
        for _ in 0..<200 where !settled(held) {
            usleep(10_000)
            held = Processes.descriptors(of: helpers[0])
        }
        #expect(settled(held), "\(held)")
        #expect(held[0]?.hasPrefix("pipe:") == true)
        #expect(held[1] == "/dev/null" && held[2] == "/dev/null")
        let oldFile = held.first { $0.value.hasSuffix(" (deleted)") }?.key
        var st = stat()
        #expect(oldFile.map { stat("/proc/\(helpers[0])/fd/\($0)", &st) == 0 } == true && st.st_ino == old && st.st_nlink == 0)
    }

    /// Without the option, or with it but plain, no helper: the file is freed as this process
    /// lets go of it.
    @Test(arguments: [false, true]) func withoutTheOptionOrPlainNoHelperStarts(option: Bool) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        var options = AtomicFile.Options()
        options.freesReplacedFileAfterExit = option
        options.tuning = option ? .plain : .tuned
        _ = try AtomicFile.modify(file, options: options) { _ in Array(#"{"a": 2}"#.utf8) }
        #expect(Disk.text(file) == #"{"a": 2}"#)
        #expect(Processes.holdingRemovedFiles(in: folder.path).isEmpty)
    }

    /// Each writing command replaces the file, and once it has exited nothing holds the old
    /// one: the helper has let go of it.
    @Test(arguments: [["set", "/players/p1/score", "5"], ["push", "/players", #"{"score": 3}"#], ["remove", "/players/p0"],
                      ["update", "/players/p1", #"{"score": 9}"#]])
    func afterACommandNothingHoldsTheOldFile(arguments: [String]) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"players": {"p0": {"score": 1}, "p1": {"score": 2}}}"#)
        let old = inode(file)
        let status = spawnAndWait([try builtSynctable(), arguments[0], file] + arguments.dropFirst())
        #expect(status == 0)
        #expect(inode(file) != old)
        #expect(Disk.entries(folder.path) == ["data.json"])
        var holders = Processes.holdingRemovedFiles(in: folder.path)
        for _ in 0..<500 where !holders.isEmpty {
            usleep(10_000)
            holders = Processes.holdingRemovedFiles(in: folder.path)
        }
        #expect(holders.isEmpty, "still held by \(holders) 5 s after the command exited")
    }

    /// `set` killed with SIGKILL at random instants of its run, 20 times: once each command
    /// and its helper are gone, the folder holds the file alone, whole (the old value or the
    /// new). Without the helper, a kill between the swap and the removal of the old file left
    /// a full copy of it under a temporary name.
    @Test func aWriteKilledAtAnyInstantLeavesNoName() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{\"items\": {" + (0..<20_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + "}}")
        let binary = try builtSynctable()
        let start = monotonicNanoseconds()
        #expect(spawnAndWait([binary, "set", file, "/items/k1", "0"]) == 0)
        let span = Int((monotonicNanoseconds() - start) / 1_000)
        var rng = SplitMix64(seed: 14)
        for run in 1...20 {
            let pid = try spawnProgram([binary, "set", file, "/items/k1", "\(run)"]).pid
            usleep(UInt32(rng.int(0...span)))
            kill(pid, SIGKILL)
            waitForExit(pid)
        }
        var entries = Disk.entries(folder.path)
        for _ in 0..<500 where entries != ["data.json"] {
            usleep(10_000)
            entries = Disk.entries(folder.path)
        }
        #expect(entries == ["data.json"])
        let value = try JSONDocument(parsing: Disk.text(file)).root.child("items")?.child("k1")?.doubleValue
        #expect(value.map { $0 >= 0 && $0 <= 20 } == true, "\(String(describing: value))")
    }

    /// A name a killed writer left (its process ended, the file a minute old) is removed by the
    /// next write of the file, plain too; a newer one, or one of a live process, is not.
    @Test func theNextWriteRemovesANameAKilledWriterLeft() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        let ended = try spawnProgram(["/bin/true"]).pid
        waitForExit(ended)
        let old = ".data.json.synctable-\(ended)-1f.tmp", new = ".data.json.synctable-\(ended)-2f.tmp"
        let live = ".data.json.synctable-\(getpid())-3f.tmp", other = ".other.json.synctable-\(ended)-4f.tmp"
        for name in [old, new, live, other] { writeInPlace(folder.file(name), #"{"a": 0}"#) }
        for name in [old, live, other] {
            var times = [timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, folder.file(name), &times, 0) == 0)
        }
        var options = AtomicFile.Options()
        options.tuning = .plain
        _ = try AtomicFile.modify(file, options: options) { _ in Array(#"{"a": 2}"#.utf8) }
        #expect(Disk.entries(folder.path).sorted() == [new, live, other, "data.json"].sorted())
    }
}
