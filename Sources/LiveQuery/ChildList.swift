// The children of one location in one revision, as the Realtime Database sees them.
import JSONTree

/// The children of one location in one revision, in file order; a child is named by its
/// *ordinal*, its position in this list.
///
/// Object members are children except metadata (keys starting with `.`, like `.priority`) and
/// null values; array elements are children with keys `"0"`, `"1"`, … except nulls. A missing
/// location or a leaf has no children.
final class ChildList: Sendable {
    let document: JSONDocument
    let isArray: Bool
    /// Per child: the tape index of its key (objects), or its element index (arrays).
    let keys: [Int32]
    /// Per child: the tape index of its value.
    let values: [Int32]
    /// Per child: the byte offset where it starts (its key; its value in an array) and ends.
    let starts: [UInt32]
    let ends: [UInt32]

    var count: Int { values.count }

    /// The children of the node at `path` in `document`.
    /// - Complexity: O(number of members or elements of the location).
    init(document: JSONDocument, path: Path) {
        self.document = document
        var keys = [Int32](), values = [Int32](), starts = [UInt32](), ends = [UInt32]()
        var isArray = false
        if let location = document.root.node(at: path) {
            document.withTapeReader { tape in
                let n = tape.childCount(location.index)
                keys.reserveCapacity(n)
                values.reserveCapacity(n)
                starts.reserveCapacity(n)
                ends.reserveCapacity(n)
                switch tape.firstByte(location.index) {
                case UInt8(ascii: "{"):
                    tape.forEachMember(of: location.index) { k, v in
                        guard tape.firstByte(v) != UInt8(ascii: "n") else { return }
                        let s = tape.start(k)
                        // A key is metadata when its first decoded byte is "."; only an escape can hide it.
                        let first = tape.bytes[s + 1]
                        if first == UInt8(ascii: ".") { return }
                        if first == UInt8(ascii: "\\") && tape.withStringBytes(k, { $0.first == UInt8(ascii: ".") }) { return }
                        keys.append(Int32(k))
                        values.append(Int32(v))
                        starts.append(UInt32(s))
                        ends.append(UInt32(tape.end(v)))
                    }
                case UInt8(ascii: "["):
                    isArray = true
                    var index: Int32 = 0
                    tape.forEachElement(of: location.index) { v in
                        defer { index += 1 }
                        guard tape.firstByte(v) != UInt8(ascii: "n") else { return }
                        keys.append(index)
                        values.append(Int32(v))
                        starts.append(UInt32(tape.start(v)))
                        ends.append(UInt32(tape.end(v)))
                    }
                default:
                    break
                }
            }
        }
        self.isArray = isArray
        self.keys = keys
        self.values = values
        self.starts = starts
        self.ends = ends
    }

    /// The value of child `ordinal`.
    func value(_ ordinal: Int) -> JSONNode { JSONNode(document: document, index: Int(values[ordinal])) }

    /// The key of child `ordinal`.
    func key(_ ordinal: Int) -> String {
        if isArray { return String(keys[ordinal]) }
        return JSONNode(document: document, index: Int(keys[ordinal])).stringValue!
    }

    /// Calls `body` with the UTF-8 bytes of the key of child `ordinal`.
    func withKeyBytes<R>(_ ordinal: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if isArray {
            var digits = String(keys[ordinal])
            return try digits.withUTF8(body)
        }
        return try JSONNode(document: document, index: Int(keys[ordinal])).withStringBytes(body)
    }

    /// The key of child `ordinal` for comparisons, reading from `tape` (this list's document);
    /// an escaped key is decoded into `arena`.
    func keyRef(_ ordinal: Int, _ tape: TapeReader, _ arena: ByteArena) -> KeyRef {
        if isArray { return KeyRef(arrayIndex: Int(keys[ordinal])) }
        return KeyRef(tape.stringBytes(Int(keys[ordinal]), arena: arena))
    }

    /// Whether children `a` of this list and `b` of `other` have the same key (code units).
    func sameKey(_ a: Int, _ tape: TapeReader, _ b: Int, of other: ChildList, _ otherTape: TapeReader) -> Bool {
        if isArray || other.isArray {
            return isArray && other.isArray && keys[a] == other.keys[b]
        }
        let ka = Int(keys[a]), kb = Int(other.keys[b])
        if !tape.hasEscapes(ka) && !otherTape.hasEscapes(kb) {
            let la = tape.end(ka) - tape.start(ka), lb = otherTape.end(kb) - otherTape.start(kb)
            return la == lb && bytesEqual(tape.bytes.baseAddress! + tape.start(ka), otherTape.bytes.baseAddress! + otherTape.start(kb), la)
        }
        return tape.withStringBytes(ka) { x in otherTape.withStringBytes(kb) { y in x.elementsEqual(y) } }
    }

    /// Whether children `a` of this list and `b` of `other` have equal values: identical bytes, or
    /// equal as JSON (numbers by value, objects in any order).
    func sameValue(_ a: Int, _ tape: TapeReader, _ b: Int, of other: ChildList, _ otherTape: TapeReader) -> Bool {
        let va = Int(values[a]), vb = Int(other.values[b])
        let la = tape.end(va) - tape.start(va), lb = otherTape.end(vb) - otherTape.start(vb)
        if la == lb && bytesEqual(tape.bytes.baseAddress! + tape.start(va), otherTape.bytes.baseAddress! + otherTape.start(vb), la) {
            return true
        }
        return value(a).valueEquals(other.value(b))
    }
}
