// Parsing a file's next state from its last one: an edit to one child re-parses that child,
// and the rest of the tape is carried over with its offsets shifted.
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
        if let document = reparsedInPlace(bytes) { return document }
        return try JSONDocument(parsing: bytes)
    }

    /// The new document when the change lies inside one container that is at most half of
    /// the file and still parses; nil when a full parse is needed (or the bytes are invalid,
    /// which the full parse reports with the right position).
    func reparsedInPlace(_ new: [UInt8]) -> JSONDocument? {
        let old = bytes
        guard new.count < Int(UInt32.max), !old.isEmpty, !new.isEmpty else { return nil }
        let prefix = commonPrefix(old, new)
        if prefix == old.count && prefix == new.count { return self }
        let suffix = commonSuffix(old, new, limit: min(old.count, new.count) - prefix)
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
            descend: while true {
                let isObject = tape.firstByte(container) == UInt8(ascii: "{")
                var child = container + 1
                let end = tape.nextIndex(container)
                while child < end {
                    let value = isObject ? child + 1 : child
                    if tape.end(value) <= prefix {
                        child = tape.nextIndex(value)
                        continue
                    }
                    if encloses(value) {
                        path.append(container)
                        container = value
                        continue descend
                    }
                    break
                }
                break
            }
        }
        guard container >= 0, path.count < maximumJSONDepth else { return nil }
        let (oldStart, oldStop) = (Int(tape[container].start), Int(tape[container].end))
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
        return JSONDocument(bytes: new, tape: splice(region, replacing: container, at: oldStart,
                                                     ancestors: path, byteDelta: delta, new: new))
    }

    /// This tape with the subtree at `index` replaced by `region` (parsed from the new bytes
    /// at offset `offset`): entries before it copied (its ancestors' ends and next indexes
    /// moved), the region's shifted into place, and the entries after it shifted.
    private func splice(
        _ region: TapeStorage, replacing index: Int, at offset: Int, ancestors: [Int], byteDelta: Int, new: [UInt8]
    ) -> TapeStorage {
        let oldNext = Int(tape[index].payload)
        let countDelta = region.count - (oldNext - index)
        let count = tape.count + countDelta
        let memory = TapeMemory(capacity: count)
        let out = memory.base
        out.update(from: tape.base, count: index)
        for a in ancestors {
            out[a].end = UInt32(Int(out[a].end) + byteDelta)
            out[a].payload = UInt32(Int(out[a].payload) + countDelta)
        }
        new.withUnsafeBufferPointer { newBytes in
            for k in 0..<region.count {
                var e = region[k]
                let first = newBytes[offset + Int(e.start)]
                if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { e.payload += UInt32(index) }
                e.start += UInt32(offset)
                e.end += UInt32(offset)
                out[index + k] = e
            }
            for k in oldNext..<tape.count {
                var e = tape[k]
                e.start = UInt32(Int(e.start) + byteDelta)
                e.end = UInt32(Int(e.end) + byteDelta)
                let first = newBytes[Int(e.start)]
                if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                    e.payload = UInt32(Int(e.payload) + countDelta)
                }
                out[k + countDelta] = e
            }
        }
        return TapeStorage(memory: memory, count: count)
    }
}

/// How many leading bytes `a` and `b` share. - Complexity: O(n), 8 bytes a step.
private func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
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
private func commonSuffix(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
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
