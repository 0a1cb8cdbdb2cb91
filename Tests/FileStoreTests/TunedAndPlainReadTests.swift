// A file followed edit by edit gives the same revisions and the same query events whatever the
// engine: plain or tuned, its bytes read into memory of their own or into pages shared with the
// last revision. Edits change a value in place, change the file's length, cut it short (half a
// file, then the whole again), rewrite most of it, and arrive in place or by rename.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
@testable import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

@Suite struct TunedAndPlainReadTests {
    // Tuned then compares the file's own pages with the shared ones (a read maps the file only
    // where the program guards mapped reads); plain reads them with `pread`.
    init() { EngineTuning.guardMappedReads() }

    /// `{"players": {"p0000": {"score": N, "name": "…"}, …}}`: 60 KB, 15 pages.
    static func document(_ scores: [Int]) -> [UInt8] {
        let children = scores.enumerated().map { i, score in
            #""p\#(String(10_000 + i).dropFirst())": {"score": \#(score), "name": "player \#(i)"}"#
        }
        return Array((#"{"players": {"# + children.joined(separator: ",\n") + "}}\n").utf8)
    }

    /// A reader and what it has made of the file so far.
    struct Follower {
        let reader: SnapshotReader
        var current: JSONDocument?
        var window: Window?

        /// Reads `path` (holding `state`) as a store does: the revision, or the parse error, and
        /// the query's events; checks the bytes and their shared ends.
        mutating func follow(_ path: String, state: [UInt8], query: Query, label: String) throws -> String {
            let (snapshot, ends) = reader.read(path, comparingWith: current?.bytes, following: current)
            guard case .bytes(let bytes, _) = snapshot else {
                Issue.record("\(label): not read: \(snapshot)")
                return "not read"
            }
            #expect(bytes.array == state, "\(label)")
            if let current {
                let measured = try #require(ends, "\(label)")
                let expected = SnapshotReaderTests.naiveEnds(current.bytes.array, state)
                #expect(measured.prefix == expected.prefix && measured.suffix == expected.suffix, "\(label)")
            }
            let document: JSONDocument
            do {
                if let current, let ends {
                    document = try current.reparsing(bytes, sharedPrefix: ends.prefix, sharedSuffix: ends.suffix)
                } else {
                    document = try JSONDocument(parsing: bytes)
                }
            } catch {
                return "error at \(error.offset): \(error.message)"
            }
            current = document
            let path = try Path("/players")
            guard let window else {
                self.window = Window(query: query, path: path, document: document)
                return "first " + Self.rows(self.window!)
            }
            let change = window.advanced(to: document)
            self.window = Window(query: query, path: path, document: document)
            return "\(change.events.count) events; " + Self.rows(self.window!) + "; " + String(decoding: document.root.serialized(), as: UTF8.self)
        }

        static func rows(_ window: Window) -> String {
            (0..<window.count).map { "\(window.key(at: $0))=" + String(decoding: window.value(at: $0).serialized(), as: UTF8.self) }.joined(separator: ",")
        }
    }

    @Test func revisionsAndEventsAreTheSameTunedAndPlain() throws {
        let folder = ScratchFolder()
        let path = folder.file("players.json")
        let query = try Query().orderByChild("score").limitToLast(5)
        try forEachSeed(6, base: 0x5454) { seed, r in
            var scores = (0..<1_500).map { _ in r.int(100_000...899_999) }
            // Tuned and plain into shared pages (from any size), and plain as a library user
            // reading a small file gets it: memory of its own.
            // The first two share the last revision's bytes as pieces after an edit inside one
            // child (up to 9 pieces: then read whole again).
            var followers = [Follower(reader: SnapshotReader(tuning: .tuned, sharedPagesFrom: 1, pieces: 9)),
                             Follower(reader: SnapshotReader(tuning: .plain, sharedPagesFrom: 1, pieces: 9)),
                             Follower(reader: SnapshotReader(tuning: .plain))]
            var pieced = 0, flattened = 0, lastPieces = 1
            for step in 0..<30 {
                var cut = false
                switch r.int(0..<8) {
                case 0, 1, 2: scores[r.int(0..<scores.count)] = r.int(900_000...999_999)  // the same length
                case 3: scores[r.int(0..<scores.count)] = r.int(1_000_000...9_999_999)  // longer
                case 4: scores[r.int(0..<scores.count)] = r.int(1...99_999)  // shorter
                case 5: for k in scores.indices where r.int(0..<2) == 0 { scores[k] = r.int(100_000...999_999) }  // most pages
                case 6: cut = true  // cut short: a writer half-way
                default: break  // the same bytes again
                }
                var state = Self.document(scores)
                if cut { state = Array(state[..<r.int(1..<state.count)]) }
                if r.int(0..<2) == 0 { writeFileInPlace(path, state) } else { writeFileByRename(path, state) }
                let label = "seed \(seed) step \(step)"
                let seen = try followers.indices.map { try followers[$0].follow(path, state: state, query: query, label: label) }
                #expect(seen[0] == seen[1] && seen[1] == seen[2], "\(label): tuned \(seen[0].prefix(200)) | plain \(seen[1].prefix(200)) | own memory \(seen[2].prefix(200))")
                let pieces = followers.map { $0.current?.bytes.pieces?.pieceCount ?? 1 }
                #expect(pieces[0] == pieces[1] && pieces[2] == 1 && pieces[0] <= 9, "\(label): \(pieces)")
                if pieces[0] > 1 { pieced += 1 }
                if pieces[0] == 1 && lastPieces > 1 { flattened += 1 }
                lastPieces = pieces[0]
            }
            // Seeds were chosen so that each run shares bytes, and reads whole again past 9 pieces.
            #expect(pieced >= 5 && flattened >= 1, "seed \(seed): \(pieced) revisions in pieces, \(flattened) made whole again")
        }
    }

    /// `{"groups": {"g0": {"k0000": {"v": "…"}, …}, "g1": …, "g2": …}}`: three groups of
    /// `members[g]` members, about 3 MB each.
    static func groups(_ members: [[String]]) -> [UInt8] {
        let groups = members.enumerated().map { g, values in
            #""g\#(g)": {"# + values.enumerated().map { k, v in #""k\#(k)": {"v": "\#(v)"}"# }.joined(separator: ",\n") + "}"
        }
        return Array((#"{"groups": {"# + groups.joined(separator: ",\n") + "}}\n").utf8)
    }

    /// A 9 MB file, read in several chunks a half: edits inside one member (a small container)
    /// and across one group (a third of the file), each shared as pieces while the memory they
    /// keep stays within 1.5 × the file, and read whole again past it.
    @Test func largeContainersAreSharedWithinTheMemoryBound() throws {
        let folder = ScratchFolder()
        let path = folder.file("groups.json")
        let query = try Query().orderByKey().limitToFirst(3)
        var r = SplitMix64(seed: 0x9B)
        var members = (0..<3).map { _ in (0..<30_000).map { _ in String(repeating: "x", count: r.int(60...100)) } }
        var followers = [Follower(reader: SnapshotReader(tuning: .tuned, sharedPagesFrom: 1)),
                         Follower(reader: SnapshotReader(tuning: .plain, sharedPagesFrom: 1)),
                         Follower(reader: SnapshotReader(tuning: .plain, sharedPagesFrom: 1 << 30))]
        var smallShared = 0, largeShared = 0, refused = 0
        for step in 0..<16 {
            let g = r.int(0..<3), k = r.int(0..<members[g].count)
            // Within one member's value (its own object is re-parsed), or a member added to a
            // group (the group is: a third of the file, copied).
            let large = r.chance(0.5)
            if large { members[g].insert("y", at: k) } else { members[g][k] += "z" }
            let state = Self.groups(members)
            if r.int(0..<2) == 0 { writeFileInPlace(path, state) } else { writeFileByRename(path, state) }
            let label = "step \(step)"
            let seen = try followers.indices.map { try followers[$0].follow(path, state: state, query: query, label: label) }
            #expect(seen[0] == seen[1] && seen[1] == seen[2], "\(label)")
            let bytes = try #require(followers[0].current?.bytes)
            #expect(bytes.pieces?.pieceCount == followers[1].current?.bytes.pieces?.pieceCount, "\(label)")
            #expect(bytes.keptBytes * 2 <= state.count * 3 + Posix.pageSize * 2, "\(label): keeps \(bytes.keptBytes) bytes")
            if bytes.pieces == nil { if step > 0 { refused += 1 } } else if large { largeShared += 1 } else { smallShared += 1 }
        }
        // Two group edits in a row would keep 1.0 + 2 × 0.33 of the file: the second is read whole.
        #expect(smallShared >= 3 && largeShared >= 1 && refused >= 1, "\(smallShared) small, \(largeShared) large shared, \(refused) read whole")
    }
}
