// Parsing a file's next state from its last one: an edit to one child re-parses that child,
// and the rest of the tape is carried over with its offsets shifted (copied, or for a large
// tape read where it is, as pieces).
import EngineMemory
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONDocument {
    /// Parses `bytes`, a later state of the same file. Where the bytes differ from this
    /// document's only inside one container (an edit to one child of a large collection),
    /// only that container is parsed and the rest of the tape is carried over with its offsets
    /// shifted; otherwise all of `bytes` is parsed. Either way the result, or the error, is
    /// exactly what `JSONDocument(parsing: bytes)` gives; the same bytes give this document back.
    /// - Complexity: O(n) to compare the bytes and (below a million tape entries) copy the tape,
    ///   O(k) to parse the k bytes of the container edited, instead of O(n) parsing.
    public func reparsing(_ bytes: [UInt8]) throws(JSONParseError) -> JSONDocument {
        try reparsing(DocumentBytes(bytes))
    }

    /// `reparsing(_:)` of bytes read into a `DocumentBytes`.
    public func reparsing(_ bytes: DocumentBytes) throws(JSONParseError) -> JSONDocument {
        guard bytes.count < Int(UInt32.max), !self.bytes.isEmpty, !bytes.isEmpty else {
            return try JSONDocument(parsing: bytes)
        }
        let (prefix, suffix) = self.bytes.sharedEnds(with: bytes)
        return try reparsing(bytes, sharedPrefix: prefix, sharedSuffix: suffix)
    }

    /// `reparsing(_:)` when the caller has already measured the bytes `bytes` shares with this
    /// document: the first `sharedPrefix` bytes, and the last `sharedSuffix` (at most the rest
    /// of the shorter of the two) — as a reader can while the bytes arrive.
    /// - Precondition: the counts are exactly those (they are trusted, not checked).
    /// - Complexity: O(n) to copy a tape below a million entries (a larger one is shared, as
    ///   pieces), O(k) to parse the k bytes of the container edited; O(k) alone when the edit
    ///   moved no node (a number's digits changed, say): the tape is shared.
    public func reparsing(_ bytes: DocumentBytes, sharedPrefix prefix: Int, sharedSuffix suffix: Int) throws(JSONParseError) -> JSONDocument {
        guard bytes.count < Int(UInt32.max), !self.bytes.isEmpty, !bytes.isEmpty else {
            return try JSONDocument(parsing: bytes)
        }
        if prefix == self.bytes.count && prefix == bytes.count { return self }
        if let document = reparsedInPlace(bytes, prefix: prefix, suffix: suffix) { return document }
        let tape = try JSONParser.parse(bytes)
        return JSONDocument(bytes: bytes, tape: tape, previous: self, shared: (prefix, suffix))
    }

    /// `reparsedInPlace(_:prefix:suffix:)` with the shared ends measured here; this document
    /// itself for the same bytes.
    func reparsedInPlace(_ new: DocumentBytes, tuning: EngineTuning = .current, splitFrom: Int = splitSpliceEntries,
                         piecesFrom: Int = pieceSpliceEntries) -> JSONDocument? {
        guard new.count < Int(UInt32.max), !bytes.isEmpty, !new.isEmpty else { return nil }
        let (prefix, suffix) = bytes.sharedEnds(with: new)
        if prefix == bytes.count && prefix == new.count { return self }
        return reparsedInPlace(new, prefix: prefix, suffix: suffix, tuning: tuning, splitFrom: splitFrom, piecesFrom: piecesFrom)
    }

    /// The new document when the change (after the first `prefix` bytes, before the last
    /// `suffix`) lies inside one container that is at most half of the file and still parses;
    /// nil when a full parse is needed (or the bytes are invalid, which the full parse reports
    /// with the right position).
    /// - Parameters:
    ///   - splitFrom: tapes of this many entries or more are copied by two threads where `tuning`
    ///     has a second thread (tests lower it);
    ///   - piecesFrom: tapes of this many entries or more are spliced as pieces (tests lower it).
    func reparsedInPlace(_ new: DocumentBytes, prefix: Int, suffix: Int, tuning: EngineTuning = .current,
                         splitFrom: Int = splitSpliceEntries, piecesFrom: Int = pieceSpliceEntries) -> JSONDocument? {
        guard let (container, path, oldStart, oldStop) = editedContainer(prefix: prefix, suffix: suffix, newCount: new.count)
        else { return nil }
        let delta = new.count - bytes.count

        // The container's new bytes, parsed alone (at its depth, within the depth limit).
        let region: TapeStorage
        do {
            // In place: a read that made pieces (`editedBytes`) holds these bytes in one.
            region = try new.withBytes(oldStart..<(oldStop + delta)) { buf throws(JSONParseError) in
                try JSONParser.parse(buf, depthLimit: maximumJSONDepth - path.count)
            }
        } catch {
            return nil
        }
        // Past the tape's index limit, the full parse gives the error.
        guard tape.count + region.count - (tape.next(container) - container) < Tape.entryLimit else { return nil }
        if delta == 0 && sameEntries(region, asSubtreeAt: container, offset: oldStart) {
            // Every node kept its place: the old tape is the new one too.
            return JSONDocument(bytes: new, tape: tape, previous: self, shared: (prefix, suffix), childSamples: childSamples)
        }
        let spliced = splice(region, replacing: container, at: oldStart, ancestors: path, byteDelta: delta,
                             secondThreadFrom: tuning.secondThread ? splitFrom : nil, piecesFrom: piecesFrom)
        let samples = childSamples.spliced(at: container, oldNext: tape.next(container), countDelta: spliced.count - tape.count)
        return JSONDocument(bytes: new, tape: spliced, previous: self, shared: (prefix, suffix), childSamples: samples)
    }

    /// The bytes a re-parse (`reparsing(_:sharedPrefix:sharedSuffix:)`) of a later state of
    /// `newCount` bytes, sharing `sharedPrefix` leading and `sharedSuffix` trailing bytes with
    /// this document, would parse alone: the edited container's, from its opening bracket to
    /// just after its closing one, in this document's bytes (they start at the same offset in
    /// the new state, and end `newCount - bytes.count` later). Every byte outside them is the
    /// same in both states, and a cut at either end cuts no token. nil when the re-parse would
    /// parse the whole state.
    public func editedBytes(sharedPrefix prefix: Int, sharedSuffix suffix: Int, newCount: Int) -> Range<Int>? {
        guard newCount < Int(UInt32.max), !bytes.isEmpty, newCount > 0,
              let (_, _, start, stop) = editedContainer(prefix: prefix, suffix: suffix, newCount: newCount)
        else { return nil }
        return start..<stop
    }

    /// The innermost container whose brackets are both outside the change (after the first
    /// `prefix` bytes, before the last `suffix`) and which, with the change, is at most half of
    /// the new state's `newCount` bytes: its tape index, its ancestors' and its bytes; nil for none.
    private func editedContainer(prefix: Int, suffix: Int, newCount: Int) -> (index: Int, path: [Int], start: Int, stop: Int)? {
        // The changed bytes: old[prefix..<oldEnd], new[prefix..<newCount - suffix].
        let oldEnd = bytes.count - suffix
        let delta = newCount - bytes.count
        var path: [Int] = []
        var container = -1
        withTapeReader { tape in
            func encloses(_ i: Int) -> Bool {
                tape.isContainer(i) && tape.start(i) < prefix && oldEnd <= tape.end(i) - 1
            }
            guard encloses(0) else { return }
            container = 0
            while true {
                let child = childSamples.firstChild(endingAfter: prefix, in: container, tape)
                guard child < tape.nextIndex(container) else { break }
                let value = tape.firstByte(container) == UInt8(ascii: "{") ? child + 1 : child
                guard encloses(value) else { break }
                path.append(container)
                container = value
            }
        }
        guard container >= 0, path.count < maximumJSONDepth else { return nil }
        let (start, stop) = withTapeReader { ($0.start(container), $0.end(container)) }
        guard (stop - start + delta) * 2 <= newCount else { return nil }
        return (container, path, start, stop)
    }

    /// Whether `region` (parsed from the bytes at `offset`) holds exactly the entries of the
    /// subtree at `index`, each at the same place.
    private func sameEntries(_ region: TapeStorage, asSubtreeAt index: Int, offset: Int) -> Bool {
        guard region.count == tape.next(index) - index else { return false }
        for k in 0..<region.count {
            var e = region[k]
            // A container's next index is relative in the region.
            if e.isContainer { e.word += UInt32(index) << 1 }
            let old = tape[index + k]
            if e.start + UInt32(offset) != old.start || e.word != old.word { return false }
        }
        return true
    }

    /// This tape with the subtree at `index` replaced by `region` (parsed from the new bytes
    /// at offset `offset`): the entries before it as they are (its ancestors' ends and next
    /// indexes moved), the region's shifted into place, and the entries after it shifted.
    ///
    /// A tape of `piecesFrom` entries or more is spliced as pieces (`TapeStorage`) that share
    /// this tape's memory, unless that could take it past `maximumTapePieces` or keep more than
    /// half as many entries again as it reads (the entries of containers edited away); any other
    /// is copied into a tape of its own — by two threads for a tape of `secondThreadFrom`
    /// entries or more.
    private func splice(
        _ region: TapeStorage, replacing index: Int, at offset: Int, ancestors: [Int], byteDelta: Int,
        secondThreadFrom: Int?, piecesFrom: Int
    ) -> TapeStorage {
        let oldNext = tape.next(index)
        let countDelta = region.count - (oldNext - index)
        let count = tape.count + countDelta
        let byteShift = UInt32(truncatingIfNeeded: byteDelta)
        // Added to a container's word, whose next index is the bits above bit 0.
        let wordShift = UInt32(truncatingIfNeeded: countDelta) << 1
        func moved(_ a: Int) -> (entry: TapeEntry, end: TapeEntry) {
            var (e, end) = (tape[a], tape[a + 1])
            e.word = Tape.containerWord(next: e.next + countDelta)
            end.start = UInt32(Int(end.start) + byteDelta)
            return (e, end)
        }
        let suffix = tape.piecesCovering(oldNext..<tape.count, movedBy: countDelta, byteShift: byteShift, wordShift: wordShift)
        let regionPiece = TapePiece(start: index, end: index + region.count, stored: region.head,
                                    byteShift: UInt32(offset), wordShift: UInt32(index) << 1)

        // Entries of memory the pieces would keep: at most half as many again as they read.
        func keepsLittle() -> Bool {
            (tape.blocksRead + region.blocksRead).reduce(0) { $0 + $1.memory.capacity } <= count + count / 2
        }
        if tape.count >= piecesFrom && tape.pieceList.count + 2 * ancestors.count + 3 <= maximumTapePieces && keepsLittle() {
            // The ancestors' two entries each, moved, in memory of their own; the rest shared.
            let moves = TapeMemory(capacity: max(2, 2 * ancestors.count))
            var list: [TapePiece] = []
            var from = 0
            for (k, a) in ancestors.enumerated() {
                list += tape.piecesCovering(from..<a)
                (moves.base[2 * k], moves.base[2 * k + 1]) = moved(a)
                list.append(TapePiece(start: a, end: a + 2, stored: moves.base + 2 * k))
                from = a + 2
            }
            list += tape.piecesCovering(from..<index) + [regionPiece] + suffix
            return TapeStorage(pieces: list, count: count, blocks: tape.blocksRead + region.blocksRead + [TapeBlock(memory: moves)])
        }

        let memory = TapeMemory(capacity: count)
        let out = memory.base
        let copies = (tape.piecesCovering(0..<index) + [regionPiece] + suffix).map {
            TapeCopy(source: $0.stored, target: out + $0.start, count: $0.end - $0.start, byteShift: $0.byteShift, wordShift: $0.wordShift)
        }
        TapeCopy.run(copies, secondThread: secondThreadFrom.map { tape.count >= $0 } ?? false)
        for a in ancestors { (out[a], out[a + 1]) = moved(a) }
        return TapeStorage(memory: memory, count: count, keepsSpare: true)
    }
}

/// Tapes of this many entries or more are copied by two threads, tuned, when they are copied
/// (made flat again, or spliced with no pieces): the tape of a 1 GB, 7,000,000-child file is 0.8 GB.
let splitSpliceEntries = 4 << 20

/// Tapes of this many entries or more are spliced as pieces that share the last tape's memory
/// rather than copied: a copy of a smaller one takes a few milliseconds, and a flat tape is read
/// the quickest.
let pieceSpliceEntries = 1 << 20

/// A pieced tape is copied whole (made flat) by the splice that would take it past this many
/// pieces: each edit adds a few, and every read past a tape's head finds its piece.
let maximumTapePieces = 64

/// Entries a splice copies into a tape of its own, shifted.
private struct TapeCopy {
    let source: UnsafePointer<TapeEntry>
    let target: UnsafeMutablePointer<TapeEntry>
    let count: Int
    let byteShift: UInt32, wordShift: UInt32

    /// Makes `copies` (in tape order); with `secondThread`, another thread takes the last half of
    /// their entries (from the tape's end: those after the edit, then those before it) while
    /// this one makes the rest.
    static func run(_ copies: [TapeCopy], secondThread: Bool) {
        let total = copies.reduce(0) { $0 + $1.count }
        var first: [TapeCopy] = [], second: [TapeCopy] = []
        var firstLeft = secondThread ? total - total / 2 : total
        for c in copies {
            let n = min(firstLeft, c.count)
            if n > 0 { first.append(c.part(0..<n)) }
            if n < c.count { second.append(c.part(n..<c.count)) }
            firstLeft -= n
        }
        let other = ThreadWork(onThread: !second.isEmpty) { for c in second { c.copy() } }
        for c in first { c.copy() }
        other.join()
    }

    func part(_ range: Range<Int>) -> TapeCopy {
        TapeCopy(source: source + range.lowerBound, target: target + range.lowerBound, count: range.count,
                 byteShift: byteShift, wordShift: wordShift)
    }

    /// Copies the entries, moving where they start (and where containers end) by `byteShift` and
    /// their containers' next indexes by `wordShift`: a plain copy when both are 0.
    func copy() {
        if byteShift == 0 && wordShift == 0 { return target.update(from: source, count: count) }
        for k in 0..<count {
            var e = source[k]
            e.start &+= byteShift
            e.word &+= (e.word & 1) &* wordShift
            target[k] = e
        }
    }
}
