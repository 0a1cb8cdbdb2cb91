// The configuration file: key bindings for any action, colours, flags; a bad file is an error
// with its line and column.
import FileStore
import JSONTree
import TableUI
import Testing
import ViewerCore

@Suite("The configuration file")
struct ConfigTests {
    static func config(_ text: String) throws(ConfigError) -> ViewerConfig {
        try ViewerConfig(parsing: Array(text.utf8), file: "config.json")
    }

    @Test("keys remap any action: the old key stops working, the new one works, the help screen shows it")
    func remapsKeys() throws {
        let config = try Self.config(#"{"keys": {"quit": ["Q", "Ctrl-X"], "search": "s", "sortByColumn": ["o"]}}"#)
        let json = #"{"p": {"a": {"name": "Ann"}, "b": {"name": "Bo"}}}"#
        let h = try ViewerHarness(json, path: "/p") { $0.keyBindings = config.keyBindings(standardKeyBindings) }
        // The message line's reminder shows the keys as bound.
        let hint = h.lines[23]
        #expect(hint.contains("? help  Q quit") && hint.contains("s search") && hint.contains("o sort"), "\(hint)")
        h.send(.character("q"))
        #expect(h.viewer.isRunning)
        // s now searches (it was sort), o sorts.
        h.send(.character("s"))
        #expect(h.screen.contains("search"))
        h.type("bo")
        h.send(.enter)
        #expect(h.selectedKey == "b" && h.screen.contains("match 1 of 1"))
        h.send(.character("?"), .character("G"))
        let help = h.screen
        #expect(help.contains("Q Ctrl-X") && help.contains("quit"))
        h.send(.escape, .character("\u{18}"))
        #expect(!h.viewer.isRunning)
    }

    @Test("flags and colours are read; under NO_COLOR only a colour's attributes apply")
    func flagsAndColours() throws {
        let config = try Self.config(#"""
            {"flags": {"page-size": 50, "edit": true, "no-animation": true, "no-cache": true, "columns": "-email",
                       "computed": ["ratio = .score / .level", ".name | length"]},
             "colors": {"inserted": {"fg": 231, "bg": 28, "attrs": ["bold"]}, "removed": {"bg": 88}, "moved": {"attrs": ["underline"]}}}
            """#)
        #expect(config.pageSize == 50 && config.edit == true && config.readOnly == nil && config.noAnimation == true && config.noCache == true)
        #expect(config.columns == "-email")
        #expect(config.computed.map(\.definition) == ["ratio = .score / .level", ".name | length"])
        let colour = config.styles.applied(to: .standard(colors: .extended), colors: .extended)
        #expect(colour.inserted == [CellStyle(.bold, foreground: 231, background: 28)])
        #expect(colour.deleted == CellStyle([], foreground: -1, background: 88))
        let mono = config.styles.applied(to: .standard(colors: .none), colors: .none)
        #expect(mono.inserted == [CellStyle(.bold)] && mono.deleted == CellStyle() && mono.moved == CellStyle(.underline))
    }

    @Test("a bad configuration is an error naming the file, line and column", arguments: [
        ("{\n  \"keys\": {\"quit\": [\"q\",]}\n}", 2, 25, "expected"),
        ("{\n  \"keys\": {\n    \"fly\": \"f\"\n  }\n}", 3, 12, "unknown action \"fly\""),
        ("{\"flags\": {\"page-size\": -3}}", 1, 25, "page-size: a whole number"),
        ("{\"colors\": {\"inserted\": {\"fg\": 300}}}", 1, 32, "inserted.fg: a colour number from 0 to 255"),
        ("{\"keys\": {\"quit\": \"F13x\"}}", 1, 19, "quit: not a key"),
        ("[]", 1, 1, "the configuration: expected an object"),
        ("{\"themes\": {}}", 1, 12, "unknown section \"themes\""),
        ("{\"flags\": {\"computed\": [\".score /\"]}}", 1, 25, "computed: jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score /"),
        ("{\"flags\": {\"computed\": 5}}", 1, 24, "computed: a string such as"),
    ])
    func badConfig(text: String, line: Int, column: Int, message: String) {
        do {
            _ = try Self.config(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("config.json:\(line):\(column): error: "))
        }
    }
}
