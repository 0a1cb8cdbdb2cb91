// The file a write replaces, freed after a command's exit (`freesReplacedFileAfterExit`):
// which process holds it, with what, and that nothing holds it once the command is gone.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
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
    /// The helper holds the replaced file and nothing else of ours: its input is the pipe that
    /// ends with this process, its output goes nowhere. (Other tests start processes too: the
    /// helper is told by the file it holds.)
    @Test func aHelperHoldsTheReplacedFileAndNothingElse() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        let old = inode(file)
        var options = AtomicFile.Options()
        options.freesReplacedFileAfterExit = true
        let outcome = try AtomicFile.modify(file, options: options) { _ in Array(#"{"a": 2}"#.utf8) }
        #expect(outcome.replaced)
        #expect(Disk.text(file) == #"{"a": 2}"#)
        #expect(Disk.entries(folder.path) == ["data.json"])
        let helpers = Processes.holdingRemovedFiles(in: folder.path)
        try #require(helpers.count == 1)
        #expect(Processes.parent(of: helpers[0]) == getpid())
        // Once `cat` waits on its input (the loader may hold a library open while it starts).
        var held = Processes.descriptors(of: helpers[0])
        for _ in 0..<200 where held.keys.sorted() != [0, 1, 2, 3] {
            usleep(10_000)
            held = Processes.descriptors(of: helpers[0])
        }
        #expect(held.keys.sorted() == [0, 1, 2, 3])
        #expect(held[0]?.hasPrefix("pipe:") == true)
        #expect(held[1] == "/dev/null" && held[2] == "/dev/null")
        var st = stat()
        #expect(stat("/proc/\(helpers[0])/fd/3", &st) == 0 && st.st_ino == old && st.st_nlink == 0)
    }

    /// Without the option, no helper: the file is freed as this process lets go of it.
    @Test func withoutTheOptionNoHelperStarts() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        _ = try AtomicFile.modify(file) { _ in Array(#"{"a": 2}"#.utf8) }
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
}
