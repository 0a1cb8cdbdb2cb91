import Testing
@testable import JSONTree
import TestSupport

// JSON Lines and value streams read in random pieces (mid-line, mid-UTF-8 sequence): after every
// piece the document holds exactly the complete records, each equal to a parse of its own line,
// and its tape is exactly the tape a parse of its bytes gives.

@Suite struct JSONLinesTests {
    /// What one line of a file should become: nil for a blank line, else its value or its error row.
    private func expectedRecord(_ line: ArraySlice<UInt8>, lineNumber: Int) -> JSON? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        do {
            return try JSONDocument(parsing: Array(line)).root.json
        } catch {
            return errorRow(line: lineNumber, column: error.column, message: error.message)
        }
    }

    private func errorRow(line: Int, column: Int, message: String) -> JSON {
        .object(JSONObject([(JSONLinesBuilder.errorMember, .object(JSONObject([
            ("line", .number(JSONNumber(line))), ("column", .number(JSONNumber(column))), ("message", .string(message)),
        ])))]))
    }

    private func randomLine(_ rng: inout SplitMix64) -> [UInt8] {
        switch rng.int(0..<10) {
        case 0: return []
        case 1: return Array(rng.pick(["  ", "\t", " \r"]).utf8)
        case 2: return Array(rng.pick(["{\"a\":", "tru", "[1,]", "\"open", "{\"é\":1} x", "1 2", "{'a':1}", "\"\u{1}\""]).utf8)
        default:
            var bytes = Gen.value(&rng, depth: 3).serialized()
            if rng.chance(0.2) { bytes = Array("  ".utf8) + bytes + Array(" \r".utf8) }
            return bytes
        }
    }

    /// Checks `builder`'s document against the complete lines of `input`.
    private func check(_ builder: inout JSONLinesBuilder, _ input: [UInt8], final: Bool, seed: UInt64) throws {
        var lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
        // The part after the last newline is not a line yet (or, at the end, not one when empty).
        if !final || lines.last!.isEmpty { lines.removeLast() }
        let document = builder.document()
        #expect(builder.count == lines.count, "seed \(seed)")
        let root = document.root
        #expect(root.kind == .array)
        var elements = Array(root.elements)
        #expect(elements.count == lines.count, "seed \(seed)")
        var errors = 0
        for (i, line) in lines.enumerated() where i < elements.count {
            let expected = expectedRecord(line, lineNumber: i + 1)
            if let expected {
                #expect(elements[i].json == expected, "seed \(seed) line \(i + 1): \(String(decoding: line, as: UTF8.self))")
                if expected[JSONLinesBuilder.errorMember] != nil { errors += 1 }
            } else {
                #expect(elements[i].isNull, "seed \(seed) line \(i + 1) is blank")
            }
        }
        #expect(builder.errors.count == errors, "seed \(seed)")
        elements = []
        // The bytes with a closing bracket (which they leave out, for the next record's comma)
        // are one valid array whose parse has exactly this tape.
        let reparsed = try JSONDocument(parsing: document.bytes.array + [UInt8(ascii: "]")])
        // (The root's next index and end are the document's own; its end is before the bracket.)
        #expect(reparsed.tape.count == document.tape.count, "seed \(seed)")
        #expect(reparsed.tape.rootNext == document.tape.rootNext && reparsed.tape.rootEnd == document.tape.rootEnd + 1, "seed \(seed)")
        for k in 2..<min(reparsed.tape.count, document.tape.count) {
            let a = document.tape[k], b = reparsed.tape[k]
            if a.start != b.start || a.word != b.word {
                Issue.record("seed \(seed): tape entry \(k) differs")
                break
            }
        }
    }

    @Test func linesReadInRandomPiecesEqualAParseOfEachLine() throws {
        try forEachSeed(300) { seed, rng in
            var input = [UInt8]()
            for _ in 0..<rng.int(0...25) {
                input += randomLine(&rng)
                input.append(0x0A)
            }
            if rng.chance(0.5) { input += randomLine(&rng) }  // a last line without its newline
            var builder = JSONLinesBuilder(mode: .lines)
            var at = 0
            while at < input.count {
                // Pieces of 1 to 40 bytes: cuts fall mid-line and inside UTF-8 sequences.
                let end = min(input.count, at + rng.int(1...40))
                builder.append(input[at..<end])
                at = end
                try check(&builder, Array(input[0..<at]), final: false, seed: seed)
            }
            builder.finish()
            try check(&builder, input, final: true, seed: seed)
            #expect(builder.consumed == input.count, "seed \(seed)")
            // Handing the bytes and tape over gives the same document as copying them.
            let copied = builder.document()
            let moved = builder.finishedList()
            #expect(moved.bytes == copied.bytes && moved.root.json == copied.root.json, "seed \(seed)")
        }
    }

    @Test func anErrorRowNamesItsLineColumnAndMessage() {
        var builder = JSONLinesBuilder(mode: .lines)
        builder.append(Array("{\"a\":1}\n\n  {\"a\": tru}\n{\"a\":3}\n".utf8))
        #expect(builder.errors == [JSONLinesError(index: 2, line: 3, column: 12, message: "invalid literal, expected 'true'")])
        let root = builder.document().root
        #expect(root.child("2")?.json == errorRow(line: 3, column: 12, message: "invalid literal, expected 'true'"))
        #expect(root.child("1")?.isNull == true)  // the blank line counts, but is null: no child
        #expect(root.child("3")?.json == .object(JSONObject([("a", .number(JSONNumber(3)))])))
    }

    @Test func valuesSeparatedByAnyWhitespaceAreRecords() {
        forEachSeed(200) { seed, rng in
            let values = (0..<rng.int(0...12)).map { _ in Gen.value(&rng, depth: 3) }
            var input = [UInt8]()
            for (i, value) in values.enumerated() {
                input += Array((i == 1 ? rng.pick(["", " "]) : rng.pick(["", " ", "\n", "\t\n  ", "\r\n"])).utf8)
                input += value.serialized(rng.chance(0.5) ? .pretty : .compact)
                // Two scalars need whitespace between them; containers and strings do not. (No
                // newline straight after a first value on one line: that would be JSON Lines.)
                input += Array((i == 0 ? rng.pick([" ", "\t"]) : rng.pick([" ", "\n", "\n\n", "\t"])).utf8)
            }
            var builder = JSONLinesBuilder(mode: .values)
            var at = 0
            while at < input.count {
                let end = min(input.count, at + rng.int(1...30))
                builder.append(input[at..<end])
                at = end
                // Every record so far is a value of the input, in order.
                let elements = Array(builder.document().root.elements)
                #expect(elements.count <= values.count, "seed \(seed)")
                for (i, e) in elements.enumerated() where i < values.count {
                    #expect(e.json == values[i], "seed \(seed) value \(i)")
                }
            }
            builder.finish()
            let elements = Array(builder.document().root.elements)
            #expect(elements.map(\.json) == values, "seed \(seed)")
            #expect(builder.errors.isEmpty, "seed \(seed)")
            let single = builder.finishedDocument()
            if values.count == 1 { #expect(single?.root.json == values[0], "seed \(seed)") } else { #expect(single == nil) }
        }
    }

    @Test func aStreamWhoseFirstValueIsALineIsReadAsLines() {
        var builder = JSONLinesBuilder(mode: .values)
        builder.append(Array("{\"a\":1}  \r".utf8))
        #expect(builder.count == 1 && builder.mode == .values)
        builder.append(Array("\n{\"b\":\n[2]\n".utf8))
        // An unclosed bracket on one line is that line's error, not the rest of the input's.
        #expect(builder.mode == .lines)
        #expect(builder.count == 3)
        #expect(builder.errors.map(\.line) == [2])
        #expect(builder.document().root.child("2")?.json == .array([.number(JSONNumber(2))]))
    }

    @Test func anInvalidValueInAStreamIsAnErrorRowAndTheNextValuesCount() {
        var builder = JSONLinesBuilder(mode: .values)
        builder.append(Array("{\"a\":1} {\"b\" 2}\n[3] ".utf8))
        #expect(builder.errors == [JSONLinesError(index: 1, line: 1, column: 14, message: "expected ':' after object key, found '2'")])
        let elements = Array(builder.document().root.elements)
        #expect(elements.count == 3)
        #expect(elements.last?.json == .array([.number(JSONNumber(3))]))
        // An unfinished value at the end of the input is an error row too.
        builder.append(Array("{\"c\":".utf8))
        #expect(builder.count == 3)
        builder.finish()
        #expect(builder.count == 4)
        #expect(builder.errors.last?.index == 3)
        #expect(builder.finishedDocument() == nil)
    }

    /// A line longer than `maxRecordBytes` is an error row naming its line, is never held whole
    /// (the input waiting stays under the limit and one piece), and the lines after it are read
    /// with their own line numbers, however the input is cut.
    @Test func aLineLongerThanTheLimitIsSkippedAndReadingGoesOn() {
        let long = "{\"pad\": \"" + String(repeating: "x", count: 500) + "\"}"
        let input = Array("{\"a\":1}\n\(long)\n{\"a\":2}\n{\"a\": tru}\n\(long)\n{\"a\":3}\n".utf8)
        forEachSeed(100) { seed, rng in
            for mode in [JSONLinesBuilder.Mode.lines, .values] {
                var builder = JSONLinesBuilder(mode: mode, maxRecordBytes: 100)
                var at = 0
                // Pieces of up to 40 bytes, or (every fourth seed) the whole input at once.
                let piece = seed % 4 == 0 ? input.count : 40
                while at < input.count {
                    let end = min(input.count, at + rng.int(1...piece))
                    builder.append(input[at..<end])
                    #expect(builder.pendingCount <= 100 + piece, "seed \(seed)")
                    at = end
                }
                builder.finish()
                let message = "the record is longer than 100 bytes; it was skipped"
                #expect(builder.errors.map(\.line) == [2, 4, 5], "seed \(seed) \(mode)")
                #expect(builder.errors.map(\.index) == [1, 3, 4], "seed \(seed) \(mode)")
                #expect(builder.errors[0].message == message && builder.errors[2].message == message)
                let root = builder.document().root
                #expect(root.child("1")?.json == errorRow(line: 2, column: 1, message: message))
                #expect(root.elements.map(\.json).enumerated().filter { ![1, 3, 4].contains($0.offset) }.map(\.element)
                        == [1, 2, 3].map { JSON.object(JSONObject([("a", .number(JSONNumber($0)))])) }, "seed \(seed) \(mode)")
            }
        }
    }

    @Test func recordsStopAtTheOffsetLimitInsteadOfWrapping() {
        var builder = JSONLinesBuilder(mode: .lines, byteLimit: 1000)
        let line = Array("{\"pad\":\"\(String(repeating: "x", count: 90))\"}\n".utf8)
        for _ in 0..<20 { builder.append(line) }
        let (full, count) = (builder.isFull, builder.count)
        #expect(full)
        #expect(count == 7)  // 7 × 101 bytes + the 256 kept free fit under 1000
        #expect(builder.document().root.elements.reduce(0) { n, _ in n + 1 } == 7)
        #expect(builder.document().bytes.count < 1000)
    }

    /// Records of empty arrays take two tape entries in two bytes: the entry limit (31-bit
    /// indexes) comes before the byte limit, and stops the records instead of wrapping.
    @Test func recordsStopAtTheEntryLimitInsteadOfWrapping() {
        var builder = JSONLinesBuilder(mode: .lines, byteLimit: 1 << 20, entryLimit: 1000)
        for _ in 0..<1000 { builder.append(Array("[]\n".utf8)) }
        let (full, count) = (builder.isFull, builder.count)
        #expect(full)
        let document = builder.document()
        #expect(document.tape.count < 1000)
        #expect(document.root.elements.allSatisfy { $0.kind == .array && $0.count == 0 })
        #expect(document.root.elements.reduce(0) { n, _ in n + 1 } == count)
        #expect(count > 300)
    }

    @Test func theTailOfAFileHasTheLastChildrenOfAFullReadWithTheirKeys() {
        forEachSeed(300) { seed, rng in
            var input = [UInt8]()
            for _ in 0..<rng.int(0...30) {
                input += randomLine(&rng)
                input.append(0x0A)
            }
            if rng.chance(0.5) { input += randomLine(&rng) }
            var full = JSONLinesBuilder(mode: .lines)
            full.append(input)
            full.finish()
            let all = Array(full.finishedList().root.elements)
            let n = rng.int(1...12)
            let tail = input.withUnsafeBufferPointer { JSONLinesBuilder.tail(of: $0, children: n) }
            let shown = Array(tail.root.elements)
            #expect(shown.count == all.count, "seed \(seed)")
            let children = all.indices.filter { !all[$0].isNull }
            let tailChildren = shown.indices.filter { !shown[$0].isNull }
            #expect(tailChildren == Array(children.suffix(n)), "seed \(seed)")
            for i in tailChildren where i < all.count {
                #expect(shown[i].json == all[i].json, "seed \(seed) line \(i + 1)")
            }
        }
    }

    @Test func aTailFoundInTheEndOfAFileIsTheTailOfTheWholeFile() {
        forEachSeed(300) { seed, rng in
            var input = [UInt8]()
            for _ in 0..<rng.int(0...30) {
                input += randomLine(&rng)
                input.append(0x0A)
            }
            if rng.chance(0.5) { input += randomLine(&rng) }
            let n = rng.int(1...8)
            input.withUnsafeBufferPointer { all in
                #expect(JSONLinesBuilder.countNewlines(all) == all.filter { $0 == 0x0A }.count, "seed \(seed)")
                let whole = JSONLinesBuilder.tail(of: all, children: n)
                // The end of the file from a random offset (a line may be cut there).
                let from = rng.int(0...all.count)
                guard let start = JSONLinesBuilder.tailStart(in: UnsafeBufferPointer(rebasing: all[from...]), children: n) else { return }
                let cut = from + start
                let found = JSONLinesBuilder.records(UnsafeBufferPointer(rebasing: all[cut...]),
                                                     afterLines: JSONLinesBuilder.countNewlines(UnsafeBufferPointer(rebasing: all[..<cut])))
                #expect(found.root.json == whole.root.json, "seed \(seed) from \(from)")
            }
        }
    }
}
