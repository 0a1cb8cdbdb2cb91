// `synctable set | update | push | remove` as a user runs them: exit status, messages, and
// a file left untouched on any error.
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

    @Test func setUpdateAndRemove() throws {
        var run = try synctable("set", file, "/b", #"{"c": [true]}"#)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty)
        run = try synctable("update", file, "/", #"{"a": null, "b/c/1": -2.5, "d": "x"}"#)
        #expect(run.status == 0)
        #expect(Disk.text(file) == "{\n  \"list\": {},\n  \"b\": {\n    \"c\": [\n      true,\n      -2.5\n    ]\n  },\n  \"d\": \"x\"\n}\n")
        run = try synctable("remove", file, "/b/c")
        #expect(run.status == 0)
        #expect(Disk.text(file) == "{\n  \"list\": {},\n  \"d\": \"x\"\n}\n")
    }

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

    @Test func pushPrintsTheNewKey() throws {
        let run = try synctable("push", file, "/list", #"{"n": 1}"#)
        #expect(run.status == 0 && run.stderr.isEmpty)
        let key = run.stdout.trimmingNewline
        #expect(key.utf8.count == 20 && PushIDGenerator.timestamp(of: key) != nil)
        #expect(Disk.text(file) == "{\n  \"a\": 1,\n  \"list\": {\n    \"\(key)\": {\n      \"n\": 1\n    }\n  }\n}\n")
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

    @Test func serverValuesFromTheCommandLine() throws {
        for _ in 0..<3 { #expect(try synctable("set", file, "/a", #"{".sv": {"increment": 2}}"#).status == 0) }
        #expect(try synctable("set", file, "/t", #"{".sv": "timestamp"}"#).status == 0)
        let doc = try JSONDocument(parsing: try #require(readAll(file)))
        #expect(doc.root.node(at: try Path("/a"))?.doubleValue == 7)
        let t = try #require(doc.root.node(at: try Path("/t"))?.doubleValue)
        #expect(abs(t - Double(PushIDGenerator.systemMilliseconds())) < 60_000)
    }

    @Test func anInvalidJSONArgumentIsAnArgumentError() throws {
        let before = fingerprint(file)
        let run = try synctable("set", file, "/a", "Bob")
        #expect(run.status == 2)
        #expect(run.stderr == "synctable: error: the value is not valid JSON (line 1, column 1: expected a value, found 'B'); a string needs quotes: '\"Bob\"'\n")
        #expect(fingerprint(file) == before)
        #expect(try synctable("update", file, "/", "[1]").status == 2)
        #expect(try synctable("set", file, "/a~2", "1").status == 2)
        #expect(try synctable("set", file, "/a", "1", "2").status == 2)
        #expect(fingerprint(file) == before)
    }

    @Test func aPathThroughANumberReplacesItWithAnObject() throws {
        let run = try synctable("set", file, "/a/b", "true")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(readFileText(file) == "{\n  \"a\": {\n    \"b\": true\n  },\n  \"list\": {}\n}\n")
        #expect(try synctable("update", file, "/a/b", #"{"c": 1}"#).status == 0)
        #expect(readFileText(file) == "{\n  \"a\": {\n    \"b\": {\n      \"c\": 1\n    }\n  },\n  \"list\": {}\n}\n")
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

    @Test func anInvalidFileIsReportedLikeValidate() throws {
        writeInPlace(file, "{\n  \"a\": 1,\n}\n")
        let before = fingerprint(file)
        let run = try synctable("set", file, "/b", "1")
        #expect(run.status == 1)
        #expect(run.stderr == "\(file):3:1: error: expected a string key, found '}'\n")
        #expect(fingerprint(file) == before)
        let missing = try synctable("remove", folder.file("none.json"), "/a")
        #expect(missing.status == 2 && missing.stderr == "\(folder.file("none.json")): error: no such file\n")
    }
}

extension String {
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }

    // Issue 13 item 4: the increment exited 0 and left the file unchanged.
    @Test func largeIntegersAreIncrementedOrTheWriteFails() throws {
        let folder = ScratchFolder()
        let counter = folder.file("i.json")
        writeInPlace(counter, #"{"c":123456789012345678901234567890,"d":9007199254740993,"e":1e300}"#)
        var run = try synctable("set", counter, "/c", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 0)
        run = try synctable("set", counter, "/d", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 0)
        #expect(Disk.text(counter) == #"{"c":123456789012345678901234567891,"d":9007199254740994,"e":1e300}"#)
        let before = fingerprint(counter)
        run = try synctable("set", counter, "/e", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 1 && run.stderr.contains("cannot be computed exactly"), "\(run)")
        #expect(fingerprint(counter) == before)
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
