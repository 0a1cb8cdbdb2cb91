// The plain engine is the tuned one's reference: a parse with mapped, prefaulted tape memory
// (`EngineTuning.tuned`) gives the tape, entry for entry, or the error a plain parse (malloc, one
// thread) gives, and so do the edits re-parsed from each. (The split over two threads is
// compared at random places in `TwoThreadParseTests`.)
@testable import JSONTree
import Testing
import TestSupport

@Suite struct TuningTests {
    static func entries(_ document: JSONDocument) -> [UInt64] {
        (0..<document.tape.count).map { UInt64(document.tape[$0].start) << 32 | UInt64(document.tape[$0].word) }
    }

    /// 2,200,000 elements: a tape estimate of 35 MB, over the prefault's and the mappings'
    /// thresholds; valid, cut short, and with an error at its very end; then one element edited
    /// at a random place, re-parsed from each document.
    @Test func largeParsesAreTheSamePlainAndTuned() throws {
        let count = 2_200_000
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(count * 5)
        let numbers = (0..<1000).map { Array(String($0).utf8) }
        for i in 0..<count {
            if i > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: numbers[i % 1000])
        }
        let whole = text + [UInt8(ascii: "]")]
        let plain = try JSONDocument(parsing: DocumentBytes(whole), tuning: .plain)
        let tuned = try JSONDocument(parsing: DocumentBytes(whole), tuning: .tuned)
        #expect(Self.entries(plain) == Self.entries(tuned))
        #expect(tuned.root.count == count && tuned.root.child("2199999")?.doubleValue == 999)
        for broken in [Array(text[..<(text.count * 2 / 3)]), text + Array(",]".utf8)] {
            let errors = [EngineTuning.plain, .tuned].map { tuning in
                #expect(throws: JSONParseError.self) { try JSONDocument(parsing: DocumentBytes(broken), tuning: tuning) }
            }
            #expect(errors[0]?.offset == errors[1]?.offset && errors[0]?.message == errors[1]?.message)
        }
        var rng = SplitMix64(seed: 44)
        var edited = whole
        let at = rng.int(1..<whole.count - 1)
        let digit = edited[at...].firstIndex { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }!
        edited.insert(UInt8(ascii: "7"), at: digit)
        let (fromPlain, fromTuned) = (try plain.reparsing(edited), try tuned.reparsing(edited))
        #expect(Self.entries(fromPlain) == Self.entries(fromTuned))
    }
}
