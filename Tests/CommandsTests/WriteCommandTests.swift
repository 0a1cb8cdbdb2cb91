// `synctable set | update | push | remove` run in-process: exit status, messages, and a file
// left untouched on any error.
#if canImport(Glibc)
import Glibc
#endif
import CommandTestSupport
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// What a run printed and returned.
private struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `synctable` with `arguments` in-process.
private func synctable(_ arguments: String...) throws -> Run {
    let result = try synctable(arguments)
    return Run(status: result.status, stdout: result.output, stderr: result.errors)
}

/// The file's bytes and identity, to tell that it was not even rewritten.
private func fingerprint(_ path: String) -> String {
    var st = stat()
    stat(path, &st)
    return "\(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(readFileText(path) ?? "")"
}

@Suite struct WriteCommandTests {
    let folder = ScratchFolder()
    var file: String { folder.file("data.json") }

    init() { writeFileInPlace(folder.file("data.json"), Array("{\n  \"a\": 1,\n  \"list\": {}\n}\n".utf8)) }

    @Test func setUpdateAndRemove() throws {
        var run = try synctable("set", file, "/b", #"{"c": [true]}"#)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty)
        run = try synctable("update", file, "/", #"{"a": null, "b/c/1": -2.5, "d": "x"}"#)
        #expect(run.status == 0)
        #expect(readFileText(file) == "{\n  \"list\": {},\n  \"b\": {\n    \"c\": [\n      true,\n      -2.5\n    ]\n  },\n  \"d\": \"x\"\n}\n")
        run = try synctable("remove", file, "/b/c")
        #expect(run.status == 0)
        #expect(readFileText(file) == "{\n  \"list\": {},\n  \"d\": \"x\"\n}\n")
    }

    @Test func pushPrintsTheNewKey() throws {
        let run = try synctable("push", file, "/list", #"{"n": 1}"#)
        #expect(run.status == 0 && run.stderr.isEmpty)
        let key = run.stdout.trimmingNewline
        #expect(key.utf8.count == 20 && PushIDGenerator.timestamp(of: key) != nil)
        #expect(readFileText(file) == "{\n  \"a\": 1,\n  \"list\": {\n    \"\(key)\": {\n      \"n\": 1\n    }\n  }\n}\n")
    }

    @Test func serverValuesFromTheCommandLine() throws {
        for _ in 0..<3 { #expect(try synctable("set", file, "/a", #"{".sv": {"increment": 2}}"#).status == 0) }
        #expect(try synctable("set", file, "/t", #"{".sv": "timestamp"}"#).status == 0)
        let doc = try JSONDocument(parsing: try #require(readFileText(file)))
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

    @Test func anInvalidFileIsReportedLikeValidate() throws {
        writeFileInPlace(file, Array("{\n  \"a\": 1,\n}\n".utf8))
        let before = fingerprint(file)
        let run = try synctable("set", file, "/b", "1")
        #expect(run.status == 1)
        #expect(run.stderr == "\(file):3:1: error: expected a string key, found '}'\n")
        #expect(fingerprint(file) == before)
        let missing = try synctable("remove", folder.file("none.json"), "/a")
        #expect(missing.status == 2 && missing.stderr == "\(folder.file("none.json")): error: no such file\n")
    }
    // Issue 13 item 4: the increment exited 0 and left the file unchanged.
    @Test func largeIntegersAreIncrementedOrTheWriteFails() throws {
        let folder = ScratchFolder()
        let counter = folder.file("i.json")
        writeFileInPlace(counter, Array(#"{"c":123456789012345678901234567890,"d":9007199254740993,"e":1e300}"#.utf8))
        var run = try synctable("set", counter, "/c", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 0)
        run = try synctable("set", counter, "/d", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 0)
        #expect(readFileText(counter) == #"{"c":123456789012345678901234567891,"d":9007199254740994,"e":1e300}"#)
        let before = fingerprint(counter)
        run = try synctable("set", counter, "/e", #"{".sv":{"increment":1}}"#)
        #expect(run.status == 1 && run.stderr.contains("cannot be computed exactly"), "\(run)")
        #expect(fingerprint(counter) == before)
    }
}

extension String {
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
