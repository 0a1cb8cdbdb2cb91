// `Y`: the selected child's value as JSON, never with a raw control character.
import FileStore
import JSONTree
import TableUI
import Testing
import ViewerCore

@Suite("The viewer's Y key")
struct ViewerCopyTests {
    @Test("Y copies the value as JSON that parses to the same value, with every control and bidi character escaped")
    func copiesEscapedJSON() throws {
        let json = #"{"p": {"a": {"name": "Mallory \u001b[31mRED\u001b]52;c;eA==\u0007 \u202eevil\u0085\u007f", "n": 1.50}}}"#
        let h = try ViewerHarness(json, path: "/p")
        h.send(.character("Y"))
        guard case .copyToClipboard(let text)? = h.effects.last else {
            Issue.record("nothing copied: \(h.effects)")
            return
        }
        let raw = text.unicodeScalars.filter { s in
            s.value < 0x20 || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
        }
        #expect(raw.isEmpty, "raw controls in \(text.debugDescription)")
        let copied = try JSONDocument(parsing: Array(text.utf8)).root
        let original = try ViewerEditTests.root(h).node(at: Path("/p/a"))
        #expect(copied.json == original?.json)
        #expect(text.contains("1.50"))
        #expect(h.screen.contains("copied the value of /p/a as JSON"))
    }

    @Test("Y refuses a value larger than a terminal's clipboard takes, and says so")
    func refusesHugeValues() throws {
        let big = String(repeating: "x", count: 80_000)
        let h = try ViewerHarness(#"{"p": {"a": "\#(big)"}}"#, columns: 200, path: "/p")
        h.send(.character("Y"))
        #expect(h.effects.isEmpty)
        #expect(h.screen.contains("not copied: the value of /p/a is 80002 bytes of JSON"))
    }
}
