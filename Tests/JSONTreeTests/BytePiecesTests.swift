// A document's bytes held in pieces (`BytePieces`) must read exactly as the same bytes in one
// buffer, through every reader of nodes (`TapeReader`, `JSONNode`), the writer and the edits.
import EngineMemory
@testable import JSONTree
import Testing
import TestSupport

@Suite struct BytePiecesTests {
    /// Every node's tape index, keys included (shadowed ones too), in file order.
    static func nodes(_ t: TapeReader) -> [Int] {
        var out: [Int] = []
        func walk(_ i: Int) {
            out.append(i)
            guard t.isContainer(i) else { return }
            var k = t.firstChild(i)
            let end = t.nextIndex(i)
            while k < end {
                if t.kind(i) == .object {
                    out.append(k)
                    k += 1
                }
                walk(k)
                k = t.nextIndex(k)
            }
        }
        walk(0)
        return out
    }

    /// `document`'s bytes cut into pieces between tokens (at random, some pieces a byte long),
    /// each piece in a block of its own at a random offset, the block's other bytes `0xFF`.
    static func pieced(_ document: JSONDocument, _ r: inout SplitMix64) -> (JSONDocument, pieces: Int) {
        let bytes = document.bytes.array
        var insideToken = [Bool](repeating: false, count: bytes.count + 1)
        document.withTapeReader { t in
            for i in nodes(t) where !t.isContainer(i) {
                for p in (t.start(i) + 1)..<t.end(i) { insideToken[p] = true }
            }
        }
        let cutChance = r.pick([0.05, 0.3, 0.9])
        var parts: [BytePart] = []
        var start = 0
        for p in 1...bytes.count where p == bytes.count || (!insideToken[p] && r.chance(cutChance)) {
            let lead = r.int(0...9), count = p - start
            let block = ByteBlock(capacity: lead + count + r.int(0...9))
            block.base.initialize(repeating: 0xFF, count: block.capacity)
            for k in 0..<count { block.base[lead + k] = bytes[start + k] }
            parts.append(BytePart(block: block, offset: lead, count: count))
            start = p
        }
        let pieces = BytePieces(parts)
        return (JSONDocument(bytes: DocumentBytes(pieces: pieces), tape: document.tape), parts.count)
    }

    @Test func aDocumentInPiecesReadsAsInOneBuffer() throws {
        var r = SplitMix64(seed: 54)
        var most = 0
        for round in 0..<200 {
            let value: JSON = round % 4 == 0 ? Gen.value(&r, depth: 2) : .object(JSONObject((0..<r.int(1...6)).map { k in
                (key: r.chance(0.2) ? "k" : "m\(k)", value: Gen.value(&r, depth: 3))
            }))
            let flat = try JSONDocument(parsing: value.serialized(r.chance(0.5) ? .pretty : .compact))
            let (doc, pieces) = Self.pieced(flat, &r)
            most = max(most, pieces)
            #expect(doc.bytes.pieces != nil && doc.bytes == flat.bytes && Array(doc.bytes) == flat.bytes.array)
            flat.withTapeReader { f in
                doc.withTapeReader { p in
                    #expect(p.byteCount == f.byteCount)
                    #expect((0..<f.byteCount).allSatisfy { p.byte(at: $0) == f.byte(at: $0) })
                    let all = Self.nodes(f)
                    for i in all {
                        let range = f.start(i)..<f.end(i)
                        #expect(p.kind(i) == f.kind(i) && p.start(i) == range.lowerBound && p.end(i) == range.upperBound
                                    && p.firstByte(i) == f.firstByte(i), "node \(i)")
                        #expect(p.withBytes(range) { Array($0) } == f.withBytes(range) { Array($0) })
                        // How a scalar too long for its tape entry (512 MB) is measured.
                        if !f.isContainer(i) { #expect(p.scalarEnd(from: range.lowerBound) == range.upperBound) }
                        #expect(p.sameBytes(range, as: f, from: range.lowerBound) && f.sameBytes(range, as: p, from: range.lowerBound))
                        let other = all[r.int(0..<all.count)], otherRange = f.start(other)..<f.end(other)
                        if otherRange.count == range.count {
                            #expect(p.sameBytes(range, as: p, from: otherRange.lowerBound) == f.sameBytes(range, as: f, from: otherRange.lowerBound))
                        }
                        switch f.kind(i) {
                        case .string:
                            #expect(p.withStringBytes(i) { Array($0) } == f.withStringBytes(i) { Array($0) })
                            if !f.hasEscapes(i) { #expect(Array(p.unescapedStringBytes(i)) == Array(f.unescapedStringBytes(i))) }
                        case .number:
                            #expect(p.number(i).bitPattern == f.number(i).bitPattern)
                        case .object:
                            f.forEachMember(of: i) { key, value in
                                let name = f.withStringBytes(key) { Array($0) }
                                let found = name.withUnsafeBufferPointer { (p.member(of: i, named: $0), f.member(of: i, named: $0)) }
                                #expect(found.0 == found.1 && found.1 != nil)
                            }
                        default: break
                        }
                        let a = JSONNode(document: doc, index: i), b = JSONNode(document: flat, index: i)
                        #expect(Array(a.rawBytes) == Array(b.rawBytes) && a.hasSameBytes(as: b) && a.json == b.json)
                    }
                    for _ in 0..<20 {
                        let x = r.int(0...f.byteCount), y = r.int(x...f.byteCount)
                        #expect(p.withBytes(x..<y) { Array($0) } == f.withBytes(x..<y) { Array($0) })
                    }
                }
            }
        }
        #expect(most > 100, "documents were cut into \(most) pieces at most")
    }

    @Test func aDocumentInPiecesIsWrittenAndEditedAsInOneBuffer() throws {
        var r = SplitMix64(seed: 55)
        for _ in 0..<200 {
            let value = JSON.object(JSONObject((0..<r.int(1...6)).map { k in
                (key: r.chance(0.2) ? "k" : r.chance(0.1) ? "m\\u0030" : "m\(k)", value: Gen.value(&r, depth: 3))
            }))
            let flat = try JSONDocument(parsing: value.serialized(r.chance(0.5) ? .pretty : .compact))
            let doc = Self.pieced(flat, &r).0
            var a: [UInt8] = [], b: [UInt8] = []
            doc.root.writeCompact(to: &a)
            flat.root.writeCompact(to: &b)
            #expect(a == b)
            // An edit finds its members by their keys' bytes: one key compared directly, six hashed.
            let keys = ["k", "m0", "m1", "m2", "m3", "m4", "absent"].shuffled(using: &r)
            let edits = [set("/m1", Gen.value(&r, depth: 1)), remove("/k"),
                         update("/", keys.prefix(6).map { ($0, Gen.value(&r, depth: 1)) })]
            for writes in edits {
                func outcome(_ d: JSONDocument) -> String {
                    do { return String(decoding: try d.applying(writes).bytes.array, as: UTF8.self) } catch { return "\(error)" }
                }
                #expect(outcome(doc) == outcome(flat))
            }
        }
    }
}

extension BytePiecesTests {
    /// Random bytes cut at random into pieces, each in a block of its own at a random offset.
    static func cut(_ bytes: [UInt8], _ r: inout SplitMix64) -> DocumentBytes {
        var parts: [BytePart] = [], at = 0
        while at < bytes.count {
            let count = r.int(1...min(bytes.count - at, r.pick([1, 9, 700, 5_000]))), lead = r.int(0...9)
            let block = ByteBlock(capacity: lead + count)
            (block.base + lead).update(from: Array(bytes[at..<at + count]), count: count)
            parts.append(BytePart(block: block, offset: lead, count: count))
            at += count
        }
        return DocumentBytes(pieces: BytePieces(parts))
    }

    /// `bytes` (which hold `reference`) matched against `chunk` from `offset` on and ending at
    /// `end`, as byte-by-byte counts give.
    static func expectMatching(_ bytes: DocumentBytes, holding reference: [UInt8], _ chunk: [UInt8], at offset: Int,
                               endingAt end: Int, _ label: String) {
        chunk.withUnsafeBufferPointer { c in
            var same = 0
            while same < c.count && offset + same < reference.count && reference[offset + same] == c[same] { same += 1 }
            #expect(bytes.matching(prefixOf: c, at: offset) == same, "\(label)")
            var trailing = 0
            while trailing < min(c.count, end) && reference[end - 1 - trailing] == c[c.count - 1 - trailing] { trailing += 1 }
            #expect(bytes.matching(suffixOf: c, endingAt: end) == trailing, "\(label)")
        }
    }

    /// A later state as a read that shares the last one's memory makes it: the last state's own
    /// bytes before and after an edit (`BytePieces.parts`), and new bytes around the edit. Its
    /// ends shared with the last state are counted without comparing the memory both hold; they
    /// must be what a byte-by-byte count gives, against the last state however it is held.
    @Test func bytesSharingTheLastStatesMemoryCompareAsBytes() {
        var r = SplitMix64(seed: 0x5454)
        for round in 0..<300 {
            // A quarter of the states span several groups of pages a suffix is compared by
            // (`trailingPageGroup`), so that the page that differs falls anywhere in a group.
            let size = r.chance(0.25) ? r.int(1...(3 * trailingPageGroup * 4096)) : r.int(1...20_000)
            let old = (0..<size).map { _ in UInt8(r.int(0...2)) }
            var new = old
            let at = r.int(0...old.count), removed = r.int(0...min(old.count - at, 900))
            new.replaceSubrange(at..<at + removed, with: (0..<r.int(0...900)).map { _ in UInt8(r.int(0...2)) })
            let delta = new.count - old.count
            // The last state in one block (its pages' fingerprints known half the time, as a read
            // into a memory file computes them: then compared by them), or itself shared from pieces.
            let block = ByteBlock(capacity: old.count)
            block.base.update(from: old, count: old.count)
            if r.chance(0.5) {
                let prints = PageFingerprints(bytes: old.count)
                old.withUnsafeBytes { prints.set($0, at: 0) }
                block.noteFingerprints(prints)
            }
            let last = r.chance(0.5) ? DocumentBytes(block: block, count: old.count) : Self.cut(old, &r)
            // New bytes over the edit and up to 100 bytes either side; the last state's around them.
            let from = max(0, at - r.int(0...100)), to = min(old.count, at + removed + r.int(0...100))
            let middle = ByteBlock(capacity: max(1, to + delta - from))
            middle.base.update(from: Array(new[from..<(to + delta)]), count: to + delta - from)
            let parts = last.parts(0..<from)! + [BytePart(block: middle, offset: 0, count: to + delta - from)] + last.parts(to..<old.count)!
            let shared = DocumentBytes(pieces: BytePieces(parts))
            #expect(shared.array == new, "round \(round)")

            var prefix = 0
            while prefix < min(old.count, new.count) && old[prefix] == new[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(old.count, new.count) - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
            let label = "round \(round): \(old.count) bytes, \(removed) replaced at \(at), new bytes \(from)..<\(to + delta)"
            // Either way round: the counts do not depend on which state is the later one.
            for (a, b) in [(last, shared), (shared, last), (DocumentBytes(old), shared), (shared, Self.cut(old, &r))] {
                let ends = a.sharedEnds(with: b)
                #expect(ends.prefix == prefix && ends.suffix == suffix, "\(label)")
            }
            #expect((shared == last) == (new == old) && (shared == DocumentBytes(new)), "\(label)")
            // A chunk of the new state against the last one, from any offset.
            let offset = r.int(0...new.count), length = r.int(0...(new.count - offset))
            Self.expectMatching(last, holding: old, Array(new[offset..<offset + length]), at: offset, endingAt: r.int(0...old.count), label)
            // The same against the later state, whose pieces start and end mid-page in a block
            // whose fingerprints may be known: its own bytes from any offset, one of them changed
            // half the time (whole pages then match, but one).
            let from2 = r.int(0...new.count), length2 = r.int(0...(new.count - from2))
            var chunk2 = Array(new[from2..<from2 + length2])
            if !chunk2.isEmpty && r.chance(0.5) { chunk2[r.int(0..<chunk2.count)] ^= 0x40 }
            Self.expectMatching(shared, holding: new, chunk2, at: from2, endingAt: r.int(0...new.count), label)
        }
    }
}
