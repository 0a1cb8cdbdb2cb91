// A large tape's pages are faulted in by a thread of their own a little ahead of the parse
// writing it, never far past what the parse will write. (Which pages are present when is the
// kernel's: the bench's first-screen rows measure it. Parses with and without it are compared
// in JSONTree's tuning tests.)
#if canImport(Glibc)
import Glibc
#endif
@testable import EngineMemory
import Testing
import TestSupport

@Suite struct TapePrefaultTests {
    static let mib = 1 << 20

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
}
