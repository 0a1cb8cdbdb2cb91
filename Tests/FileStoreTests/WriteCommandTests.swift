// `synctable set | push` as a process runs them: a file of megabytes (mapped as the program's
// tuning maps it) through its link, a read-only file as another user, a push the store sees,
// and a nesting a crash would end the process over (the rest: Tests/CommandsTests).
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// What a run of the binary printed and returned.
private struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `synctable` with `arguments` (or, when the first is an absolute path, that program),
/// capturing its output.
private func synctable(_ arguments: String...) throws -> Run {
    let folder = ScratchFolder()
    let out = folder.file("out"), err = folder.file("err")
    let argv = arguments.first?.hasPrefix("/") == true ? arguments : [try builtSynctable()] + arguments
    let status = spawnAndWait(["/bin/sh", "-c", #"o=$1; e=$2; shift 2; "$@" >"$o" 2>"$e""#, "sh", out, err] + argv)
    return Run(status: status, stdout: Disk.text(out), stderr: Disk.text(err))
}

/// The file's bytes and identity, to tell that it was not even rewritten.
private func fingerprint(_ path: String) -> String {
    var st = stat()
    stat(path, &st)
    return "\(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(Disk.text(path))"
}

@Suite struct WriteCommandTests {
    let folder = ScratchFolder()
    var file: String { folder.file("data.json") }

    init() { writeInPlace(folder.file("data.json"), "{\n  \"a\": 1,\n  \"list\": {}\n}\n") }

    /// A file of megabytes (mapped, not read: `MappedWriteTests`) written through a symlink:
    /// each write leaves the file's other bytes as they were, its mode, and the link.
    @Test func aLargeFileIsWrittenThroughItsLinkKeepingItsMode() throws {
        let big = folder.file("big.json"), link = folder.file("link.json")
        var text = "{\n  \"players\": {\n"
        for i in 0..<90_000 { text += "    \"p\(100_000 + i)\": {\"score\": \(i), \"name\": \"n\(i)\"},\n" }
        text += "    \"last\": {}\n  }\n}\n"
        #expect(text.utf8.count > 4 << 20)
        writeInPlace(big, text)
        chmod(big, 0o640)
        symlink("big.json", link)
        var run = try synctable("set", link, "/players/p100001/score", "7")
        #expect(run.status == 0 && run.stderr.isEmpty)
        text = text.replacing(#""p100001": {"score": 1,"#, with: #""p100001": {"score": 7,"#)
        run = try synctable("remove", link, "/players/p189998")
        #expect(run.status == 0 && run.stderr.isEmpty)
        text = text.replacing(#"    "p189998": {"score": 89998, "name": "n89998"},"# + "\n", with: "")
        #expect(Disk.text(big) == text)
        var st = stat()
        #expect(lstat(link, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(stat(big, &st) == 0 && st.st_mode & 0o777 == 0o640)
        #expect(Disk.entries(folder.path) == ["big.json", "data.json", "link.json"])
    }

    @Test func pushOntoAnArrayAppendsAtTheNextIndex() throws {
        writeInPlace(file, #"{"log": ["a", "b"]}"#)
        let run = try synctable("push", file, "/log", #""c""#)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.stdout == "2\n")
        #expect(Disk.text(file) == #"{"log": ["a", "b", "c"]}"#)
        // And through a store, as the viewer pushes.
        let store = try FileStore(path: file)
        _ = try store.waitForRevision(1, timeoutMilliseconds: 10_000)
        #expect(try store.push(try Path("/log"), "d") == "3")
        #expect(Disk.text(file) == #"{"log": ["a", "b", "c", "d"]}"#)
    }

    @Test(.enabled(if: geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0, "needs root to run as another user"))
    func aReadOnlyFileIsNotReplaced() throws {
        // As an unprivileged user, in a folder anyone may write to. The clone may lie where that
        // user cannot go (under /root, or a 0700 folder), so the file and a copy of the binary
        // are in a folder of their own under /tmp.
        let open = ScratchFolder("read-only", underTmp: true)
        chmod(open.path, 0o777)
        let binary = open.file("synctable")
        shell(#"cp "$1" "$2" && chmod 755 "$2""#, try builtSynctable(), binary)
        let file = open.write("data.json", #"{"a": 1}"#)
        chmod(file, 0o444)
        let before = fingerprint(file)
        let run = try synctable("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", binary, "set", file, "/b", "1")
        #expect(run.status == 1)
        #expect(run.stderr == "\(file): error: the file is read-only\n")
        #expect(fingerprint(file) == before)
        #expect(Disk.entries(open.path) == ["data.json", "synctable"])
    }

    // Issue 13 items 5 and 9: forbidden keys were written; the nesting limit was an "internal error".
    @Test func forbiddenKeysAndTooDeepWritesFailNamingWhy() throws {
        let folder = ScratchFolder()
        let w = folder.file("w.json")
        writeInPlace(w, "{}")
        let before = fingerprint(w)
        var run = try synctable("set", w, "/y", #"{"a.b":1,"a$b":1,"a#b":1,"a[b":1,"a]b":1,"a/b":1,"":1}"#)
        #expect(run.status == 1 && run.stderr.contains("the key \"a.b\""), "\(run)")
        run = try synctable("set", w, "/a.b", "5")
        #expect(run.status == 1 && run.stderr.contains("the key \"a.b\" holds '.'"), "\(run)")
        run = try synctable("update", w, "/", #"{"x/\u001b]0;t\u0007": 1}"#)
        #expect(run.status == 1 && run.stderr.contains(#"the key "\u001b]0;t\u0007" holds a control character"#), "\(run)")
        let deep = String(repeating: "[", count: 1024) + "1" + String(repeating: "]", count: 1024)
        run = try synctable("set", w, "/a", deep)
        #expect(run.status == 1 && run.stderr.contains("more than the limit of 1024") && !run.stderr.contains("internal error"), "\(run)")
        #expect(fingerprint(w) == before)
    }
}
