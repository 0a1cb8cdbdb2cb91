// The benchmark runner works on small inputs: its parsers, generator and report.
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct BenchHarnessTests {
    /// The directory holding the built products (next to this test bundle).
    static var productsDirectory: String {
        URL(fileURLWithPath: (try? builtProduct("synctable-bench")) ?? "synctable-bench").deletingLastPathComponent().path
    }

    static var repositoryRoot: String { #filePath.components(separatedBy: "/Tests/").first! }

    @Test func quickRunReportsParseAndMemoryFigures() throws {
        let (scratch, report) = try runQuickBench(groups: ["parse", "memory"])
        defer { try? FileManager.default.removeItem(at: scratch) }
        let rows = Array(report.root.elements)
        let names = rows.compactMap { $0[key: "figure"]?.stringValue }
        #expect(names.contains("parse twitter.json"))
        #expect(names.contains("parse canada.json"))
        #expect(names.contains { $0.hasPrefix("peak memory") })
        for row in rows {
            let median = row[key: "synctable"]?[key: "median"]?.doubleValue
            #expect((median ?? 0) > 0, "\(row.json.serializedString())")
        }
        let twitter = try #require(rows.first { $0[key: "figure"]?.stringValue == "parse twitter.json" })
        let foundation = try #require(twitter[key: "peers"]?[index: 0])
        #expect(foundation[key: "name"]?.stringValue == "Foundation")
        #expect((foundation[key: "value"]?[key: "median"]?.doubleValue ?? 0) > 0)
        // The generated collection is valid JSON with the promised shape.
        let collection = try JSONDocument(parsing: [UInt8](try Data(contentsOf: scratch.appendingPathComponent(".build/bench/collection-2000.json"))))
        let items = try #require(collection.root[key: "items"])
        #expect(items.count == 2000)
        let first = try #require(items.members.first { _ in true })
        #expect(first.key.stringValue?.utf8.count == 20)
        #expect(first.value.node(at: try Path("/metrics/views"))?.kind == .number)
    }
}

/// Runs `synctable-bench --quick` for `groups` in a scratch root (Fixtures linked in) and
/// returns that root (the caller removes it) and the report it wrote.
func runQuickBench(groups: [String]) throws -> (URL, JSONDocument) {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
        atPath: scratch.appendingPathComponent("Fixtures").path, withDestinationPath: BenchHarnessTests.repositoryRoot + "/Fixtures")
    let result = try runProgram(BenchHarnessTests.productsDirectory + "/synctable-bench",
                                ["--root", scratch.path, "--quick"] + groups.flatMap { ["--only", $0] })
    #expect(result.status == 0, "\(result.output)\(result.errors)")
    let report = try JSONDocument(parsing: [UInt8](try Data(contentsOf: scratch.appendingPathComponent(".build/bench/report.json"))))
    return (scratch, report)
}
