// `synctable serve` refusing to start: a clear message and status 2.
import Testing
import TestSupport

@Suite struct ServeCommandTests {
    /// Runs `synctable serve ARGUMENTS` expecting it to stop at once; its status and standard error.
    private func failedStart(_ arguments: [String]) throws -> (status: Int32, error: String) {
        let child = try ChildProcess([try builtProduct("synctable"), "serve"] + arguments)
        child.closeInput()
        let status = child.wait()
        return (status, child.standardError())
    }

    @Test func aFileThatCannotBeServedIsAnError() throws {
        let folder = ScratchFolder()
        let missing = try failedStart([folder.file("nothere.json"), "--port", "0"])
        #expect(missing.status == 2)
        #expect(missing.error == "synctable: error: \(folder.file("nothere.json")): file not found\n")
        let bad = folder.write("bad.json", "{\"a\": 1,\n")
        let invalid = try failedStart([bad, "--port", "0"])
        #expect(invalid.status == 2)
        #expect(invalid.error.hasPrefix("synctable: error: \(bad): invalid JSON at line 2, column 1"), "\(invalid.error)")
    }

    @Test func anAddressInUseIsAnError() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"a": 1}"#)
        let first = try TestServer(file: file)
        let second = try failedStart([file, "--port", String(first.port)])
        #expect(second.status == 2)
        #expect(second.error.hasPrefix("synctable: error: cannot listen on 127.0.0.1:\(first.port): "), "\(second.error)")
        #expect(first.stop() == 0)
    }

    @Test func badOptionsAreUsageErrors() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"a": 1}"#)
        for options in [["--port", "70000"], ["--max-body-bytes", "0"], ["--stream-backlog", "0"]] {
            let run = try failedStart([file] + options)
            #expect(run.status == 2, "\(options)")
            #expect(run.error.contains(options[0]), "\(options): \(run.error)")
        }
    }
}
