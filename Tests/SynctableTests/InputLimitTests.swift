// Issue 13 item 6: what is not a regular file is refused, and no read grows without a bound.
import Foundation
import Testing
import TestSupport

@Suite struct InputLimitTests {
    @Test("standard input and pipes, as a shell gives them, are read up to --max-size, then refused")
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
    }
}
