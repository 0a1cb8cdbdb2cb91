// Finding a text in a location's children: the pattern typed after `/` and the matches over
// every child in the order the table shows them (not only the rows loaded).
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import LiveQuery

/// What `/` looks for: a plain substring, or a regular expression when the text starts with `\v`
/// (as in vim's "very magic"). Smart case: a pattern with no upper-case letter ignores case.
public struct SearchPattern: Sendable, Equatable {
    /// The pattern without its `\v`.
    public let text: String
    public let isRegex: Bool
    public let ignoresCase: Bool

    /// - Throws: `SearchPatternError` for an empty pattern or a regular expression that does
    ///   not compile (the message says where).
    public init(parsing typed: String) throws(SearchPatternError) {
        isRegex = typed.hasPrefix("\\v")
        text = isRegex ? String(typed.dropFirst(2)) : typed
        guard !text.isEmpty else { throw SearchPatternError(message: "an empty search finds nothing") }
        ignoresCase = !text.contains { $0.isUppercase }
        if isRegex {
            do {
                _ = try Regex(text)
            } catch {
                throw SearchPatternError(message: "not a regular expression: \(error)")
            }
        }
    }

    /// How the prompt and the messages name it: `"orch"` or `/orch.*a/` (regex), with the case rule.
    public var description: String {
        let shown = isRegex ? "/\(text)/" : JSON.string(text).serializedString()
        return shown + (ignoresCase ? " (any case)" : "")
    }

    /// A test for one text. Build it on the thread that uses it (a regex is compiled per matcher).
    public func matcher() -> (String) -> Bool {
        if isRegex {
            guard var regex = try? Regex(text) else { return { _ in false } }
            if ignoresCase { regex = regex.ignoresCase() }
            return { (try? regex.firstMatch(in: $0)) != nil }
        }
        let needle = Array((ignoresCase ? text.lowercased() : text).utf8)
        let asciiNeedle = needle.allSatisfy { $0 < 0x80 }
        let ignoresCase = self.ignoresCase
        return { haystack in
            var s = haystack
            if ignoresCase && !asciiNeedle { s = haystack.lowercased() }
            // Only ASCII letters in the needle: fold the haystack's ASCII bytes as it is read.
            let fold = ignoresCase && asciiNeedle
            return s.utf8.withContiguousStorageIfAvailable { containsBytes($0, needle, foldASCII: fold) }
                ?? containsBytes(Array(s.utf8), needle, foldASCII: fold)
        }
    }

    /// The matcher on UTF-8 bytes, for a plain pattern of ASCII characters (a key is tested
    /// without making a `String` of it); nil otherwise.
    func byteMatcher() -> ((UnsafeBufferPointer<UInt8>) -> Bool)? {
        let needle = Array((ignoresCase ? text.lowercased() : text).utf8)
        guard !isRegex, needle.allSatisfy({ $0 < 0x80 }) else { return nil }
        let fold = ignoresCase
        return { containsBytes($0, needle, foldASCII: fold) }
    }

    /// A test on a child's JSON text that is false only when no cell of the child can match:
    /// for a plain ASCII pattern the text of a string, number or boolean cell is its JSON text,
    /// unless the JSON holds escapes (a `\` in it) — then, and for patterns that could match a
    /// container's `{3}` or `[5]`, there is no such test (nil).
    func rawPrefilter() -> ((ArraySlice<UInt8>) -> Bool)? {
        guard !isRegex else { return nil }
        let needle = Array((ignoresCase ? text.lowercased() : text).utf8)
        guard needle.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && !"\"\\{}[]".utf8.contains($0) }) else { return nil }
        let fold = ignoresCase
        return { raw in
            raw.withUnsafeBufferPointer { bytes in
                containsBytes(bytes, needle, foldASCII: fold) || (bytes.baseAddress.map { memchr($0, 0x5C, bytes.count) != nil } ?? false)
            }
        }
    }
}

public struct SearchPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Whether `needle` occurs in `haystack` (ASCII upper case folded to lower when asked).
///
/// Candidates are found with `memchr` on one byte of the needle that has no case (a digit,
/// a punctuation mark), or on both cases of its first letter, then checked in full.
/// - Complexity: O(haystack × needle) in the worst case; close to `memchr`'s speed typically.
private func containsBytes(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], foldASCII: Bool) -> Bool {
    let n = needle.count
    if n == 0 { return true }
    guard haystack.count >= n, let base = haystack.baseAddress else { return false }
    func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    @inline(__always) func folded(_ b: UInt8) -> UInt8 { foldASCII && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
    // The anchor: a caseless byte other than the commonest in JSON text, else the first byte.
    let common: Set<UInt8> = [0x20, 0x22, 0x3A, 0x2C, 0x0A]
    let anchor = needle.indices.first { !isLetter(needle[$0]) && !common.contains(needle[$0]) } ?? 0
    let a = needle[anchor]
    let b = foldASCII && isLetter(a) ? a & ~0x20 : a
    let last = haystack.count - n + anchor  // the anchor's last possible place
    var i = anchor
    while i <= last {
        let from = base + i
        let count = last - i + 1
        var hit = memchr(from, Int32(a), count).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
        if b != a, let other = memchr(from, Int32(b), hit.map { $0 - i } ?? count) {
            hit = UnsafePointer(other.assumingMemoryBound(to: UInt8.self)) - base
        }
        guard let p = hit else { return false }
        let start = p - anchor
        var j = 0
        while j < n && folded(haystack[start + j]) == needle[j] { j += 1 }
        if j == n { return true }
        i = p + 1
    }
    return false
}

private func containsBytes(_ haystack: [UInt8], _ needle: [UInt8], foldASCII: Bool) -> Bool {
    haystack.withUnsafeBufferPointer { containsBytes($0, needle, foldASCII: foldASCII) }
}

/// One child where the pattern was found.
struct SearchMatch: Sendable, Equatable {
    let key: String
    /// Its row in the table's order over every child the query keeps (row 0 at the top), so
    /// the rows loaded are the rows `0..<loaded`.
    let row: Int
    /// The first column (of the columns searched) whose cell matched: 0 is the key.
    let column: Int
}

/// What a search ran on; a search whose context is no longer the viewer's is run again.
struct SearchContext: Equatable, Sendable {
    var revision: Int
    var location: Path
    /// The view's query without paging (its pages are a prefix of these rows).
    var query: Query
    /// The rows are shown last first (limit-to-last).
    var reversed: Bool
    var columns: [ColumnSpec]
}

/// The children of `context.location` under `context.query` whose key or a cell of
/// `context.columns` matches `pattern`, in the table's order.
/// - Complexity: O(n log n) to order n children, then O(n × columns) cell texts.
func findMatches(_ pattern: SearchPattern, in document: JSONDocument, _ context: SearchContext) -> [SearchMatch] {
    let window = Window(query: context.query, path: context.location, document: document)
    let matches = pattern.matcher()
    let prefilter = pattern.rawPrefilter()
    let keyBytesMatch = pattern.byteMatcher()
    let searchesKeys = context.columns.first == .key
    let n = window.count
    var found: [SearchMatch] = []
    for position in 0..<n {
        let i = context.reversed ? n - 1 - position : position
        if searchesKeys {
            let keyMatches = keyBytesMatch.map { window.withKeyBytes(at: i, $0) } ?? matches(window.key(at: i))
            if keyMatches {
                found.append(SearchMatch(key: window.key(at: i), row: position, column: 0))
                continue
            }
        }
        let value = window.value(at: i)
        // Most children are ruled out by one scan of their JSON text, as grep would.
        if let prefilter, !prefilter(value.rawBytes) { continue }
        let key = window.key(at: i)
        for (column, spec) in context.columns.enumerated() where spec != .key && matches(spec.cell(key: key, child: value)) {
            found.append(SearchMatch(key: key, row: position, column: column))
            break
        }
    }
    return found
}
