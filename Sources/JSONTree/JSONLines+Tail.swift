// The newest records of a large JSON Lines file without parsing the rest: line boundaries are
// found at memory speed, and only the last records are parsed.

extension JSONLinesBuilder {
    /// The JSON Lines `bytes` (a whole file) as an array document in which only the last `n`
    /// children — the last `n` lines that are neither blank nor `null` — are parsed; every earlier line is
    /// `null` (no child). Those children, their keys (line indexes) and their error rows are
    /// exactly a full read's, so any query whose window lies among them (the default or key
    /// order with `limitToLast(k)`, k ≤ n) gives the same window.
    /// - Complexity: O(bytes) to count lines (a tight loop), O(size of the last n lines) to parse.
    public static func tail(of bytes: UnsafeBufferPointer<UInt8>, children n: Int) -> JSONDocument {
        let start = tailStart(bytes, children: n)
        var lines = 0
        for i in 0..<start where bytes[i] == 0x0A { lines += 1 }
        var builder = JSONLinesBuilder(mode: .lines)
        builder.appendSkippedLines(lines)
        builder.append(UnsafeBufferPointer(rebasing: bytes[start...]))
        builder.finish()
        return builder.finishedList()
    }

    /// Where the last `n` non-blank lines begin (the start of a line).
    private static func tailStart(_ bytes: UnsafeBufferPointer<UInt8>, children n: Int) -> Int {
        var found = 0
        var end = bytes.count  // the current line is bytes[lineStart..<end]
        while end > 0 || found == 0 {
            var lineStart = end
            while lineStart > 0 && bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
            var first = lineStart, last = end
            while first < last && isBlankByte(bytes[first]) { first += 1 }
            while last > first && isBlankByte(bytes[last - 1]) { last -= 1 }
            // A blank line, or a line holding `null`, is no child.
            let blank = first == last || (last - first == 4 && bytes[first] == UInt8(ascii: "n")
                && bytes[first + 1] == UInt8(ascii: "u") && bytes[first + 2] == UInt8(ascii: "l") && bytes[first + 3] == UInt8(ascii: "l"))
            if !blank {
                found += 1
                if found == n { return lineStart }
            }
            if lineStart == 0 { return 0 }
            end = lineStart - 1
        }
        return 0
    }
}

@inline(__always) private func isBlankByte(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
