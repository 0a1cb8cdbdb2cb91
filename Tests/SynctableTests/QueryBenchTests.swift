// The query benchmarks run on small inputs and report every figure with its target.
import Foundation
import JSONTree
import Testing

@Suite struct QueryBenchTests {
    @Test func quickRunReportsQueryFigures() throws {
        let (scratch, report) = try runQuickBench(groups: ["query"])
        defer { try? FileManager.default.removeItem(at: scratch) }
        let rows = Array(report.root.elements)
        let names = rows.compactMap { $0[key: "figure"]?.stringValue }
        #expect(names.contains { $0.hasPrefix("next revision") && $0.contains("limitToFirst(50)") })
        #expect(names.contains { $0.hasPrefix("next revision") && !$0.contains("limit") })
        #expect(names.contains { $0.hasPrefix("batch diff") && $0.contains("shuffled") })
        let diff = try #require(rows.first { $0[key: "figure"]?.stringValue?.contains("10% deleted") == true })
        #expect(diff[key: "peers"]?[index: 0]?[key: "name"]?.stringValue == "difference(from:)")
        // The report carries the ratio; how fast is for `make bench`, never a unit test's assertion.
        #expect((diff[key: "ratio"]?.doubleValue ?? 0) > 0)
        for row in rows {
            #expect((row[key: "synctable"]?[key: "median"]?.doubleValue ?? 0) > 0, "\(row.json.serializedString())")
            #expect(row[key: "target"]?.stringValue?.isEmpty == false)
        }
    }
}
