// The command line's option groups stay one level deep: a group inside a group makes the
// argument parser's debug-build checks run five times over for it, and every command the tests
// run paid a quarter of a second for it (SourceOptions.swift, View.swift).
import ArgumentParser
import Commands
import Testing

/// An option group, whatever it holds.
private protocol AnyOptionGroup {
    static var groupType: any ParsableArguments.Type { get }
}

extension OptionGroup: AnyOptionGroup {
    fileprivate static var groupType: any ParsableArguments.Type { Value.self }
}

/// The types of the option groups `arguments` declares.
private func groups(of arguments: any ParsableArguments) -> [any ParsableArguments.Type] {
    Mirror(reflecting: arguments).children.compactMap { child in
        (child.value as? any AnyOptionGroup).map { type(of: $0).groupType }
    }
}

@Suite struct OptionGroupDepthTests {
    @Test("no command's option group holds another option group")
    func groupsAreOneLevelDeep() {
        let commands = SyncTable.configuration.subcommands
        #expect(commands.count > 10)
        var groupsSeen = 0
        for command in commands {
            for group in groups(of: command.init()) {
                groupsSeen += 1
                let nested = groups(of: group.init()).map { "\($0)" }
                #expect(nested.isEmpty, "\(command)'s \(group) holds \(nested)")
            }
        }
        #expect(groupsSeen > 20)
    }
}
