// What swift-argument-parser checks of a command's definition only in a debug build, checked
// here because `make test` builds the release configuration (the Makefile): no name given twice
// in one command, no positional after a repeating one, and no flag that starts out true with
// no way to turn it off. Read from the definition as the parser dumps it, every subcommand.
import CommandTestSupport
import JSONTree
import Testing

@Suite struct CommandDefinitionTests {
    @Test("no command gives a name twice, puts a positional after a repeating one, or has a flag stuck on")
    func everyCommandCanBeParsed() throws {
        let dump = try synctable(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.errors)")
        var commands = [try #require(try JSONDocument(parsing: dump.output).root.json["command"])]
        var checked = 0
        while let command = commands.popLast() {
            let name = command["commandName"]?.stringValue ?? "?"
            let arguments = command["arguments"]?.arrayValue ?? []
            var spellings = Set<String>()
            for argument in arguments {
                for spelled in (argument["names"]?.arrayValue ?? []).map(Self.spelling) {
                    #expect(spellings.insert(spelled).inserted, "\(name) gives \(spelled) twice")
                }
                if argument["kind"]?.stringValue == "flag" {
                    #expect(argument["defaultValue"]?.stringValue != "true", "\(name)'s \(argument["valueName"] ?? .null) is always on")
                }
            }
            let positionals = arguments.filter { $0["kind"]?.stringValue == "positional" }
            for (index, positional) in positionals.enumerated() where positional["isRepeating"]?.boolValue == true {
                #expect(index == positionals.count - 1, "\(name) has a positional after its repeating \(positional["valueName"] ?? .null)")
            }
            commands += command["subcommands"]?.arrayValue ?? []
            checked += 1
        }
        #expect(checked > 10)
    }

    /// `--name`, `-n` or `-name`, as a user types it.
    private static func spelling(_ name: JSON) -> String {
        let text = name["name"]?.stringValue ?? ""
        return switch name["kind"]?.stringValue {
        case "long": "--" + text
        default: "-" + text
        }
    }
}
