// Finding a text in a location's children: the pattern typed after `/` and the matches over
// every child in the order the table shows them (not only the rows loaded).
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import LiveQuery
import Synchronization

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
            // Swift's parser says where a pattern goes wrong; ICU's matcher (`BoundedRegex`) runs it.
            do {
                _ = try Regex(text)
            } catch {
                throw SearchPatternError(message: "not a regular expression: \(error)")
            }
            _ = try BoundedRegex(text, ignoresCase: ignoresCase)
        }
    }

    /// How the prompt and the messages name it: `"orch"` or `/orch.*a/` (regex), with the case rule.
    public var description: String {
        let shown = isRegex ? "/\(text)/" : JSON.string(text).serializedString()
        return shown + (ignoresCase ? " (any case)" : "")
    }

    /// A test for one text, for the cells on screen (their highlight). A regular expression that
    /// takes more than `BoundedRegex.highlightSeconds` of the thread's time on a text gives up:
    /// that text is not highlighted, and not tested again. Use it on one thread.
    public func matcher() -> (String) -> Bool {
        if isRegex {
            guard let regex = try? BoundedRegex(text, ignoresCase: ignoresCase) else { return { _ in false } }
            var costly = Set<String>()
            return { text in
                guard !costly.contains(text) else { return false }
                do {
                    return try regex.firstMatch(in: text, seconds: BoundedRegex.highlightSeconds, control: nil)
                } catch {
                    if costly.count < 1024 { costly.insert(text) }
                    return false
                }
            }
        }
        return plainMatcher()
    }

    /// The test of one text a search makes: a regular expression stops past
    /// `control.secondsPerText` of the thread's time on one text, or when the search is cancelled.
    func tester(_ control: SearchControl) -> (String) throws(RegexStop) -> Bool {
        guard isRegex, let regex = try? BoundedRegex(text, ignoresCase: ignoresCase) else {
            let plain = plainMatcher()
            return { text throws(RegexStop) in plain(text) }
        }
        return { text throws(RegexStop) in try regex.firstMatch(in: text, seconds: control.secondsPerText, control: control) }
    }

    /// The substring test (smart case).
    private func plainMatcher() -> (String) -> Bool {
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

    /// For a plain ASCII pattern, the bytes to look for in the JSON text: the text of a string,
    /// number or boolean cell is its JSON text unless the JSON holds escapes (a `\\`). nil for
    /// a regex, a non-ASCII pattern, or one that could match a container's `{3}` or `[5]`.
    func rawNeedle() -> (bytes: [UInt8], foldASCII: Bool)? {
        guard !isRegex else { return nil }
        let needle = Array((ignoresCase ? text.lowercased() : text).utf8)
        guard needle.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && !"\"\\{}[]".utf8.contains($0) }) else { return nil }
        return (needle, ignoresCase)
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
    var found = false
    forEachOccurrence(of: needle, in: haystack, foldASCII: foldASCII) { _ in
        found = true
        return false
    }
    return found
}

/// Calls `body` with the offset of each occurrence of `needle` in `haystack`, left to right,
/// while it returns true.
///
/// Boyer–Moore–Horspool: the byte under the needle's last place says how far the needle can
/// move, so a long needle skips most bytes (as grep does). With `foldASCII` the needle is lower
/// case and both cases of a letter in the text shift alike.
/// - Complexity: O(haystack / needle) typically, O(haystack × needle) at worst.
private func forEachOccurrence(of needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, foldASCII: Bool,
                               _ body: (Int) -> Bool) {
    let n = needle.count
    if n == 0 {
        _ = body(0)
        return
    }
    guard haystack.count >= n, let base = haystack.baseAddress else { return }
    @inline(__always) func folded(_ b: UInt8) -> UInt8 { foldASCII && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
    // One caseless byte: memchr.
    if n == 1 && !(foldASCII && needle[0] >= 0x61 && needle[0] <= 0x7A) {
        var i = 0
        while i < haystack.count, let hit = memchr(base + i, Int32(needle[0]), haystack.count - i) {
            let p = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - base
            if !body(p) { return }
            i = p + 1
        }
        return
    }
    // A short text (a cell, a key): a plain scan, without building a shift table.
    if haystack.count < 512 {
        var start = 0
        while start <= haystack.count - n {
            var j = 0
            while j < n && folded(haystack[start + j]) == needle[j] { j += 1 }
            if j == n, !body(start) { return }
            start += 1
        }
        return
    }
    var shift = [Int](repeating: n, count: 256)
    for j in 0..<(n - 1) {
        shift[Int(needle[j])] = n - 1 - j
        if foldASCII, needle[j] >= 0x61, needle[j] <= 0x7A { shift[Int(needle[j] & ~0x20)] = n - 1 - j }
    }
    let lastByte = needle[n - 1]
    var start = 0
    let end = haystack.count - n
    while start <= end {
        let b = folded(haystack[start + n - 1])
        if b == lastByte {
            var j = n - 2
            while j >= 0 && folded(haystack[start + j]) == needle[j] { j -= 1 }
            if j < 0, !body(start) { return }
        }
        start += shift[Int(haystack[start + n - 1])]
    }
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

/// A search stopped by `SearchControl.cancel()` (Esc, Ctrl-C).
struct SearchCancelled: Error {}

/// What a search found.
struct SearchFindings: Sendable, Equatable {
    var matches: [SearchMatch] = []
    /// The texts a regular expression took more than its time on (not known to match).
    var skipped = 0
}

/// The limits of one search, shared with the thread that runs it.
final class SearchControl: Sendable {
    /// A regular expression's time on one text (the thread's CPU time, so a busy machine does
    /// not shorten it): past it the text counts as skipped and the search goes on.
    let secondsPerText: Double
    private let cancelled = Atomic<Bool>(false)

    static let defaultSecondsPerText = 0.5

    init(secondsPerText: Double = defaultSecondsPerText) { self.secondsPerText = secondsPerText }

    /// Stops the search at its next text, or within a regular expression's next steps. Any thread.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// The children of `context.location` under `context.query` whose key or a cell of
/// `context.columns` matches `pattern`, in the table's order.
/// - Throws: `SearchCancelled` once `control` is cancelled.
/// - Complexity: O(n log n) to order n children, then O(n × columns) cell texts; a regular
///   expression at most `control.secondsPerText` on each.
func findMatches(_ pattern: SearchPattern, in document: JSONDocument, _ context: SearchContext,
                 control: SearchControl = SearchControl()) throws(SearchCancelled) -> SearchFindings {
    let window = Window(query: context.query, path: context.location, document: document)
    let test = pattern.tester(control)
    let candidates = pattern.rawNeedle().flatMap { rawCandidates($0.bytes, foldASCII: $0.foldASCII, document, context.location) }
    let keyBytesMatch = pattern.byteMatcher()
    let searchesKeys = context.columns.first == .key
    let n = window.count
    var found = SearchFindings()
    func matches(_ text: String) throws(SearchCancelled) -> Bool {
        do {
            return try test(text)
        } catch .cancelled {
            throw SearchCancelled()
        } catch {
            found.skipped += 1
            return false
        }
    }
    for position in 0..<n {
        guard !control.isCancelled else { throw SearchCancelled() }
        let i = context.reversed ? n - 1 - position : position
        if searchesKeys {
            let keyMatches: Bool
            if let keyBytesMatch { keyMatches = window.withKeyBytes(at: i, keyBytesMatch) } else { keyMatches = try matches(window.key(at: i)) }
            if keyMatches {
                found.matches.append(SearchMatch(key: window.key(at: i), row: position, column: 0))
                continue
            }
        }
        let value = window.value(at: i)
        // Most children are ruled out by one scan of the location's JSON text, as grep would.
        if let candidates, !candidates.contains(value.byteRange) { continue }
        let key = window.key(at: i)
        for (column, spec) in context.columns.enumerated() where spec != .key {
            guard try matches(spec.cell(key: key, child: value)) else { continue }
            found.matches.append(SearchMatch(key: key, row: position, column: column))
            break
        }
    }
    return found
}

/// Where, in the JSON text of the location, the needle or a `\\` occurs: a child's cell can
/// match only when one of these lies in the child's bytes. nil when there are too many to be
/// worth keeping (then every child is tested).
private func rawCandidates(_ needle: [UInt8], foldASCII: Bool, _ document: JSONDocument, _ location: Path) -> SortedOffsets? {
    guard let node = document.root.node(at: location) else { return SortedOffsets(offsets: []) }
    let limit = 1 << 20
    var offsets: [Int] = []
    let origin = node.byteRange.lowerBound
    document.bytes.withUnsafeBufferPointer { all in
        let bytes = UnsafeBufferPointer(rebasing: all[node.byteRange])
        forEachOccurrence(of: needle, in: bytes, foldASCII: foldASCII) { offsets.append(origin + $0); return offsets.count <= limit }
        forEachOccurrence(of: [0x5C], in: bytes, foldASCII: false) { offsets.append(origin + $0); return offsets.count <= 2 * limit }
    }
    guard offsets.count <= limit else { return nil }
    offsets.sort()
    return SortedOffsets(offsets: offsets)
}

/// Byte offsets in ascending order.
private struct SortedOffsets {
    let offsets: [Int]

    /// Whether an offset lies in `range`.
    /// - Complexity: O(log n).
    func contains(_ range: Range<Int>) -> Bool {
        var low = 0, high = offsets.count
        while low < high {
            let mid = (low + high) / 2
            if offsets[mid] < range.lowerBound { low = mid + 1 } else { high = mid }
        }
        return low < offsets.count && offsets[low] < range.upperBound
    }
}
