// Issue 13 item 6, run in-process: what is not a regular file is refused, and a file over the
// bound is refused before it is read.
import CommandTestSupport
import Foundation
import Testing
import TestSupport

@Suite struct InputLimitTests {
    @Test("validate and list refuse devices, and what is not a file or a pipe, at once")
    func devicesAreRefused() throws {
        for arguments in [["validate", "/dev/zero"], ["validate", "/dev/null"], ["list", "/dev/zero"], ["set", "/dev/zero", "/a", "1"]] {
            let result = try synctable(arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.errors.contains("not a regular file"), "\(arguments): \(result.errors)")
        }
    }

    @Test("a regular file over --max-size is refused before it is read")
    func filesAreBounded() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        try Data(("[" + String(repeating: "1,", count: 1000) + "1]").utf8).write(to: URL(fileURLWithPath: file))
        let result = try synctable(["validate", "--max-size", "1000", file])
        #expect(result.status == 2 && result.errors.contains("longer than 1000 bytes"), "\(result)")
        #expect(try synctable(["validate", file]).status == 0)
    }
}
