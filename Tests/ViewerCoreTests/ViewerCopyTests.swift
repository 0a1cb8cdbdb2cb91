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

    @Test("y and Y treat invisible format characters as the screen does: shown escaped, the path refused, the value escaped")
    func invisibleFormatCharacters() throws {
        // Interlinear annotation (U+FFF9–FFFB), a soft hyphen, tag characters (U+E0041 "A",
        // U+E0042 "B": text no one sees); a zero-width joiner shapes what is shown, and stays.
        let json = #"{"p": {"a\ufff9hidden\ufffbb": {"v": "x\u00ad\udb40\udc41\udb40\udc42y"}, "k\u200dz": 1}}"#
        let h = try ViewerHarness(json, path: "/p")
        #expect(h.screen.contains(#"a\ufff9hidden\ufffbb"#))
        h.send(.character("y"))
        #expect(h.effects.isEmpty, "\(h.effects)")
        #expect(h.screen.contains(#"not copied: /p/a\ufff9hidden\ufffbb holds"#))
        h.send(.character("Y"))
        guard case .copyToClipboard(let text)? = h.effects.last else {
            Issue.record("nothing copied: \(h.effects)")
            return
        }
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .format }, "\(text.debugDescription)")
        let copied = try JSONDocument(parsing: Array(text.utf8)).root
        #expect(copied.json == (try ViewerEditTests.root(h).node(at: Path("/p/a\u{FFF9}hidden\u{FFFB}b")))?.json)
        #expect(h.screen.contains(#"x\u00ad\u{e0041}\u{e0042}y"#))
        // The joiner is no hidden text: that path is copied as it is.
        h.effects = []
        h.send(.character("j"), .character("y"))
        #expect(h.effects.count == 1)
        if case .copyToClipboard(let path)? = h.effects.first { #expect(path == "/p/k\u{200D}z") }
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
