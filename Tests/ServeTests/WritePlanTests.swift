// A PATCH's answer: each written location's value, found in time linear in the paths.
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct WritePlanTests {
    /// `PATCH` with 160k paths took 227 s (each path looked up among all the children):
    /// each container looked up again is indexed once, whatever the number of paths; one
    /// looked up once is only scanned.
    @Test func pathsAreFoundWithEachContainerIndexedOnce() throws {
        let n = 20_000
        var text = #"{"p": {"#
        text += (0..<n).map { #""k\#($0)": {"v": \#($0)}"# }.joined(separator: ",")
        text += #"}, "list": [10, 11, 12]}"#
        let document = try JSONDocument(parsing: Array(text.utf8))
        let index = ChildIndex()
        for i in stride(from: n - 1, through: 0, by: -1) {
            #expect(index.node(at: Path(keys: ["p", "k\(i)", "v"]), in: document.root)?.json == .number(JSONNumber(i)))
        }
        #expect(index.containersIndexed == 2, "the root and p, each once")
        #expect(index.node(at: Path(keys: ["list", "2"]), in: document.root)?.json == .number(JSONNumber(12)))
        #expect(index.node(at: Path(keys: ["list", "3"]), in: document.root) == nil)
        #expect(index.node(at: Path(keys: ["p", "k1", "v", "deeper"]), in: document.root) == nil)
        #expect(index.node(at: Path(keys: ["missing"]), in: document.root) == nil)
    }

    @Test func aPatchOfManyPathsAnswersEachWrittenValue() async throws {
        let folder = ScratchFolder()
        let n = 2_000
        let children = (0..<n).map { #""k\#($0)": {"v": 0}"# }.joined(separator: ",")
        let served = try await InProcessServer(file: folder.write("db.json", #"{"p": {\#(children)}, "list": [0, 1]}"#))
        var body = (0..<n).map { #""p/k\#($0)/v": \#($0)"# }
        body.append(#""list/1": {"x": true}"#)
        let patch = try served.request("PATCH", "/.json", body: "{" + body.joined(separator: ",") + "}")
        #expect(patch.status == 200)
        var expected = (0..<n).map { (key: "p/k\($0)/v", value: JSON.number(JSONNumber($0))) }
        expected.append((key: "list/1", value: json(#"{"x": true}"#)))
        #expect(patch.json == .object(JSONObject(expected)))
        #expect(try served.request("GET", "/p/k1999/v.json").json == json("1999"))
        try await served.stop()
    }
}
