// A large tape's pages are faulted in by a thread of their own a little ahead of the parse
// writing it: never written by that thread, never far past what the parse has written, and not
// touched once stopped.
#if canImport(Glibc)
import Glibc
#endif
@testable import JSONTree
import Testing
import TestSupport

@Suite struct TapePrefaultTests {
    static let mib = 1 << 20

    /// How many of the pages of `bytes` bytes at `base` are in memory.
    static func residentPages(_ base: UnsafeMutableRawPointer, _ bytes: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var map = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
        #expect(mincore(base, bytes, &map) == 0)
        return map.reduce(0) { $0 + Int($1 & 1) }
    }

    /// Waits up to 10 s for every page of the range to be in memory.
    static func waitResident(_ base: UnsafeMutableRawPointer, _ bytes: Int) -> Bool {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for _ in 0..<1000 {
            if residentPages(base, bytes) == bytes / page { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func pagesComeInAheadOfTheWriterAndNoFurther() throws {
        let size = 64 * Self.mib, lead = TapePrefault.lead
        // A mapping of the test's own (a spare one of the tapes' pool may be in memory already),
        // on a 2 MiB boundary: where huge pages are always on, a huge page then never straddles
        // the places checked.
        let huge = 2 * Self.mib
        let raw = try #require(mmap(nil, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(raw != MAP_FAILED)
        defer { munmap(raw, size + huge) }
        let base = raw + (huge - Int(bitPattern: raw) % huge) % huge
        #expect(Self.residentPages(base, size) == 0)

        let prefault = TapePrefault(base: base, bytes: size)
        // Told nothing yet: nothing.
        usleep(50_000)
        #expect(Self.residentPages(base, size) == 0)
        // Told of the lead: that, and no further.
        prefault.tell(upTo: lead)
        #expect(Self.waitResident(base, lead))
        usleep(50_000)
        #expect(Self.residentPages(base + lead, size - lead) == 0)

        // The writer fills 24 MiB with a pattern as it goes, telling the prefault.
        let written = 24 * Self.mib
        let words = base.assumingMemoryBound(to: UInt64.self)
        for chunk in stride(from: 0, to: written, by: Self.mib) {
            for w in chunk / 8..<(chunk + Self.mib) / 8 { words[w] = UInt64(w) &* 0x9E37_79B9_7F4A_7C15 }
            prefault.tell(upTo: chunk + Self.mib + lead)
        }
        let ahead = written + lead
        #expect(Self.waitResident(base, ahead))
        usleep(50_000)
        #expect(Self.residentPages(base + ahead, size - ahead) == 0)

        // Stopped: told of more, it makes nothing more present; what was written is as written.
        prefault.stop()
        prefault.tell(upTo: size)
        usleep(50_000)
        #expect(Self.residentPages(base + ahead, size - ahead) == 0)
        let intact = (0..<written / 8).allSatisfy { words[$0] == UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        #expect(intact)
    }

    /// How far ahead the pages are asked for: the lead, but never past the tape's size foreseen
    /// from what the parse has written per input byte so far, and never behind what is written.
    @Test func theLeadStopsAtTheTapesForeseenSize() {
        let lead = TapePrefault.lead, mib = Self.mib
        // Nothing read yet: nothing ahead.
        #expect(TapePrefault.wanted(written: 0, at: 0, of: 150 * mib) == 0)
        // A tape of 3 bytes an input byte: the lead, early on.
        #expect(TapePrefault.wanted(written: 3 * mib, at: mib, of: 150 * mib) == 3 * mib + lead)
        // Near the end: the tape's foreseen end, not the lead past it.
        #expect(TapePrefault.wanted(written: 447 * mib, at: 149 * mib, of: 150 * mib) == 450 * mib)
        // A parse that has written more than its ratio foresees (a burst of small values) is
        // never asked to go back.
        forEachSeed(2_000) { seed, r in
            let input = r.int(1...(1 << 30)), at = r.int(1...input), written = r.int(0...(8 * at))
            let wanted = TapePrefault.wanted(written: written, at: at, of: input)
            #expect(wanted >= written && wanted <= written + lead, "seed \(seed)")
            let foreseen = Double(written) / Double(at) * Double(input)
            #expect(Double(wanted) <= max(Double(written), foreseen) + 1, "seed \(seed)")
        }
    }

    /// Parses with a tape over the prefault's threshold: valid input gives the document, and
    /// an error found at the very end gives the error (its tape given back with the prefault
    /// stopped first).
    @Test func largeParsesGiveTheirDocumentOrTheirError() throws {
        // 3,000,000 elements: a tape estimate of 48 MB, over the threshold.
        let count = 3_000_000
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(count * 5)
        for i in 0..<count {
            if i > 0 { text.append(UInt8(ascii: ",")) }
            text += Array(String(i % 1000).utf8)
        }
        let document = try JSONDocument(parsing: text + [UInt8(ascii: "]")])
        let root = document.root
        #expect(root.count == count)
        #expect(root.child("2999999")?.doubleValue == 999)
        #expect(root.child("1234")?.doubleValue == 234)
        let error = try #require(throws: JSONParseError.self) { try JSONDocument(parsing: text + Array(",]".utf8)) }
        #expect(error.offset == text.count + 1)
    }
}
