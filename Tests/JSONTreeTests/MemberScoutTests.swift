// A writer's parse of a large file takes the members of a large object from a scout that
// validated them on another thread (`MemberScout`). Wherever the scout starts, and however the
// two threads meet, the parse must be the parse without it: the same tape, the same members
// found on the path, the same values told to the writer, and the same error.
@testable import JSONTree
import Testing
import TestSupport

@Suite struct MemberScoutTests {
    @Test func aScoutedParseIsTheParseWithoutAScout() throws {
        var (scouted, taken, invalid) = (0, 0, 0)
        try forEachSeed(300) { seed, rng in
            var (text, path) = scoutedDocument(&rng)
            if rng.chance(0.3) {
                // One byte changed, inserted or removed: often invalid, anywhere.
                let at = rng.int(0..<text.count)
                switch rng.int(0..<3) {
                case 0: text[at] = rng.pick(Array("{}[]\",:0-e.tfn \\\u{1}".utf8) + [0xC3, 0x80, 0xFF])
                case 1: text.insert(rng.pick(Array("{}[]\",:0e\\".utf8)), at: at)
                default: text.remove(at: at)
                }
            }
            let plain = prunedParse(text, path, scoutFrom: .max)
            if case .failure = plain.outcome { invalid += 1 }
            #expect(plain.taken == 0)
            // The scout from anywhere: the start, inside strings and children, the large object.
            let starts = [0, text.count - 1] + (0..<6).map { _ in rng.int(0..<text.count) }
            for from in starts {
                // Watched, as a writer's parse is, the scout halts once the value is found (at
                // a moment that varies from run to run); unwatched, it lists all it can.
                let split = prunedParse(text, path, scoutFrom: from)
                #expect(split.outcome == plain.outcome, "seed \(seed) from \(from): \(String(decoding: text, as: UTF8.self))")
                #expect(split.found == plain.found && split.followed == plain.followed, "seed \(seed) from \(from)")
                #expect(split.passed == split.passed.sorted() && split.passed.allSatisfy { $0 <= (plain.found?.lowerBound ?? text.count) },
                        "seed \(seed) from \(from): passed \(split.passed)")
                let unwatched = prunedParse(text, path, scoutFrom: from, watched: false)
                #expect(unwatched.outcome == plain.outcome, "seed \(seed) from \(from), unwatched")
                if unwatched.taken > 0 { scouted += 1 }
                taken += unwatched.taken
            }
        }
        // Most starts land in the large object or in a child of it, where the scout settles (the
        // counts are the same in every run: unwatched, nothing about the scout depends on timing).
        #expect(scouted > 800 && taken > 100_000 && invalid > 45, "\(scouted) scouted, \(taken) members taken, \(invalid) invalid")
    }

    /// A file over the threshold is scouted from its middle by default, and its parse is the
    /// parse without the scout.
    @Test func aLargeFileIsScoutedByDefault() throws {
        var text = Array(#"{"meta": {"n": 1}, "players": {"#.utf8)
        var i = 0
        while text.count < MemberScout.threshold + 1000 {
            if i > 0 { text += Array(",\n    ".utf8) }
            text += Array(#""p\#(String(1_000_000 + i).dropFirst())": {"name": "n\#(i)", "score": \#(i * 7 % 1000), "tags": ["a", "\u00e9"]}"#.utf8)
            i += 1
        }
        text += Array("}}".utf8)
        let path = Path(keys: ["players", "p" + String(1_000_000 + i - 3).dropFirst(), "score"])
        let plain = prunedParse(text, path, scoutFrom: .max)
        let scouted = prunedParse(text, path, scoutFrom: nil)
        #expect(scouted.outcome == plain.outcome && scouted.found == plain.found && scouted.followed == plain.followed)
        #expect(scouted.taken > i / 3, "\(scouted.taken) of \(i) members taken from the scout")
        if case .failure(let error) = plain.outcome { Issue.record("\(error)") }
    }

    /// An error early in the file stops a scout that is still reading a large value far on.
    @Test func anEarlyErrorStopsTheScout() throws {
        var text = Array(#"{"a": tru, "big": {"x": 1, "#.utf8)
        text += Array(#""y": ["#.utf8) + Array(repeating: Array("[1, 2, 3], ".utf8), count: 400_000).joined() + Array("0]}, \"k\": 1}".utf8)
        let plain = prunedParse(text, Path(keys: ["k"]), scoutFrom: .max)
        let scouted = prunedParse(text, Path(keys: ["k"]), scoutFrom: 30)
        guard case .failure(let error) = plain.outcome else { Issue.record("parsed"); return }
        #expect(scouted.outcome == .failure(error))
    }
}

/// A parse's outcome in comparable form: its tape, what it found on the path, or its error.
private struct PrunedParse: Equatable {
    var tape: [UInt64]
    var pathMembers: [String]
}

private func prunedParse(_ text: [UInt8], _ path: Path, scoutFrom: Int?, watched: Bool = true)
    -> (outcome: Result<PrunedParse, JSONParseError>, found: Range<Int>?, followed: Range<Int>?, passed: [Int], taken: Int)
{
    var found: Range<Int>?, followed: Range<Int>?, passed = [Int](), taken = -1
    let watch = !watched ? nil : PathWatch(passed: { passed.append($0) }, found: { found = $0 }, followed: { followed = $0 })
    let outcome = text.withUnsafeBufferPointer { buf in
        Result { () throws(JSONParseError) -> PrunedParse in
            let (tape, members) = try JSONParser.parse(buf, keeping: path, watch: watch, scoutFrom: scoutFrom) { taken = $0 }
            let entries = (0..<tape.count).map { UInt64(tape.base[$0].start) << 32 | UInt64(tape.base[$0].word) }
            let objects = members.objects.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.key) \($0.value.matches) \($0.value.lastKey)" }
            return PrunedParse(tape: entries, pathMembers: objects)
        }
    }
    #expect(taken >= 0, "the parse did not say what it took")
    return (outcome, found, followed, passed, taken)
}

/// `{"before": …, "root": {many members}, "after": …}` in a random style, and a path through
/// the large object: its members' keys ascend, repeat or fall, some are the path's key (some
/// spelled with escapes), and some values are objects of many members themselves.
private func scoutedDocument(_ rng: inout SplitMix64) -> (text: [UInt8], path: Path) {
    let named = rng.pick(["k", "é", "m0005"])
    let path = Path(keys: rng.chance(0.2) ? ["root"] + [named, "a"] : ["root", named])
    let separator = rng.pick([",", ", ", ",\n    ", " ,\t"])
    let colon = rng.pick([":", ": ", " : "])
    var members: [String] = []
    // Keys that ascend; that ascend in two runs (the second sharing keys with the first, or
    // not); drawn from a few, repeating; or ascending but with escapes (no order is kept then).
    let keyMode = rng.int(0..<4), count = rng.int(0...300), restart = rng.int(0...count), offset = rng.int(0...400)
    for i in 0..<count {
        let key: String
        switch keyMode {
        case 0: key = "m" + String(String(10_000 + i).dropFirst())
        case 1: key = "m" + String(String(10_000 + (i < restart ? i : i - restart + offset)).dropFirst())
        case 2: key = rng.chance(0.02) ? named : rng.pick(["a", "b", "m0001", "m0005", "zz", "é", "k0", "🙂"])
        default: key = rng.chance(0.02) ? named : "m" + String(String(10_000 + i).dropFirst())
        }
        let value: String
        switch rng.int(0..<10) {
        case 0:
            // A child of many members: a scout starting inside it settles there first.
            value = "{" + (0..<rng.int(60...80)).map { "\"c\($0)\"\(colon)\($0)" }.joined(separator: separator) + "}"
        case 1: value = #""esc\"aped\n""#
        case 2: value = "{\"a\"\(colon)[1, {\"k\": 2}]}"
        default: value = String(decoding: StyledWriter.random(&rng).write(randomTree(&rng, depth: 1)), as: UTF8.self)
        }
        members.append((keyMode >= 2 ? spelled(key, &rng) : "\"\(key)\"") + colon + value)
    }
    let before = String(decoding: StyledWriter.random(&rng).write(randomTree(&rng, depth: 0)), as: UTF8.self)
    let after = String(decoding: StyledWriter.random(&rng).write(randomTree(&rng, depth: 0)), as: UTF8.self)
    let text = "{\"before\"\(colon)\(before)\(separator)\"root\"\(colon){" + members.joined(separator: separator)
        + "}\(separator)\"after\"\(colon)\(after)}"
    return (Array(text.utf8), path)
}

/// `key` as a JSON string, its letters sometimes escaped.
private func spelled(_ key: String, _ rng: inout SplitMix64) -> String {
    guard rng.chance(0.1) else { return "\"\(key)\"" }
    return "\"" + key.utf16.map { "\\u" + String(String(0x10000 + Int($0), radix: 16).dropFirst()) }.joined() + "\""
}
