// The synced array's benchmark group runs on small inputs and reports its figures.
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct SyncedArrayBenchSmokeTests {
    /// The folder holding the built products (the test bundle's, or above it).
    static var productsDirectory: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("synctable-bench").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }

    @Test func quickRunReportsTheSyncedArrayFigures() throws {
        let bench = Self.productsDirectory + "/synctable-bench"
        try #require(FileManager.default.isExecutableFile(atPath: bench), "build the benchmark runner first (make test, or swift build --build-tests)")
        let scratch = ScratchFolder()
        let result = try runProgram(bench, ["--root", scratch.path, "--quick", "--only", "syncedarray"])
        let text = result.output + result.errors
        #expect(result.status == 0, "\(text)")
        let report = try JSONDocument(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/.build/bench/report.json"))))
        let rows = Array(report.root.elements)
        let names = rows.compactMap { $0[key: "figure"]?.stringValue }
        for prefix in ["synced array work per revision, limitToLast(50)", "synced array work per revision, one page of 50",
                       "revision latency", "query replacement", "loadMore"] {
            #expect(names.contains { $0.hasPrefix(prefix) }, "\(names)\n\(text)")
        }
        for row in rows {
            #expect((row[key: "synctable"]?[key: "median"]?.doubleValue ?? 0) > 0, "\(row.json.serializedString())")
        }
    }
}
