// Parsing a file's next state from its last one: an edit to one child re-parses that child,
// and the rest of the tape is carried over with its offsets shifted.
import EngineMemory
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONDocument {
    /// Parses `bytes`, a later state of the same file. Where the bytes differ from this
    /// document's only inside one container (an edit to one child of a large collection),
    /// only that container is parsed and the rest of the tape is copied with its offsets
    /// shifted; otherwise all of `bytes` is parsed. Either way the result, or the error, is
    /// exactly what `JSONDocument(parsing: bytes)` gives; the same bytes give this document back.
    /// - Complexity: O(n) to compare the bytes and copy the tape, O(k) to parse the k bytes
    ///   of the container edited, instead of O(n) parsing.
    public func reparsing(_ bytes: [UInt8]) throws(JSONParseError) -> JSONDocument {
        try reparsing(DocumentBytes(bytes))
    }

    /// `reparsing(_:)` of bytes read into a `DocumentBytes`.
    public func reparsing(_ bytes: DocumentBytes) throws(JSONParseError) -> JSONDocument {
        guard bytes.count < Int(UInt32.max), !self.bytes.isEmpty, !bytes.isEmpty else {
            return try JSONDocument(parsing: bytes)
        }
        let prefix = commonPrefix(self.bytes, bytes)
        let suffix = commonSuffix(self.bytes, bytes, limit: min(self.bytes.count, bytes.count) - prefix)
        return try reparsing(bytes, sharedPrefix: prefix, sharedSuffix: suffix)
    }

    /// `reparsing(_:)` when the caller has already measured the bytes `bytes` shares with this
    /// document: the first `sharedPrefix` bytes, and the last `sharedSuffix` (at most the rest
    /// of the shorter of the two) — as a reader can while the bytes arrive.
    /// - Precondition: the counts are exactly those (they are trusted, not checked).
    /// - Complexity: O(n) to copy the tape, O(k) to parse the k bytes of the container edited;
    ///   O(k) alone when the edit moved no node (a number's digits changed, say): the tape is shared.
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
    func reparsedInPlace(_ new: DocumentBytes) -> JSONDocument? {
        guard new.count < Int(UInt32.max), !bytes.isEmpty, !new.isEmpty else { return nil }
        let prefix = commonPrefix(bytes, new)
        if prefix == bytes.count && prefix == new.count { return self }
        return reparsedInPlace(new, prefix: prefix, suffix: commonSuffix(bytes, new, limit: min(bytes.count, new.count) - prefix))
    }

    /// The new document when the change (after the first `prefix` bytes, before the last
    /// `suffix`) lies inside one container that is at most half of the file and still parses;
    /// nil when a full parse is needed (or the bytes are invalid, which the full parse reports
    /// with the right position).
    /// - Parameter splitFrom: tapes of this many entries or more are spliced by two threads
    ///   where `tuning` has a second thread (tests lower it).
    func reparsedInPlace(_ new: DocumentBytes, prefix: Int, suffix: Int, tuning: EngineTuning = .current,
                         splitFrom: Int = splitSpliceEntries) -> JSONDocument? {
        let old = bytes
        // The changed bytes: old[prefix..<oldEnd], new[prefix..<new.count - suffix].
        let oldEnd = old.count - suffix
        let delta = new.count - old.count

        // The innermost container whose brackets are both outside the change.
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
        let (oldStart, oldStop) = withTapeReader { ($0.start(container), $0.end(container)) }
        guard (oldStop - oldStart + delta) * 2 <= new.count else { return nil }

        // The container's new bytes, parsed alone (at its depth, within the depth limit).
        let region: TapeStorage
        do {
            region = try new.withUnsafeBufferPointer { buf throws(JSONParseError) in
                try JSONParser.parse(UnsafeBufferPointer(rebasing: buf[oldStart..<(oldStop + delta)]),
                                     depthLimit: maximumJSONDepth - path.count)
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
                             secondThreadFrom: tuning.secondThread ? splitFrom : nil)
        let samples = childSamples.spliced(at: container, oldNext: tape.next(container), countDelta: spliced.count - tape.count)
        return JSONDocument(bytes: new, tape: spliced, previous: self, shared: (prefix, suffix), childSamples: samples)
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
    /// at offset `offset`): entries before it copied (its ancestors' ends and next indexes
    /// moved), the region's shifted into place, and the entries after it shifted — by two
    /// threads for a tape of `secondThreadFrom` entries or more.
    private func splice(
        _ region: TapeStorage, replacing index: Int, at offset: Int, ancestors: [Int], byteDelta: Int, secondThreadFrom: Int?
    ) -> TapeStorage {
        let oldNext = tape.next(index)
        let countDelta = region.count - (oldNext - index)
        let count = tape.count + countDelta
        let memory = TapeMemory(capacity: count)
        let out = memory.base
        let around = TapeAround(source: tape.base, target: out, prefix: index, oldNext: oldNext, suffix: tape.count - oldNext,
                                byteDelta: byteDelta, countDelta: countDelta)
        around.copy(secondThread: secondThreadFrom.map { tape.count >= $0 } ?? false)
        for a in ancestors {
            out[a].word = Tape.containerWord(next: out[a].next + countDelta)
            out[a + 1].start = UInt32(Int(out[a + 1].start) + byteDelta)
        }
        for k in 0..<region.count {
            var e = region[k]
            if e.isContainer { e.word += UInt32(index) << 1 }
            e.start += UInt32(offset)
            out[index + k] = e
        }
        return TapeStorage(memory: memory, count: count, keepsSpare: true)
    }
}

/// Tapes of this many entries or more are spliced by two threads, tuned: the tape of a 1 GB,
/// 7,000,000-child file is 0.8 GB, all copied for an edit that changes the file's length.
let splitSpliceEntries = 4 << 20

/// The entries a splice copies around the subtree it replaces: the `prefix` entries before it,
/// as they are, and the `suffix` entries from `oldNext` on, shifted to `oldNext + countDelta`.
private struct TapeAround {
    let source: UnsafeMutablePointer<TapeEntry>
    let target: UnsafeMutablePointer<TapeEntry>
    let prefix: Int, oldNext: Int, suffix: Int, byteDelta: Int, countDelta: Int

    /// Copies them all; with `secondThread`, another thread takes the last half of them (of the
    /// suffix first, then of the prefix) while this one copies the rest.
    func copy(secondThread: Bool) {
        let second = secondThread ? (prefix + suffix) / 2 : 0
        let laterSuffix = min(second, suffix), laterPrefix = second - laterSuffix
        let other = ThreadWork(onThread: second > 0) {
            copy(prefix: (prefix - laterPrefix)..<prefix, suffix: (suffix - laterSuffix)..<suffix)
        }
        copy(prefix: 0..<(prefix - laterPrefix), suffix: 0..<(suffix - laterSuffix))
        other.join()
    }

    /// Copies prefix entries `prefix` and shifts suffix entries `suffix` (counted from `oldNext`).
    private func copy(prefix: Range<Int>, suffix: Range<Int>) {
        (target + prefix.lowerBound).update(from: source + prefix.lowerBound, count: prefix.count)
        shiftEntries(from: source + oldNext + suffix.lowerBound, to: target + oldNext + countDelta + suffix.lowerBound,
                     count: suffix.count, byteDelta: byteDelta, countDelta: countDelta)
    }
}

/// Copies `count` tape entries, moving where they start (and where containers end) by
/// `byteDelta` and their containers' next indexes by `countDelta`. A copy when both are 0.
private func shiftEntries(
    from source: UnsafeMutablePointer<TapeEntry>, to target: UnsafeMutablePointer<TapeEntry>, count: Int,
    byteDelta: Int, countDelta: Int
) {
    if byteDelta == 0 && countDelta == 0 { return target.update(from: source, count: count) }
    let byteShift = UInt32(truncatingIfNeeded: byteDelta)
    // Added to a container's word (bit 0 set), whose next index is the bits above: modulo 2^32,
    // so a negative shift works too.
    let wordShift = UInt32(truncatingIfNeeded: countDelta) << 1
    for k in 0..<count {
        var e = source[k]
        e.start &+= byteShift
        e.word &+= (e.word & 1) &* wordShift
        target[k] = e
    }
}

/// How many leading bytes `a` and `b` share. - Complexity: O(n), 8 bytes a step.
private func commonPrefix(_ a: DocumentBytes, _ b: DocumentBytes) -> Int {
    a.withUnsafeBytes { pa in
        b.withUnsafeBytes { pb in
            let n = min(pa.count, pb.count)
            var i = 0
            while i + 8 <= n && pa.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                == pb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                i += 8
            }
            while i < n && pa[i] == pb[i] { i += 1 }
            return i
        }
    }
}

/// How many trailing bytes `a` and `b` share, at most `limit`.
private func commonSuffix(_ a: DocumentBytes, _ b: DocumentBytes, limit: Int) -> Int {
    a.withUnsafeBytes { pa in
        b.withUnsafeBytes { pb in
            var k = 0
            while k + 8 <= limit && pa.loadUnaligned(fromByteOffset: pa.count - k - 8, as: UInt64.self)
                == pb.loadUnaligned(fromByteOffset: pb.count - k - 8, as: UInt64.self)
            {
                k += 8
            }
            while k < limit && pa[pa.count - k - 1] == pb[pb.count - k - 1] { k += 1 }
            return k
        }
    }
}
