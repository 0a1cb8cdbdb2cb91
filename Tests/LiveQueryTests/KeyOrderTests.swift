import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

@Suite struct KeyOrderTests {
    @Test func integerKeys() {
        for k in ["0", "7", "007", "-5", "-0", "2147483647", "-2147483648", "0000000000001", "00000000000"] {
            #expect(integerKeyValue(k) != nil, "\(k) is an integer key")
        }
        for k in ["2147483648", "-2147483649", "+5", " 5", "5 ", "5.0", "1e3", "", "-", "12345678901", "٣", "0x1"] {
            #expect(integerKeyValue(k) == nil, "\(k) is not an integer key")
        }
        #expect(integerKeyValue("007") == 7)
        #expect(integerKeyValue("-2147483648") == Int32.min)
    }

    @Test func integerKeysFirstNumericallyShorterFirst() {
        let sorted = ["-5", "0", "7", "007", "10", "2147483647", "+5", "2147483648", "A", "a", "b"]
        for (i, a) in sorted.enumerated() {
            for (j, b) in sorted.enumerated() {
                let c = nameCompare(a, b)
                #expect(i < j ? c < 0 : (i == j ? c == 0 : c > 0), "\(a) vs \(b)")
            }
        }
    }

    @Test func codeUnitsNotCanonicalEquivalence() {
        // "é" (U+00E9) and "e\u{301}" are equal as Swift Strings but distinct keys.
        #expect("é" == "e\u{301}")
        #expect(nameCompare("é", "e\u{301}") > 0)
        #expect(nameCompare("e\u{301}", "é") < 0)
        // UTF-16 order: a supplementary character (surrogates D83D…) sorts before U+FF61.
        #expect(nameCompare("😀", "\u{FF61}") < 0)
        #expect(nameCompare("Z", "a") < 0)
    }

    @Test func zeroSpellingsAreATotalOrder() {
        #expect(nameCompare("0", "-0") < 0)
        #expect(nameCompare("-0", "00") < 0)
        #expect(nameCompare("00", "-0") > 0)
    }

    @Test func matchesReferenceOnRandomKeys() {
        let alphabet: [String] = ["0", "1", "9", "-", "+", "a", "é", "e\u{301}", "😀", "\u{FF61}", " ", "."]
        forEachSeed(400) { seed, rng in
            func key() -> String {
                if rng.chance(0.2) { return rng.pick(keyPool) }
                return (0..<rng.int(0..<12)).map { _ in rng.pick(alphabet) }.joined()
            }
            let a = key(), b = key()
            let c = nameCompare(a, b), r = refNameCompare(a, b)
            #expect(c.signum() == r.signum(), "seed \(seed): \(a.debugDescription) vs \(b.debugDescription)")
            #expect(nameCompare(b, a).signum() == -c.signum(), "seed \(seed): antisymmetric")
        }
    }
}
