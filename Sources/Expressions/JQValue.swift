// A child's value as libjq's `jv`, built straight from the document's tape.
import CJQ
import JSONTree

extension TapeReader {
    /// The value of node `i` as a `jv` the caller owns.
    ///
    /// Built from the tape rather than by `jv_parse` on the node's text: the tape has already
    /// found every token, and jq's parser reads a byte at a time (most of a libjq filter's cost
    /// per child was parsing again). The value is the one jq's parser makes: numbers are
    /// doubles, a key given twice keeps the later value at the first one's place
    /// (`jv_object_set` replaces), and strings are checked as UTF-8 by `jv_string_sized`.
    func jqValue(_ i: Int) -> jv {
        switch firstByte(i) {
        case UInt8(ascii: "{"): return jqObject(i)
        case UInt8(ascii: "["):
            var array = jv_array()
            forEachElement(of: i) { array = jv_array_append(array, jqValue($0)) }
            return array
        case UInt8(ascii: "\""): return jqString(i)
        case UInt8(ascii: "t"): return jv_true()
        case UInt8(ascii: "f"): return jv_false()
        case UInt8(ascii: "n"): return jv_null()
        default: return jv_number(number(i))
        }
    }

    /// Every member in file order, the shadowed ones too, so that a repeated key sits where jq
    /// puts it.
    private func jqObject(_ i: Int) -> jv {
        var object = jv_object()
        var k = firstChild(i)
        let end = nextIndex(i)
        while k < end {
            let v = k + 1
            object = jv_object_set(object, jqString(k), jqValue(v))
            k = nextIndex(v)
        }
        return object
    }

    private func jqString(_ i: Int) -> jv {
        withStringBytes(i) { bytes in
            guard !bytes.isEmpty else { return jv_string("") }
            return bytes.withMemoryRebound(to: CChar.self) { jv_string_sized($0.baseAddress, Int32(clamping: $0.count)) }
        }
    }
}
