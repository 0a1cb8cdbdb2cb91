// The tuned writer (`AtomicFile.modify`: a second thread, mappings, early writes, the rename
// exchange) against its plain twin (`AtomicFile.modifyPlainly`): for random edits and random
// concurrent writers, both leave the same bytes.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

@Suite struct PlainWriterTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    /// One edit: add `amount` to counter `key`; other writers edit the file in between.
    struct Edit: Sendable {
        var key: Int
        var amount: Int
        /// For each of the edit's reads in turn: the other writers' edits made right after it.
        var interruptions: [[Foreign]]
    }

    /// Another process's edit of a counter, saved in place (truncate and write) or by rename.
    struct Foreign: Sendable {
        var key: Int
        var amount: Int
        var inPlace: Bool
    }

    /// How the tuned writer runs an edit.
    struct Tactics {
        var mapped: Bool
        var early: Bool
        var unnamed: Bool
    }

    @Test("the tuned writer leaves the bytes the plain one leaves, for random edits and concurrent writers")
    func tunedMatchesPlain() throws {
        try forEachSeed(8) { seed, rng in
            let counters = rng.int(1...12)
            let text = Self.document(counters, &rng)
            let edits = (0..<rng.int(1...4)).map { _ in Self.edit(counters, &rng) }
            let tactics = Tactics(mapped: rng.chance(0.5), early: rng.chance(0.5), unnamed: rng.chance(0.5))
            let plain = try Self.play(text, edits, tactics: nil)
            let tuned = try Self.play(text, edits, tactics: tactics)
            #expect(tuned == plain, "seed \(seed), \(tactics)")
            // No update lost: every counter is the sum of every writer's edits of it.
            var expected = Self.values(Array(text.utf8), counters)
            for edit in edits {
                expected[edit.key] += edit.amount
                for foreign in edit.interruptions.joined() { expected[foreign.key] += foreign.amount }
            }
            #expect(Self.values(plain, counters) == expected, "seed \(seed)")
        }
    }

    /// `{"c0": N, …}` with padding of random length between members: a counter's new digits
    /// move every byte after them.
    static func document(_ counters: Int, _ rng: inout SplitMix64) -> String {
        let members = (0..<counters).map { k in "\"c\(k)\": \(rng.int(0...999))" + String(repeating: " ", count: rng.int(0...3000)) }
        return "{" + members.joined(separator: ", ") + "}\n"
    }

    static func edit(_ counters: Int, _ rng: inout SplitMix64) -> Edit {
        // At most three interrupted reads: well within the attempts a write makes.
        let interruptions = (0..<rng.int(0...3)).map { _ in
            (0..<rng.int(1...2)).map { _ in Foreign(key: rng.int(0..<counters), amount: rng.int(-50...5000), inPlace: rng.chance(0.5)) }
        }
        return Edit(key: rng.int(0..<counters), amount: rng.int(-50...5000), interruptions: interruptions)
    }

    /// Makes the edits on a new file holding `text`, with the plain writer (`tactics` nil) or
    /// the tuned one, and the other writers' edits when each read is made; the bytes left.
    static func play(_ text: String, _ edits: [Edit], tactics: Tactics?) throws -> [UInt8] {
        let folder = ScratchFolder("plain-writer")
        let file = folder.write("counters.json", text)
        for edit in edits {
            let pending = Mutex(edit.interruptions)
            var options = AtomicFile.Options()
            options.afterRead = { _ in
                let now = pending.withLock { $0.isEmpty ? [] : $0.removeFirst() }
                for foreign in now { foreignEdit(file, foreign) }
            }
            // Never nil (which would leave the file as it is): a file without the counter is an error.
            let transform = { (base: FileSnapshot) throws(WriteError) -> Splice? in
                guard let splice = Splice(base, key: edit.key, adding: edit.amount) else { throw .unreadable(path: file, reason: "no counter") }
                return splice
            }
            if let tactics {
                options.tuning = .tuned
                options.mappingThreshold = tactics.mapped ? 1 : nil
                options.unnamedTemporaries = tactics.unnamed
                _ = try AtomicFile.modify(file, options: options, writingEarly: { (base: FileSnapshot, early: EarlyWrite) throws(WriteError) -> Splice? in
                    let splice = try transform(base)
                    if tactics.early, let splice { early.start(splice) }
                    return splice
                })
            } else {
                _ = try AtomicFile.modifyPlainly(file, options: options, writing: transform)
            }
            // Interruptions not used (a write made in fewer reads) are made after it.
            for foreign in pending.withLock({ $0 }).joined() { foreignEdit(file, foreign) }
            #expect(Disk.entries(folder.path) == ["counters.json"])
        }
        return readAll(file) ?? []
    }

    /// Another process's edit, as it saves: in place, or to a temporary file renamed over it.
    static func foreignEdit(_ file: String, _ foreign: Foreign) {
        let bytes = readAll(file) ?? []
        guard let (range, number) = counter(bytes, foreign.key) else { return }
        let edited = Array(bytes[..<range.lowerBound]) + Array(String(number + foreign.amount).utf8) + Array(bytes[range.upperBound...])
        foreign.inPlace ? writeFileInPlace(file, edited) : writeFileByRename(file, edited)
    }

    /// Where counter `key`'s number is in `bytes`, and its value.
    static func counter(_ bytes: [UInt8], _ key: Int) -> (Range<Int>, Int)? {
        let name = Array("\"c\(key)\": ".utf8)
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: name) }).map({ $0 + name.count }) else { return nil }
        var end = start
        while end < bytes.count, bytes[end] == UInt8(ascii: "-") || (bytes[end] >= 0x30 && bytes[end] <= 0x39) { end += 1 }
        guard let value = Int(String(decoding: bytes[start..<end], as: UTF8.self)) else { return nil }
        return (start..<end, value)
    }

    static func values(_ bytes: [UInt8], _ counters: Int) -> [Int] {
        (0..<counters).map { counter(bytes, $0)?.1 ?? .min }
    }

    /// The edited file as the store's splices give it: the old file's bytes around the new
    /// number (pieces of a mapping, which the tuned writer has the kernel copy).
    struct Splice: FileContent {
        let base: FileSnapshot
        let range: Range<Int>
        let number: [UInt8]

        init?(_ base: FileSnapshot, key: Int, adding amount: Int) {
            let bytes = base.bytes.withUnsafeBufferPointer { Array($0) }
            guard let (range, value) = counter(bytes, key) else { return nil }
            self.base = base
            self.range = range
            number = Array(String(value + amount).utf8)
        }

        func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
            try base.bytes.withUnsafeBufferPointer { all in
                let raw = UnsafeRawBufferPointer(all)
                return try body(UnsafeRawBufferPointer(rebasing: raw[..<range.lowerBound]))
                    && number.withUnsafeBytes { try body($0) }
                    && body(UnsafeRawBufferPointer(rebasing: raw[range.upperBound...]))
            }
        }
    }
}
