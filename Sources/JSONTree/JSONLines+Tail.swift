// The newest records of a large JSON Lines file without parsing the rest: line boundaries are
// found at memory speed, and only the last records are parsed.

extension JSONLinesBuilder {
    /// The JSON Lines `bytes` (a whole file) as an array document in which only the last `n`
    /// children — the last `n` lines that are neither blank nor `null` — are parsed; every earlier
    /// line is `null` (no child). Those children, their keys (line indexes) and their error rows
    /// are exactly a full read's, so any query whose window lies among them (the default or key
    /// order with `limitToLast(k)`, k ≤ n) gives the same window.
    /// - Complexity: O(bytes) to count lines (8 bytes a step), O(size of the last n lines) to parse.
    public static func tail(of bytes: UnsafeBufferPointer<UInt8>, children n: Int) -> JSONDocument {
        let start = tailStart(in: bytes, children: n) ?? 0
        return records(UnsafeBufferPointer(rebasing: bytes[start...]),
                       afterLines: countNewlines(UnsafeBufferPointer(rebasing: bytes[..<start])))
    }

    /// The lines `bytes` holds (the tail of a file), as records keyed from `lines` on: the
    /// document has `lines` null elements first, then a record per line.
    /// - Complexity: O(lines) without parsing, then O(bytes).
    public static func records(_ bytes: UnsafeBufferPointer<UInt8>, afterLines lines: Int) -> JSONDocument {
        var builder = JSONLinesBuilder(mode: .lines)
        builder.appendSkippedLines(lines)
        builder.reserveCapacity(forInput: bytes.count)
        builder.append(bytes)
        builder.finish()
        return builder.finishedList()
    }

    /// Where, in `bytes` (the end of a file), the last `n` lines that will be children begin;
    /// nil when `bytes` holds fewer (its first line may be cut: read more of the file, or, when
    /// `bytes` is the whole file, start at 0).
    public static func tailStart(in bytes: UnsafeBufferPointer<UInt8>, children n: Int) -> Int? {
        var found = 0
        var end = bytes.count  // the current line is bytes[lineStart..<end]
        while true {
            var lineStart = end
            while lineStart > 0 && bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
            var first = lineStart, last = end
            while first < last && isBlankByte(bytes[first]) { first += 1 }
            while last > first && isBlankByte(bytes[last - 1]) { last -= 1 }
            // A blank line, or a line holding `null`, is no child.
            let child = first < last && !(last - first == 4 && bytes[first] == UInt8(ascii: "n")
                && bytes[first + 1] == UInt8(ascii: "u") && bytes[first + 2] == UInt8(ascii: "l")
                && bytes[first + 3] == UInt8(ascii: "l"))
            // A line at offset 0 may be cut (the region starts mid-file): not counted.
            if child && lineStart > 0 {
                found += 1
                if found == n { return lineStart }
            }
            if lineStart == 0 { return nil }
            end = lineStart - 1
        }
    }

    /// How many `\n` bytes `bytes` holds.
    /// - Complexity: O(n), 32 bytes a step.
    public static func countNewlines(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = UnsafeRawPointer(bytes.baseAddress) else { return 0 }
        let ones: UInt64 = 0x0101_0101_0101_0101, low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        @inline(__always) func zeroBytes(_ word: UInt64) -> Int {
            let w = word ^ (ones &* 0x0A)
            // The high bit of each byte of `t` is set exactly where `w` has a zero byte.
            return (~(((w & low7) &+ low7) | w | low7)).nonzeroBitCount
        }
        // Four words a step, in four sums, so that the steps do not wait on each other.
        var (a, b, c, d) = (0, 0, 0, 0)
        var i = 0
        while i + 32 <= bytes.count {
            a &+= zeroBytes(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            b &+= zeroBytes(base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
            c &+= zeroBytes(base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
            d &+= zeroBytes(base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
            i += 32
        }
        var count = a + b + c + d
        while i < bytes.count {
            if bytes[i] == 0x0A { count += 1 }
            i += 1
        }
        return count
    }
}

@inline(__always) private func isBlankByte(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
