// The executable stays thin: what a command does without argument parsing belongs in Headless
// (or ViewerCore), where a program and a test can use it.
import Foundation
import Testing
import TestSupport

@Suite("The executable is thin")
struct ExecutableSizeTests {
    /// The most lines `Sources/synctable` may hold (it was 1,476 when Headless took the
    /// commands' work; issue 49 item 9 found it at 1,528).
    static let bound = 1_500

    @Test("Sources/synctable holds at most 1,500 lines of Swift")
    func withinItsBound() throws {
        let root = packageRoot + "/Sources/synctable"
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        var lines: [(file: String, count: Int)] = []
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            lines.append((file, text.utf8.count { $0 == UInt8(ascii: "\n") }))
        }
        let total = lines.reduce(0) { $0 + $1.count }
        let largest = lines.sorted { $0.count > $1.count }.prefix(5).map { "\($0.file) \($0.count)" }.joined(separator: ", ")
        #expect(total <= Self.bound, "Sources/synctable holds \(total) lines (largest: \(largest))")
    }
}
