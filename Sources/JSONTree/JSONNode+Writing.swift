// Writing a parsed node as compact JSON straight from its document's bytes and tape, without
// building a `JSON` value: output of any size (a million rows, one 200 MB string) costs no
// more memory than the caller's output buffer.

extension JSONNode {
    /// Appends the node as compact JSON: byte for byte what
    /// `json.write(to: &out, style: .compact, depth: 0, escaping: escaping)` appends.
    ///
    /// `drain` is called whenever `out` holds at least `limit` bytes, between pieces of the
    /// output (also inside one long string), so that a caller writing `out` to a file and
    /// emptying it keeps the buffer near `limit` bytes.
    /// - Complexity: O(size of the subtree); no allocation per node (one per escaped string).
    public func writeCompact(to out: inout [UInt8], escaping: JSONEscaping = .required,
                             drainingAt limit: Int = .max, drain: (inout [UInt8]) -> Void = { _ in }) {
        document.withTapeReader { tape in
            var writer = CompactWriter(tape: tape, escaping: escaping, limit: limit)
            writer.write(index, to: &out, drain)
        }
    }
}

/// The state of one `writeCompact`: open containers on an explicit stack (documents may nest
/// deeper than the call stack allows).
private struct CompactWriter {
    let tape: TapeReader
    let escaping: JSONEscaping
    let limit: Int

    init(tape: TapeReader, escaping: JSONEscaping, limit: Int) {
        self.tape = tape
        self.escaping = escaping
        self.limit = max(1, limit)
    }

    /// An open container: where its subtree ends on the tape, its kind, and whether a child
    /// was written (a comma goes before the next).
    struct Open {
        let end: Int
        let isObject: Bool
        var hasChild: Bool
    }

    mutating func write(_ root: Int, to out: inout [UInt8], _ drain: (inout [UInt8]) -> Void) {
        var open = [Open]()
        var i = root
        repeat {
            if let top = open.last {
                if i >= top.end {
                    out.append(top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                    open.removeLast()
                    continue
                }
                if top.isObject && tape.isShadowed(i) {
                    // A key overridden by a later duplicate: `json` keeps only the last one.
                    i = tape.nextIndex(i + 1)
                    continue
                }
                if top.hasChild { out.append(UInt8(ascii: ",")) }
                open[open.count - 1].hasChild = true
                if top.isObject {
                    writeString(i, to: &out, drain)
                    out.append(UInt8(ascii: ":"))
                    i += 1
                }
            }
            switch tape.firstByte(i) {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = tape.firstByte(i) == UInt8(ascii: "{")
                out.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
                open.append(Open(end: tape.nextIndex(i), isObject: isObject, hasChild: false))
            case UInt8(ascii: "\""):
                writeString(i, to: &out, drain)
            default:
                // null, true, false and numbers are written as spelled in the file.
                tape.withBytes(tape.start(i)..<tape.end(i)) { out.append(contentsOf: $0) }
            }
            i = tape.isContainer(i) ? tape.firstChild(i) : i + 1
            if out.count >= limit { drain(&out) }
        } while !open.isEmpty
    }

    /// String node `i`, quoted and escaped as `writeJSONString` escapes its decoded text.
    func writeString(_ i: Int, to out: inout [UInt8], _ drain: (inout [UInt8]) -> Void) {
        tape.withStringBytes(i) { bytes in
            out.append(UInt8(ascii: "\""))
            // In pieces that end before a byte that is not a continuation byte: invalid UTF-8
            // is repaired the same way piece by piece as whole (such a byte never continues the
            // sequence before it).
            var from = 0
            while from < bytes.count {
                var to = min(bytes.count, from + 1 << 16)
                while to < bytes.count && bytes[to] & 0xC0 == 0x80 { to += 1 }
                appendEscapedPiece(UnsafeBufferPointer(rebasing: bytes[from..<to]), to: &out)
                from = to
                if out.count >= limit { drain(&out) }
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    func appendEscapedPiece(_ piece: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard piece.contains(where: { $0 >= 0x7F }) else {
            // ASCII without DEL: every escaping writes these bytes alike; runs that need no
            // escape are copied whole.
            var k = 0
            while k < piece.count {
                let run = k
                while k < piece.count, piece[k] >= 0x20, piece[k] != UInt8(ascii: "\""), piece[k] != UInt8(ascii: "\\") { k += 1 }
                if k > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: piece[run..<k])) }
                if k < piece.count {
                    appendEscapedASCII(piece[k], to: &out)
                    k += 1
                }
            }
            return
        }
        appendEscapedText(String(decoding: piece, as: UTF8.self), to: &out, escaping: escaping)
    }
}
