// JSONTestSuite (Fixtures/JSONTestSuite, MIT): y_ files parse, n_ files are rejected,
// i_ files are decided without crashing or hanging.
import Foundation
import JSONTree
import Testing

@Suite struct ConformanceTests {
    static func files(prefix: String) -> [String] {
        let dir = fixturesURL("JSONTestSuite/test_parsing")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted().map { dir + "/" + $0 }
    }

    static func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path)!) }

    @Test func acceptsEveryYFile() throws {
        let files = Self.files(prefix: "y_")
        #expect(files.count == 95)
        var rejected: [String] = []
        for f in files {
            do { _ = try JSONDocument(parsing: Self.bytes(f)) } catch { rejected.append("\(f): \(error)") }
        }
        #expect(rejected.isEmpty, "\(rejected)")
    }

    @Test func rejectsEveryNFile() throws {
        let files = Self.files(prefix: "n_")
        #expect(files.count == 188)
        var accepted: [String] = []
        for f in files {
            if (try? JSONDocument(parsing: Self.bytes(f))) != nil { accepted.append(f) }
        }
        #expect(accepted.isEmpty, "\(accepted)")
    }

    @Test func decidesEveryIFile() throws {
        let files = Self.files(prefix: "i_")
        #expect(files.count == 35)
        var accepted = 0
        for f in files {
            let bytes = Self.bytes(f)
            do {
                let doc = try JSONDocument(parsing: bytes)
                accepted += 1
                // Whatever is accepted must survive a round trip.
                let again = try JSONDocument(parsing: doc.root.json.serialized())
                #expect(again.root.valueEquals(doc.root), "\(f)")
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "\(f)")
            }
        }
        // Big numbers and a BOM are accepted; invalid UTF-8, lone surrogates and deep nesting are not.
        #expect(accepted > 0 && accepted < files.count)
    }
}
