// The benchmark runner works on small inputs: its parsers, generator and report.
import Foundation
import JSONTree
import Testing

@Suite struct BenchHarnessTests {
    /// The directory holding the built products (next to this test bundle).
    static var productsDirectory: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("synctable-bench").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }

    static var repositoryRoot: String { #filePath.components(separatedBy: "/Tests/").first! }

    @Test func quickRunReportsParseAndMemoryFigures() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The runner reads Fixtures/bench from its root; give it one whose .build is scratch.
        let fixtures = scratch.appendingPathComponent("Fixtures")
        try FileManager.default.createSymbolicLink(atPath: fixtures.path, withDestinationPath: Self.repositoryRoot + "/Fixtures")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.productsDirectory + "/synctable-bench")
        p.arguments = ["--root", scratch.path, "--quick", "--only", "parse", "--only", "memory"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")

        let report = try JSONDocument(parsing: [UInt8](try Data(contentsOf: scratch.appendingPathComponent(".build/bench/report.json"))))
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
