// Finding a text in a location's children: the pattern typed after `/` and the matches over
// every child in the order the table shows them (not only the rows loaded).
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
            if !ignoresCase { return containsBytes(haystack.utf8, needle, foldASCII: false) }
            // Only ASCII letters in the needle: fold the haystack's ASCII bytes as it is read.
            if asciiNeedle { return containsBytes(haystack.utf8, needle, foldASCII: true) }
            return containsBytes(haystack.lowercased().utf8, needle, foldASCII: false)
        }
    }
}

public struct SearchPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Whether `needle` occurs in `haystack` (ASCII upper case folded to lower when asked).
/// - Complexity: O(haystack × needle) in the worst case; cells are short.
private func containsBytes(_ haystack: String.UTF8View, _ needle: [UInt8], foldASCII: Bool) -> Bool {
    if needle.isEmpty { return true }
    var fast = Array(haystack)
    if foldASCII {
        for i in fast.indices where fast[i] >= 0x41 && fast[i] <= 0x5A { fast[i] |= 0x20 }
    }
    let n = needle.count
    guard fast.count >= n else { return false }
    let first = needle[0]
    var i = 0
    while i <= fast.count - n {
        if fast[i] == first {
            var j = 1
            while j < n && fast[i + j] == needle[j] { j += 1 }
            if j == n { return true }
        }
        i += 1
    }
    return false
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
    let n = window.count
    var found: [SearchMatch] = []
    for position in 0..<n {
        let i = context.reversed ? n - 1 - position : position
        let key = window.key(at: i)
        let value = window.value(at: i)
        for (column, spec) in context.columns.enumerated() where matches(spec.cell(key: key, child: value)) {
            found.append(SearchMatch(key: key, row: position, column: column))
            break
        }
    }
    return found
}
