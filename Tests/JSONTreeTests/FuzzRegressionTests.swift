// Inputs the fuzzer (`make fuzz`) once found troublesome stay here, parsed on every run.
import Foundation
import JSONTree
import Testing

@Suite struct FuzzRegressionTests {
    @Test func earlierFindingsParseOrFailCleanly() throws {
        let dir = fixturesURL("fuzz")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") && $0 != "README.md" }
        #expect(!names.isEmpty)
        for name in names {
            let bytes = [UInt8](FileManager.default.contents(atPath: dir + "/" + name)!)
            do {
                let doc = try JSONDocument(parsing: bytes)
                #expect(try JSONDocument(parsing: doc.root.json.serialized()).root.valueEquals(doc.root), "\(name)")
            } catch {
                #expect(error.offset <= bytes.count && error.line >= 1 && error.column >= 1, "\(name)")
            }
        }
    }
}
