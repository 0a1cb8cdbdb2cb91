// Property: a command source is a file source whose file the runs' outputs rewrite.
import FileStore
import Foundation
import JSONTree
import LiveQuery
import StoreInterface
import Testing
import TestSupport
@testable import CommandStore

@Suite("A command source equals a file source")
struct CommandStorePropertyTests {
    @Test("runs printing random successive documents give the revisions and events of a file rewritten with them")
    func runsEqualRewrites() throws {
        try forEachSeed(4) { seed, rng in
            let folder = ScratchFolder("command-property")
            let documents = randomDocuments(8, &rng)
            for (i, text) in documents.enumerated() { _ = folder.write("doc\(i + 1).json", text) }
            let query = try Query().orderByChild(try Path("/score")).limitToFirst(rng.int(1...4))

            let command = try CommandStore(command: commandPrintingInTurn(folder, count: documents.count),
                                           options: CommandStore.Options(everyMilliseconds: 0))
            defer { command.stop() }
            var commandEvents: [[String]] = []
            var commandValues: [JSON] = []
            try command.reference("/items").withQuery(query).observeChanges { commandEvents.append(signature($0)) }
            command.observeRevisions { commandValues.append($0.document.root.json) }
            try command.waitForRevision(documents.count, timeoutMilliseconds: 60_000)

            let path = folder.file("data.json")
            writeFileByRename(path, Array(documents[0].utf8))
            let file = try FileStore(path: path)
            var fileEvents: [[String]] = []
            var fileValues: [JSON] = []
            try file.reference("/items").withQuery(query).observeChanges { fileEvents.append(signature($0)) }
            file.observeRevisions { fileValues.append($0.document.root.json) }
            try file.waitForRevision(1, timeoutMilliseconds: 30_000)
            for (i, text) in documents.enumerated().dropFirst() {
                writeFileByRename(path, Array(text.utf8))
                try file.waitForRevision(i + 1, timeoutMilliseconds: 30_000)
            }

            #expect(commandValues == fileValues, "seed \(seed)")
            #expect(commandEvents == fileEvents, "seed \(seed)")
            #expect(command.status.problem == nil, "seed \(seed)")
        }
    }

    /// `count` documents of a few scored items, each differing from the one before.
    private func randomDocuments(_ count: Int, _ rng: inout SplitMix64) -> [String] {
        var items: [String: Int] = [:]
        var documents: [String] = []
        while documents.count < count {
            for _ in 0..<rng.int(1...3) {
                let key = "k\(rng.int(0..<8))"
                if rng.chance(0.25) { items[key] = nil } else { items[key] = rng.int(0..<10) }
            }
            let members = items.sorted { $0.key < $1.key }.map { "\"\($0.key)\": {\"score\": \($0.value)}" }
            let text = "{\"items\": {" + members.joined(separator: ", ") + "}}\n"
            if text != documents.last { documents.append(text) }
        }
        return documents
    }
}
