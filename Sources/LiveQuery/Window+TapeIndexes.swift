// Reading many rows' values straight from the revision's tape.
import JSONTree

extension Window {
    /// The tape index of row `i`'s value in `document` (what `value(at: i).index` is, without
    /// making a `JSONNode`): a reader of a million rows inside `document.withTapeReader` then
    /// retains nothing per row.
    @inline(__always)
    public func valueIndex(at i: Int) -> Int { children.valueIndex(ordinal(at: i)) }
}
