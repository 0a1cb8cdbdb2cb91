// A writer's parse says how far it is and where the first value at its path lies (its range,
// when it is a number, string or literal; its member's bytes up to the next key, when it is an
// object's member followed by another), while it runs, so that the writer can start the new
// file early. What it says must be the truth about the text: the value is the first one at the
// path in the file (duplicate keys, escaped keys and arrays on the way), every position passed
// lies before it, and values of the same key elsewhere are not it.
@testable import JSONTree
import Testing
import TestSupport

@Suite struct PathWatchTests {
    @Test func theFirstValueAtThePathIsFoundAndEveryPositionPassedLiesBeforeIt() throws {
        var found = 0, absent = 0, followed = 0, last = 0
        try forEachSeed(1500) { seed, rng in
            let depth = rng.int(1...3)
            let path = (0..<depth).map { _ in rng.chance(0.3) ? String(rng.int(0..<3)) : rng.pick(["a", "b", "é"]) }
            var text = [UInt8](), values = [(range: Range<Int>, scalar: Bool)](), members = [Member]()
            emitContainer(level: 0, path, &text, &values, &members, &rng)
            let heard = parse(text, path)
            // The first value at the path: named when it is a scalar; nothing is passed after its start.
            let first = values.first
            let model = first?.scalar == true ? first?.range : nil
            #expect(heard.found == model, "seed \(seed): \(path) in \(String(decoding: text, as: UTF8.self))")
            #expect(heard.passed == heard.passed.sorted() && heard.passed.allSatisfy { $0 <= (first?.range.lowerBound ?? text.count) },
                    "seed \(seed): passed \(heard.passed), value at \(String(describing: first))")
            // Watching changes nothing about the parse.
            let plain = try JSONDocument(parsing: DocumentBytes(text), keeping: Path(keys: path))
            #expect(heard.document?.root.json == plain.root.json, "seed \(seed)")
            // The first member at the path, when another follows it in its object: from its key to that one's.
            let span = members.first.flatMap { member in member.next.map { member.key..<$0 } }
            #expect(heard.followed == span, "seed \(seed): \(path) in \(String(decoding: text, as: UTF8.self))")
            if model == nil { absent += 1 } else { found += 1 }
            if span != nil { followed += 1 } else if !members.isEmpty { last += 1 }
        }
        #expect(found > 300 && absent > 300, "found \(found), absent \(absent)")
        #expect(followed > 200 && last > 80, "followed \(followed), last in their objects \(last)")
    }

    /// In a file of megabytes, the parse says how far it is many times before it reaches the value.
    @Test func aLongWayToTheValueIsReportedAsItGoes() throws {
        var text = Array(#"{"before": ["#.utf8)
        for i in 0..<600_000 { text += Array("\(i),".utf8) }
        text += Array(#"0], "a": {"b": 17}, "after": [1, 2]}"#.utf8)
        let at = text.count - #"17}, "after": [1, 2]}"#.utf8.count
        let heard = parse(text, ["a", "b"])
        #expect(heard.found == at..<at + 2)
        #expect(heard.passed.count >= 3 && heard.passed.allSatisfy { $0 > 0 && $0 <= at }, "\(heard.passed)")
    }

    /// A parse that fails after the value was found has still said where it is; the error is
    /// the whole parse's.
    @Test func aFailureAfterTheValueIsStillAFailure() throws {
        let text = Array(#"{"a": 1, "b": tru}"#.utf8)
        var found: Range<Int>?
        let watch = PathWatch(passed: { _ in }, found: { found = $0 })
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: DocumentBytes(text), keeping: Path(keys: ["a"]), watch: watch) }
        #expect(found == 6..<7)
    }
}

/// What a watched parse of `text` kept to `path` said, and its document (nil when it failed).
private func parse(_ text: [UInt8], _ path: [String])
    -> (found: Range<Int>?, followed: Range<Int>?, passed: [Int], document: JSONDocument?)
{
    var found: Range<Int>?, followed: Range<Int>?, passed = [Int](), calls = 0, followedCalls = 0
    let watch = PathWatch(passed: { passed.append($0) }, found: {
        calls += 1
        found = $0
    }, followed: {
        followedCalls += 1
        followed = $0
    })
    let document = try? JSONDocument(parsing: DocumentBytes(text), keeping: Path(keys: path), watch: watch)
    #expect(calls <= 1 && followedCalls <= 1, "found said \(calls) times, followed \(followedCalls)")
    return (found, followed, passed, document)
}

/// An object member at the whole path: where its key starts, and the key after it in its
/// object, if any.
private struct Member {
    var key: Int
    var next: Int?
}

/// Values that lie beside the path: some hold the path's keys, which are not on it there.
private let fillers = [#"1"#, #""a""#, #"{"b": 7, "a": 8}"#, #"[1, "é", 2]"#, #"null"#, #"true"#, #"{"é": {"a": 0}}"#, #"[[0, 1, 2]]"#]

/// Scalars the path may end at, as spelled in a file.
private let scalars = [#"5"#, #"-0.5e3"#, #""x\"y""#, #"false"#, #"null"#, #""\u00e9""#, #"true"#]

/// Writes a container at `level` of `path`: an array when the key there is an index (sometimes),
/// else an object whose members include the key zero, one or two times (spelled with escapes
/// sometimes). Appends to `values` each value at the whole path, in file order: its range (a
/// container's start only) and whether it is a scalar.
private func emitContainer(
    level: Int, _ path: [String], _ text: inout [UInt8], _ values: inout [(range: Range<Int>, scalar: Bool)],
    _ found: inout [Member], _ rng: inout SplitMix64
) {
    let key = path[level]
    if let index = Int(key), rng.chance(0.7) {
        text += Array("[".utf8)
        let count = index + rng.int(0..<3)
        for i in 0..<count {
            if i > 0 { text += Array(", ".utf8) }
            if i == index { emitValue(level: level, path, &text, &values, &found, &rng) } else { text += Array(rng.pick(fillers).utf8) }
        }
        text += Array("]".utf8)
        return
    }
    text += Array("{".utf8)
    var members = (0..<rng.int(0..<3)).map { _ in false }
    for _ in 0..<rng.int(0...2) { members.insert(true, at: rng.int(0...members.count)) }
    var previous: Int?  // in `found`, the member before when it is at the whole path
    for (i, onPath) in members.enumerated() {
        if i > 0 { text += Array(", ".utf8) }
        if let previous { found[previous].next = text.count }
        previous = nil
        if onPath {
            if level == path.count - 1 {
                previous = found.count
                found.append(Member(key: text.count))
            }
            text += Array(spelled(key, &rng).utf8) + Array(": ".utf8)
            emitValue(level: level, path, &text, &values, &found, &rng)
        } else {
            text += Array("\"other\(i)\": ".utf8) + Array(rng.pick(fillers).utf8)
        }
    }
    text += Array("}".utf8)
}

/// The value at `path[level]`: the next container on the way, a scalar (at the last key, the
/// value the watch names; before, the end of the way), or a container the way stops at.
private func emitValue(
    level: Int, _ path: [String], _ text: inout [UInt8], _ values: inout [(range: Range<Int>, scalar: Bool)],
    _ found: inout [Member], _ rng: inout SplitMix64
) {
    let last = level == path.count - 1
    let pick = rng.int(0..<5)
    let start = text.count
    if pick < 2 && !last {
        emitContainer(level: level + 1, path, &text, &values, &found, &rng)
    } else if pick < 3 {
        text += Array(rng.pick(scalars).utf8)
        if last { values.append((start..<text.count, true)) }
    } else {
        // A container the path does not go on in (at the last key, the value there).
        text += Array(rng.pick([#"{}"#, #"[]"#, #"{"zz": [1]}"#]).utf8)
        if last { values.append((start..<start, false)) }
    }
}

/// `key` as a JSON string, with its letters escaped sometimes.
private func spelled(_ key: String, _ rng: inout SplitMix64) -> String {
    guard rng.chance(0.3) else { return "\"\(key)\"" }
    return "\"" + key.unicodeScalars.map { "\\u" + String(repeating: "0", count: 4 - String($0.value, radix: 16).count) + String($0.value, radix: 16) }.joined() + "\""
}
