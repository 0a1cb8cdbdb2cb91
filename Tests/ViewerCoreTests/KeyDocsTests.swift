// Every action has a key, and the help screen, the manual's key table (docs/viewer.md) and the man page list them all.
import Testing
import TestSupport
import ViewerCore

@Suite("The keys are documented")
struct KeyDocsTests {
    /// The repository root, from this file's path.
    static let root = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/")).withLeadingSlash

    @Test("every action has a standard key")
    func everyActionIsBound() {
        for action in ViewerAction.allCases {
            #expect(standardKeyBindings.contains { $0.action == action && !$0.keys.isEmpty }, "\(action) has no key")
        }
    }

    @Test("the manual's key table names every key of every binding")
    func readmeListsEveryKey() throws {
        let readme = try #require(readFileText(Self.root + "/docs/viewer.md"))
        let table = readme.split(separator: "\n").filter { $0.hasPrefix("| `") }.joined(separator: "\n")
        for binding in standardKeyBindings {
            for token in binding.label.split(separator: " ") {
                #expect(table.contains("`\(token)`"), "docs/viewer.md's key table lacks `\(token)` (\(binding.action))")
            }
        }
    }

    @Test("the man page lists every binding as the help screen does")
    func manPageListsEveryBinding() throws {
        let man = try #require(readFileText(Self.root + "/docs/synctable.1")).replacingOccurrences("\\e", "\\")
        for binding in standardKeyBindings {
            #expect(man.contains(".B \(binding.label)\n\(binding.help)\n"), "the man page lacks \(binding.label): \(binding.help)")
        }
    }
}

private extension String {
    var withLeadingSlash: String { hasPrefix("/") ? self : "/" + self }

    func replacingOccurrences(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
