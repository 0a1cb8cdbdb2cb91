// Read-only mode (the default without --edit, or a file the user cannot write) and `u`, undo as a compare-and-swap.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's read-only mode and undo")
struct ViewerUndoTests {
    static let json = #"{"p": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#

    static func score(_ h: ViewerHarness, _ key: String) throws -> String? {
        try ViewerEditTests.root(h).node(at: Path("/p/\(key)/score"))?.numberText
    }

    /// Every write key, on the score cell of the first row, says on one line why it does nothing
    /// (`refusal`, with the key in place of `KEY`), and the file keeps its bytes.
    static func expectEveryWriteKeyRefused(_ h: ViewerHarness, badge: Bool, refusal: String) throws {
        let bytes = readFileText(h.file)
        #expect(h.screen.contains("READ-ONLY") == badge)
        h.send(.tab, .tab)
        for key in ["e", "+", "-", "d", "a", "u", "U", "\u{12}"] {
            h.send(.character(Character(key)))
            let label = key == "\u{12}" ? "U" : key
            let said = refusal.replacing("KEY", with: label)
            #expect(h.lines.contains { $0.contains(said) }, "key \(label): \(h.screen)")
            #expect(!h.screen.contains("(y/n)") && !h.screen.contains(" = "), "no prompt after \(label)")
        }
        #expect(readFileText(h.file) == bytes)
    }

    // Issue 49 item 1: a viewer is a guest of the program that owns the file.
    @Test("without --edit, each write key says in one line how to allow it and changes nothing; no badge, no e in the hints")
    func readOnlyByDefault() throws {
        let h = try ViewerHarness(Self.json, path: "/p")
        #expect(!h.messageArea.contains("e edit"), "\(h.messageArea)")
        try Self.expectEveryWriteKeyRefused(h, badge: false, refusal: "read-only: KEY does not write — start with --edit to change the file")
    }

    @Test("a 0444 file opens read-only, even with --edit (for root too, though access(2) would let root write)")
    func unwritableFile() throws {
        let h = try ViewerHarness(Self.json, path: "/p") { options in
            options.edit = true
            _ = chmod(options.file, 0o444)
        }
        try Self.expectEveryWriteKeyRefused(h, badge: true, refusal: "read-only (data.json is not writable): KEY does not write")
    }

    @Test("u undoes the viewer's writes step by step, only while the value is still the one it wrote")
    func undoIsCompareAndSwap() throws {
        let h = try ViewerHarness(Self.json, path: "/p") { $0.edit = true }
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(h.screen.contains("nothing to undo"))
        h.send(.tab, .tab, .character("+"))
        try h.waitForWrites()
        #expect(h.screen.contains("/p/a/score +1: 10 → 11"))
        h.send(.character("+"))
        try h.waitForWrites()
        #expect(try Self.score(h, "a") == "12")

        // Another writer changes another value: the step still undoes.
        try h.save(#"{"p": {"a": {"name": "Ann", "score": 12}, "b": {"name": "Bo", "score": 21}}}"#)
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(h.screen.contains("undone: /p/a/score back to 11 (1 more to undo)"))
        #expect(try Self.score(h, "a") == "11" && Self.score(h, "b") == "21")

        // Another writer changes the value itself: u refuses, naming the revision and time.
        let changedIn = (h.store.currentRevision?.number ?? 0) + 1
        try h.save(#"{"p": {"a": {"name": "Ann", "score": 99}, "b": {"name": "Bo", "score": 21}}}"#)
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(h.screen.contains("not undone: /p/a/score changed in rev \(changedIn) at 12:00:00 by another writer (now 99)"))
        #expect(try Self.score(h, "a") == "99")
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(h.screen.contains("nothing to undo"))

        // A delete undoes to the child as it was.
        h.send(.character("d"), .character("y"))
        try h.waitForWrites()
        try h.waitUntil("a deleted") { _ in h.line(ofKey: "a") == nil }
        h.send(.character("u"))
        try h.waitForWrites()
        try h.waitUntil("a back") { _ in h.line(ofKey: "a") != nil }
        #expect(try Self.score(h, "a") == "99")
        #expect(try ViewerEditTests.root(h).node(at: Path("/p/a/name"))?.stringValue == "Ann")
    }
}
