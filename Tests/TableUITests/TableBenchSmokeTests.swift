import Foundation
import Testing
import TestSupport

/// The benchmark runner's table group runs (quick mode) and meets its bytes target.
@Suite struct TableBenchSmokeTests {
    @Test func tableGroupRuns() throws {
        let bench = try builtProduct("synctable-bench")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tableui-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try runProgram(bench, ["--root", root, "--quick", "--only", "table"])
        let (status, output) = (result.status, result.output)
        #expect(status == 0)
        let insert = try #require(output.split(separator: "\n").first { $0.hasPrefix("terminal bytes: insert") })
        #expect(insert.contains("(met)"))
        #expect(output.contains("table frame: one-row batch + render"))
        #expect(FileManager.default.fileExists(atPath: root + "/.build/bench/report.json"))
    }
}
