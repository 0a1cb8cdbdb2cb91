// push: keys made in a tight loop are unique, sort in creation order, and land in that order.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

@Suite struct WritePushTests {
    @Test func idsMadeInATightLoopAreUniqueAndSorted() {
        let ids = PushIDGenerator()
        var previous = ""
        var outOfOrder = 0
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let id = ids.next()
            if !(previous.utf8.lexicographicallyPrecedes(id.utf8)) { outOfOrder += 1 }
            seen.insert(id)
            previous = id
        }
        #expect(outOfOrder == 0)
        #expect(seen.count == 20_000)
        #expect(seen.allSatisfy { $0.utf8.count == 20 && PushIDGenerator.timestamp(of: $0) != nil })
    }

    @Test func pushesInATightLoopLandInCreationOrder() throws {
        let folder = ScratchFolder()
        let file = folder.file("messages.json")
        writeInPlace(file, #"{"messages": {}}"#)
        let recording = try RecordingStore(path: file)
        recording.run { recording.store.currentRevision != nil }
        let messages = recording.store.reference(try Path("/messages"))
        var keys = [String]()
        for i in 0..<40 { keys.append(try messages.push(["n": .number(JSONNumber(i))]).path.lastKey!) }
        #expect(Set(keys).count == keys.count)
        #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        // In the file, in the same order, each with its value; one revision per push.
        let doc = try JSONDocument(parsing: try #require(readAll(file)))
        let members = doc.root.node(at: try Path("/messages"))!.members.map { ($0.key.stringValue!, $0.value.child("n")!.doubleValue!) }
        #expect(members.map(\.0) == keys)
        #expect(members.map(\.1) == (0..<40).map(Double.init))
        #expect(recording.revisions.count == 41)
    }
}
