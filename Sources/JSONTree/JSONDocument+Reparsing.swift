// Parsing a file's next state from its last one: an edit to one child re-parses that child, a
// child added to or removed from a large collection the children between the two kept beside
// it, and the rest of the tape is carried over with its offsets shifted (copied, or for a large
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
    /// only that container is parsed, or inside a run of a large container's children (children
    /// added or removed), only that run; the rest of the tape is carried over with its offsets
    /// shifted. Otherwise all of `bytes` is parsed. Either way the result, or the error, is
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
    /// `suffix`) lies inside one container that is at most half of the file, or a run of a
    /// larger one's children (`editSite`), and still parses; nil when a full parse is needed (or
    /// the bytes are invalid, which the full parse reports with the right position).
    /// - Parameters:
    ///   - splitFrom: tapes of this many entries or more are copied by two threads where `tuning`
    ///     has a second thread (tests lower it);
    ///   - piecesFrom: tapes of this many entries or more are spliced as pieces (tests lower it).
    func reparsedInPlace(_ new: DocumentBytes, prefix: Int, suffix: Int, tuning: EngineTuning = .current,
                         splitFrom: Int = splitSpliceEntries, piecesFrom: Int = pieceSpliceEntries) -> JSONDocument? {
        let (container, path, oldStart, oldStop): (Int, [Int], Int, Int)
        switch editSite(prefix: prefix, suffix: suffix, newCount: new.count) {
        case nil: return nil
        case .children(let run):
            return reparsedChildren(run, of: new, prefix: prefix, suffix: suffix, tuning: tuning, splitFrom: splitFrom, piecesFrom: piecesFrom)
        case .container(let index, let ancestors, let start, let stop): (container, path, oldStart, oldStop) = (index, ancestors, start, stop)
        }
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
            // A key renamed to one as long keeps the entries: the order noted inside is gone.
            return JSONDocument(bytes: new, tape: tape, previous: self, shared: (prefix, suffix), reparsed: oldStart..<(oldStop + delta),
                                childSamples: childSamples.spliced(at: container, oldNext: tape.next(container), countDelta: 0))
        }
        let spliced = splice(region, replacing: container..<tape.next(container), at: oldStart, ancestors: path, byteDelta: delta,
                             secondThreadFrom: tuning.secondThread ? splitFrom : nil, piecesFrom: piecesFrom)
        let samples = childSamples.spliced(at: container, oldNext: tape.next(container), countDelta: spliced.count - tape.count)
        return JSONDocument(bytes: new, tape: spliced, previous: self, shared: (prefix, suffix), reparsed: oldStart..<(oldStop + delta),
                            childSamples: samples)
    }

    /// The new document when the change lies among the children of a container too large to
    /// parse alone (`run`): the children between the two it keeps on either side are parsed
    /// (as the members of an object, or the elements of an array, of their own), and spliced in
    /// place of the old ones. nil where the bytes between those two are not a run of children
    /// with their commas, or, in an object, a key parsed or replaced is another child's too (a
    /// duplicate's shadowing is the whole object's): the full parse then answers.
    /// - Complexity: O(k) to parse the k bytes between the two children kept; in an object,
    ///   O(children) more to compare keys.
    private func reparsedChildren(_ run: ChildRun, of new: DocumentBytes, prefix: Int, suffix: Int, tuning: EngineTuning,
                                  splitFrom: Int, piecesFrom: Int) -> JSONDocument? {
        let delta = new.count - bytes.count
        let isObject = withTapeReader { $0.firstByte(run.container) } == UInt8(ascii: "{")
        // The run's bytes inside brackets of its own; the commas that join it to the children
        // kept are blanked, so that its own parse sees only its children.
        var text = [isObject ? UInt8(ascii: "{") : UInt8(ascii: "[")]
        text.reserveCapacity(run.bytes.count + delta + 2)
        new.withBytes(run.bytes.lowerBound..<(run.bytes.upperBound + delta)) { text.append(contentsOf: $0) }
        text.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        guard blankJoiningCommas(&text, before: run.keepsBefore, after: run.keepsAfter) else { return nil }
        let path = run.ancestors.dropLast().count
        guard let region = try? text.withUnsafeBufferPointer({ buf throws(JSONParseError) in
            try JSONParser.parse(buf, depthLimit: maximumJSONDepth - path)
        }) else { return nil }
        // The run's own container is entries 0 and 1 of its parse; its children follow.
        let old = run.children
        guard tape.count + region.count - 2 - old.count < Tape.entryLimit else { return nil }
        var increasing = false
        if isObject {
            let check = keysStayUnique(replacing: old, after: run.before, in: run.container, by: region, parsedFrom: text)
            guard check.unique else { return nil }
            increasing = check.increasing
        }
        let spliced = splice(region, from: 2, replacing: old, at: run.bytes.lowerBound - 1, ancestors: run.ancestors,
                             byteDelta: delta, secondThreadFrom: tuning.secondThread ? splitFrom : nil, piecesFrom: piecesFrom)
        let samples = childSamples.spliced(at: old.lowerBound, oldNext: old.upperBound, countDelta: spliced.count - tape.count)
        if isObject { samples.note(keysIncrease: increasing, of: run.container) }
        return JSONDocument(bytes: new, tape: spliced, previous: self, shared: (prefix, suffix),
                            reparsed: run.bytes.lowerBound..<(run.bytes.upperBound + delta), childSamples: samples)
    }

    /// Whether no key of the children `old` of object `container` nor of the children `region`
    /// parsed (from `text`) is the key of a child of `container` outside `old` (`unique`): then
    /// every child outside keeps its shadowing, and the run's own parse marked its duplicates
    /// as the whole object's would. And whether the object's keys then strictly increase
    /// (`increasing`, none with escapes). Where they did and the run's keys lie in order between
    /// its neighbours', both hold without a look at the other keys; else every key is compared.
    /// - Parameter before: the child kept before the run, if any.
    /// - Complexity: O(k) for the run's k children where the keys increase and still do; else
    ///   O(children of `container` × k), k at most `maximumRunKeys` (more: not unique, the whole
    ///   file parsed).
    private func keysStayUnique(replacing old: Range<Int>, after before: Int?, in container: Int, by region: TapeStorage,
                                parsedFrom text: [UInt8]) -> (unique: Bool, increasing: Bool) {
        // The run's new keys (decoded), and whether each is plain and above the one before.
        var keys: [[UInt8]] = []
        var runIncreases = true
        text.withUnsafeBufferPointer { buf in
            var k = 2
            while k < region.count {
                let e = region[k]
                let end = region.end(k, buf)
                let plain = e.word & Tape.escaped == 0 && e.length != Tape.longLength
                let key = plain ? Array(buf[(Int(e.start) + 1)..<(end - 1)]) : decodeString(buf, Int(e.start), end)
                runIncreases = runIncreases && plain && (keys.last.map { $0.lexicographicallyPrecedes(key) } ?? true)
                keys.append(key)
                k = region.next(k + 1)
            }
        }
        return withTapeReader { tape in
            /// The raw key of child `k`, when it has no escapes.
            func plainKey(_ k: Int) -> [UInt8]? {
                let e = tape.entry(k)
                guard e.word & Tape.escaped == 0 && e.length != Tape.longLength else { return nil }
                return tape.withStringBytes(k) { Array($0) }
            }
            let end = tape.nextIndex(container)
            // The child kept after the run, if any.
            let after = old.upperBound < end ? old.upperBound : nil
            let low = before.flatMap(plainKey), high = after.flatMap(plainKey)
            let runFits = runIncreases && (before == nil || low.map { l in keys.first.map { l.lexicographicallyPrecedes($0) } ?? true } == true)
                && (after == nil || high.map { h in keys.last.map { $0.lexicographicallyPrecedes(h) } ?? true } == true)
            if runFits && childSamples.keysIncrease(container) { return (true, true) }

            var k = old.lowerBound
            while k < old.upperBound && keys.count <= maximumRunKeys {
                keys.append(tape.withStringBytes(k) { Array($0) })
                k = tape.nextIndex(k + 1)
            }
            // Each other key is compared with each of the run's: a long run is parsed whole.
            guard keys.count <= maximumRunKeys else { return (false, false) }
            // Each child's key against the run's: by length first, then its raw bytes (or,
            // spelled with escapes, its decoded ones); and against the child's before it. The
            // keys in one buffer: no reference counted per child.
            let flat = keys.flatMap { $0 }
            var bounds: [(start: Int, count: Int)] = []
            for key in keys { bounds.append(((bounds.last.map { $0.start + $0.count } ?? 0), key.count)) }
            var outsideIncreases = true
            let unique = flat.withUnsafeBufferPointer { f in
                bounds.withUnsafeBufferPointer { b in bytes.withRuns { runHolding in
                    // Keys come in the order of their bytes: the run that held the last one
                    // most often holds the next (a token never spans two).
                    var run = runHolding(0)
                    var last: UnsafeBufferPointer<UInt8>?
                    k = tape.firstChild(container)
                    while k < end {
                        if k == old.lowerBound && !old.isEmpty {
                            k = old.upperBound
                            continue
                        }
                        let e = tape.entry(k)
                        if e.word & Tape.escaped != 0 || e.length == Tape.longLength {
                            outsideIncreases = false
                            if tape.withStringBytes(k, { key in keys.contains { $0.elementsEqual(key) } }) { return false }
                        } else {
                            let n = Int(e.length) - 2, at = Int(e.start) + 1
                            if at < run.start || at + n > run.start + run.bytes.count { run = runHolding(at) }
                            let key = UnsafeBufferPointer(start: run.bytes.baseAddress! + (at - run.start), count: n)
                            for j in 0..<b.count where b[j].count == n {
                                if n == 0 || bytesEqual(key.baseAddress!, f.baseAddress! + b[j].start, n) { return false }
                            }
                            if outsideIncreases, let last { outsideIncreases = last.lexicographicallyPrecedes(key) }
                            last = key
                        }
                        k = tape.nextIndex(k + 1)
                    }
                    return true
                } }
            }
            return (unique, unique && outsideIncreases && runFits)
        }
    }

    /// The bytes a re-parse (`reparsing(_:sharedPrefix:sharedSuffix:)`) of a later state of
    /// `newCount` bytes, sharing `sharedPrefix` leading and `sharedSuffix` trailing bytes with
    /// this document, would parse alone: the edited container's, from its opening bracket to
    /// just after its closing one, or those between the two children kept beside a run of a
    /// large container's, in this document's bytes (they start at the same offset in the new
    /// state, and end `newCount - bytes.count` later). Every byte outside them is the
    /// same in both states, and a cut at either end cuts no token. nil when the re-parse would
    /// parse the whole state.
    public func editedBytes(sharedPrefix prefix: Int, sharedSuffix suffix: Int, newCount: Int) -> Range<Int>? {
        guard newCount < Int(UInt32.max), !bytes.isEmpty, newCount > 0,
              let site = editSite(prefix: prefix, suffix: suffix, newCount: newCount)
        else { return nil }
        switch site {
        case .container(_, _, let start, let stop): return start..<stop
        case .children(let run): return run.bytes
        }
    }

    /// What a re-parse of a later state parses alone (`editSite`).
    private enum EditSite {
        /// The container at tape index `index` (its ancestors' indexes `path`), bytes `start..<stop`.
        case container(index: Int, path: [Int], start: Int, stop: Int)
        /// A run of a container's children.
        case children(ChildRun)
    }

    /// The children of a container between two it keeps (or its brackets), which an edit changed.
    private struct ChildRun {
        let container: Int
        /// The container's ancestors' indexes, then its own.
        let ancestors: [Int]
        /// The tape entries of the children replaced.
        let children: Range<Int>
        /// The bytes between the child kept before (or the opening bracket) and the one kept
        /// after (or the closing bracket): the old ones, which start at the same offset in the
        /// new state.
        let bytes: Range<Int>
        /// The child kept before the run, if any.
        let before: Int?
        /// Whether a child is kept after the run. A child kept is joined to the run by a comma.
        let keepsAfter: Bool
        var keepsBefore: Bool { before != nil }
    }

    /// Where a change after the first `prefix` bytes and before the last `suffix` lies, for a
    /// re-parse of a later state of `newCount` bytes: the innermost container around it, where
    /// that is at most half of the new state; else, inside a larger one, the run of its children
    /// from the first the change reaches to the last (each child kept beside it ends, or starts,
    /// at least a byte away from the change, so no token of it changes), where the run is at
    /// most half of the new state. nil for neither.
    private func editSite(prefix: Int, suffix: Int, newCount: Int) -> EditSite? {
        guard let (container, path) = enclosingContainer(prefix: prefix, suffix: suffix), path.count < maximumJSONDepth else { return nil }
        let oldEnd = bytes.count - suffix, delta = newCount - bytes.count
        return withTapeReader { tape -> EditSite? in
            let (start, stop) = (tape.start(container), tape.end(container))
            if (stop - start + delta) * 2 <= newCount { return .container(index: container, path: path, start: start, stop: stop) }
            // A JSON Lines list's root is its own (no brackets, no commas, entries not its own).
            guard container != 0 || self.tape[0].next == self.tape.rootNext else { return nil }
            let isObject = tape.firstByte(container) == UInt8(ascii: "{")
            let end = tape.nextIndex(container)
            // Kept before: a child whose value ends before `prefix`, the byte after it unchanged.
            let (before, first) = childSamples.children(around: prefix - 1, in: container, tape)
            var after = first
            while after < end && tape.start(after) <= oldEnd { after = tape.nextIndex(isObject ? after + 1 : after) }
            guard before != nil || after < end else { return nil }
            let runStart = before.map { tape.end(isObject ? $0 + 1 : $0) } ?? start + 1
            let runStop = after < end ? tape.start(after) : stop - 1
            guard (runStop + delta - runStart) * 2 <= newCount else { return nil }
            return .children(ChildRun(container: container, ancestors: path + [container], children: first..<after,
                                      bytes: runStart..<runStop, before: before, keepsAfter: after < end))
        }
    }

    /// The innermost container whose brackets are both outside the change (after the first
    /// `prefix` bytes, before the last `suffix`): its tape index and its ancestors'; nil for none.
    private func enclosingContainer(prefix: Int, suffix: Int) -> (index: Int, path: [Int])? {
        let oldEnd = bytes.count - suffix
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
        return container >= 0 ? (container, path) : nil
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

    /// This tape with entries `old` (a subtree, or a run of siblings) replaced by `region`'s from
    /// `first` on (parsed from the new bytes at offset `offset`): the entries before them as they
    /// are (their ancestors' ends and next indexes moved), the region's shifted into place, and
    /// the entries after them shifted.
    ///
    /// A tape of `piecesFrom` entries or more is spliced as pieces (`TapeStorage`) that share
    /// this tape's memory, unless that could take it past `maximumTapePieces` or keep more than
    /// half as many entries again as it reads (the entries of containers edited away); any other
    /// is copied into a tape of its own — by two threads for a tape of `secondThreadFrom`
    /// entries or more.
    private func splice(
        _ region: TapeStorage, from first: Int = 0, replacing old: Range<Int>, at offset: Int, ancestors: [Int], byteDelta: Int,
        secondThreadFrom: Int?, piecesFrom: Int
    ) -> TapeStorage {
        let (index, oldNext) = (old.lowerBound, old.upperBound)
        let countDelta = region.count - first - old.count
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
        // The region's entries from `first` on; its next indexes count from its entry 0.
        let regionPieces = region.count > first
            ? [TapePiece(start: index, end: index + region.count - first, stored: region.head + first,
                         byteShift: UInt32(truncatingIfNeeded: offset), wordShift: UInt32(truncatingIfNeeded: index - first) << 1)]
            : []

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
            list += tape.piecesCovering(from..<index) + regionPieces + suffix
            return TapeStorage(pieces: list, count: count, blocks: tape.blocksRead + region.blocksRead + [TapeBlock(memory: moves)])
        }

        let memory = TapeMemory(capacity: count)
        let out = memory.base
        let copies = (tape.piecesCovering(0..<index) + regionPieces + suffix).map {
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

/// A run of an object's children re-parsed alone has at most this many keys, new and replaced:
/// each is compared with every other child's.
let maximumRunKeys = 256

/// Blanks the commas that join the run of children in `text` (between its own brackets) to the
/// child kept before it (`before`) and after it (`after`), leaving a container of the run's
/// children alone; false when they are not there as commas must be (the full parse then finds
/// the error). Between two kept children the run has one comma at least: one alone joins the
/// two, else one starts the run and one ends it, with a child between; at a bracket, none.
private func blankJoiningCommas(_ text: inout [UInt8], before: Bool, after: Bool) -> Bool {
    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
    let inner = 1..<(text.count - 1)
    guard let first = inner.first(where: { !isSpace(text[$0]) }), let last = inner.last(where: { !isSpace(text[$0]) }) else {
        return !(before && after)
    }
    let comma = UInt8(ascii: ",")
    if before && text[first] != comma || after && text[last] != comma { return false }
    if before { text[first] = 0x20 }
    if after { text[last] = 0x20 }
    // A comma blanked leaves a child beside it, unless one comma alone joined the two kept.
    let left = inner.contains { !isSpace(text[$0]) }
    return left || before && after && first == last
}
