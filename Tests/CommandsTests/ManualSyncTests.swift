// The man page and the manual name every option `--help` shows, and no option it does not.
import CommandTestSupport
import Foundation
import Testing

@Suite struct ManualSyncTests {
    /// The repository root, from this file's path.
    static let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    /// Every subcommand, and the options its `--help` lists.
    static func helpOptions() throws -> [String: Set<String>] {
        let top = try synctable(["--help"]).output
        // A subcommand's line starts with two spaces and its name; its description's other lines
        // are indented further.
        let names = (top.components(separatedBy: "SUBCOMMANDS:").last ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isLowercase == true }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        var options = [String: Set<String>]()
        for name in names {
            let help = try synctable([name, "--help"]).output
            options[name] = Set(Self.longOptions(in: help)).subtracting(["--help", "--version"])
        }
        return options
    }

    /// The `--long-options` a text names (`--page-size`, not `--` alone).
    static func longOptions(in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: "--[a-z][a-z0-9-]*[a-z0-9]")
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { (text as NSString).substring(with: $0.range) }
    }

    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
    }

    @Test func everyOptionOfHelpIsInTheManPageAndTheManual() throws {
        let options = try Self.helpOptions()
        #expect(options.count >= 10, "the subcommands were not found in --help: \(options.keys.sorted())")
        let man = Set(Self.longOptions(in: try Self.read("docs/synctable.1").replacingOccurrences(of: "\\-", with: "-")))
        let manual = try ["docs/commands.md", "docs/viewer.md", "docs/serve.md", "docs/sources.md", "docs/logs.md"]
            .map { try Self.read($0) }.joined(separator: "\n")
        let documented = Set(Self.longOptions(in: manual))
        for (command, flags) in options.sorted(by: { $0.key < $1.key }) {
            for flag in flags.sorted() {
                #expect(man.contains(flag), "\(command) \(flag) is not in docs/synctable.1")
                #expect(documented.contains(flag), "\(command) \(flag) is not in the manual (docs/)")
            }
        }
        // And the man page names no option that no command has.
        let all = options.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        // `--flag=-5` is how the man page writes a negative value; the completion script's option
        // is the argument parser's own, which `--help` does not list.
        let notOptions: Set = ["--help", "--version", "--flag", "--generate-completion-script"]
        for flag in man.subtracting(all).subtracting(notOptions).sorted() {
            Issue.record("docs/synctable.1 names \(flag), which no command's --help lists")
        }
    }
}
