// Appending a record to a JSON Lines file, on a disk that runs out of room halfway.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct AppendLineTests {
    /// Another program's half-written last line is never split: an append waits for it to end
    /// (and then goes after it), or refuses, leaving the file as it was. A whole record that only
    /// lacks its newline gets one.
    @Test func anUnfinishedLineOfAnotherWriterIsNeverSplit() throws {
        let folder = ScratchFolder()
        let log = folder.write("log.jsonl", "{\"n\":1}\n{\"ext\":\"partial")
        let record = JSON.object(JSONObject([("n", .number(JSONNumber(2)))]))
        #expect(throws: WriteError.unfinishedLine(path: log, milliseconds: FileStore.unfinishedLineWait)) {
            try FileStore.appendLine(record, toFile: log)
        }
        #expect(folder.read("log.jsonl") == "{\"n\":1}\n{\"ext\":\"partial")
        // The other writer ends its line while the append waits: the record goes after it.
        let finisher = Thread {
            usleep(100_000)
            let fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC)
            _ = "\"}\n".withCString { write(fd, $0, 3) }
            close(fd)
        }
        finisher.start()
        #expect(try FileStore.appendLine(record, toFile: log) == 2)
        let line = String(decoding: record.serialized(), as: UTF8.self) + "\n"
        #expect(folder.read("log.jsonl") == "{\"n\":1}\n{\"ext\":\"partial\"}\n" + line)
        // A whole last record without its newline: ours goes on a line of its own, at once.
        let ended = folder.write("ended.jsonl", "{\"n\":1}")
        #expect(try FileStore.appendLine(record, toFile: ended) == 1)
        #expect(folder.read("ended.jsonl") == "{\"n\":1}\n" + line)
    }

    /// A line left unfinished longer than `abandonedLineSeconds` (its writer killed mid-line) is
    /// ended with a newline and kept as it is; the record goes after it, and the log takes
    /// records again.
    @Test func anAbandonedLineIsEndedAndKept() throws {
        let folder = ScratchFolder()
        let log = folder.write("log.jsonl", "{\"n\":1}\n{\"killed\":\"mid")
        var then = timespec()
        clock_gettime(CLOCK_REALTIME, &then)
        then.tv_sec -= FileStore.abandonedLineSeconds + 1
        #expect(utimensat(AT_FDCWD, log, [then, then], 0) == 0)
        let record = JSON.object(JSONObject([("n", .number(JSONNumber(2)))]))
        #expect(try FileStore.appendLine(record, toFile: log) == 2)
        #expect(folder.read("log.jsonl") == "{\"n\":1}\n{\"killed\":\"mid\n{\"n\":2}\n")
    }

    /// A 64 KiB tmpfs, full but for a few pages: a 20 KB record is written in part, then the
    /// disk refuses the rest. The file is cut back to its old bytes, and the error says why and
    /// where. Mounting needs root (and the right to mount here); without it the test says so.
    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskLeavesNoTornLine() throws {
        let folder = ScratchFolder("append-full", underTmp: true)
        let disk = folder.file("disk")
        mkdir(disk, 0o755)
        guard mount("tmpfs", disk, "tmpfs", 0, "size=64k") == 0 else {
            print("AppendLineTests: no tmpfs mounted at \(disk) (\(String(cString: strerror(errno)))): not tested")
            return
        }
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let log = disk + "/log.jsonl"
        let before = Array(#"{"n":1}"#.utf8) + [0x0A] + Array(#"{"n":2}"#.utf8) + [0x0A]
        writeInPlace(log, String(decoding: before, as: UTF8.self))
        // Fill the disk, then give back two pages.
        let filler = open(disk + "/filler", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let page = [UInt8](repeating: 0x20, count: 4096)
        while page.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        var st = stat()
        fstat(filler, &st)
        #expect(ftruncate(filler, off_t(st.st_size) - 8192) == 0)
        close(filler)

        let record = JSON.object(JSONObject([("pad", .string(String(repeating: "x", count: 20_000)))]))
        #expect {
            try FileStore.appendLine(record, toFile: log)
        } throws: { error in
            let message = "\(error)"
            return message.contains(log) && message.contains("No space left on device")
        }
        #expect(readAll(log) == before)
        // With room again, the same record is appended whole, as line 2.
        unlink(disk + "/filler")
        #expect(try FileStore.appendLine(record, toFile: log) == 2)
        #expect(readAll(log) == before + record.serialized() + [0x0A])
    }
}
