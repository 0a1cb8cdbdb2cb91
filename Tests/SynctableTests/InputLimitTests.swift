// Issue 13 item 6: what is not a regular file is refused, and no read grows without a bound.
import Foundation
import Testing
import TestSupport

@Suite struct InputLimitTests {
    @Test("validate and list refuse devices, and what is not a file or a pipe, at once")
    func devicesAreRefused() throws {
        let binary = try synctableBinary()
        for arguments in [["validate", "/dev/zero"], ["validate", "/dev/null"], ["list", "/dev/zero"], ["set", "/dev/zero", "/a", "1"]] {
            let result = try runProgram(binary, arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.errors.contains("not a regular file"), "\(arguments): \(result.errors)")
        }
    }

    @Test("standard input and pipes are read up to --max-size, then refused")
    func streamsAreBounded() throws {
        let binary = try synctableBinary()
        let cases: [(String, Int32, String)] = [
            (#"exec "$1" validate - --max-size 100000 < /dev/zero"#, 2, "longer than 100000 bytes (raise the limit with --max-size)"),
            (#"exec "$1" list - --max-size 100000 < /dev/zero"#, 2, "longer than 100000 bytes"),
            (#"exec "$1" validate --max-size 100000 <(cat /dev/zero)"#, 2, "longer than 100000 bytes"),
            // Within the bound, a pipe is read as a file.
            (#"exec "$1" validate --max-size 8 <(printf '{"a":1}')"#, 0, ""),
            (#"printf '{"a":1}' | exec "$1" validate --max-size 6 -"#, 2, "longer than 6 bytes"),
        ]
        for (script, status, message) in cases {
            let result = try runProgram("/bin/bash", ["-c", script, "bash", binary])
            #expect(result.status == status, "\(script): \(result)")
            #expect(message.isEmpty ? result.errors.isEmpty : result.errors.contains(message), "\(script): \(result.errors)")
        }
        // A regular file over the bound is refused before it is read.
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        try Data(("[" + String(repeating: "1,", count: 1000) + "1]").utf8).write(to: URL(fileURLWithPath: file))
        let result = try runProgram(binary, ["validate", "--max-size", "1000", file])
        #expect(result.status == 2 && result.errors.contains("longer than 1000 bytes"), "\(result)")
        #expect(try runProgram(binary, ["validate", file]).status == 0)
    }
}
