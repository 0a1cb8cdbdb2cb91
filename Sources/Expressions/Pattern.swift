// `test`'s regular expressions: jq's (Oniguruma's) syntax and flags, matched by RE2.
import LinearRegex

/// A regular expression of `test`, compiled when the expression is parsed.
///
/// jq matches with Oniguruma, a backtracking engine: `test("^(a+)+$")` on forty `a`s and a `b`
/// runs for minutes. Here the pattern runs on RE2, in time linear in the string, so a filter
/// typed at a prompt cannot freeze the viewer. The pattern is translated so that it means what
/// it means in jq 1.6 wherever RE2 can say it:
/// - `^` and `$` anchor at the string's ends (jq compiles in Perl's single-line mode); `$` and
///   `\Z` also match before a final newline, as `\n?\z`, which differs only when the pattern
///   goes on after the `$`.
/// - `\d`, `\w`, `\s` and `\D`, `\W`, `\S` are Unicode's, as Oniguruma's on UTF-8 (RE2's are
///   ASCII's); inside `[…]`, `\W` and `\S` stay ASCII's (a class cannot hold a negated class).
/// - flag `x` drops whitespace and `#` comments outside `[…]` here, as RE2 has no such mode.
///
/// Differences that remain: `\b`, `\B` and POSIX classes (`[[:alpha:]]`) are ASCII's; flag `i`
/// folds one character to one (`ß` does not match `SS`); lookaround, backreferences, atomic
/// groups, possessive repetition and `\h` are refused with a message saying why (RE2 has no
/// linear-time way to match them).
struct Pattern: Sendable {
    let regex: LinearRegex
    let source: String
    let flags: String
    /// Flag `n`: only a non-empty match counts.
    let nonEmpty: Bool

    /// jq's flags; `g` (every match) and `l` (longest match) do not change whether one exists.
    static let flagLetters = "g, i, l, n, p, s, x"

    enum Problem: Error {
        case flag(Character)
        case invalid(LinearRegexError)
    }

    init(_ source: String, flags: String) throws(Problem) {
        var options = LinearRegex.Options()
        var nonEmpty = false
        for f in flags {
            switch f {
            case "i": options.insert(.caseInsensitive)
            // jq's p is Oniguruma's multiline: `.` matches a newline too.
            case "p": options.insert(.dotMatchesNewline)
            // Leftmost-longest: with n, the longest match at a place is non-empty when any is.
            case "n": nonEmpty = true; options.insert(.longestMatch)
            // s (single-line) is already jq's mode; x is applied in the translation.
            case "g", "l", "s", "x": break
            default: throw .flag(f)
            }
        }
        do { regex = try LinearRegex(Self.translated(source, extended: flags.contains("x")), options: options) } catch {
            throw .invalid(error)
        }
        self.source = source
        self.flags = flags
        self.nonEmpty = nonEmpty
    }

    /// Whether the pattern matches somewhere in `text` (UTF-8).
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard nonEmpty else { return regex.matches(text) }
        // An empty match at one place says nothing of the next: look again one character on.
        // Each search is linear; a string of empty matches makes this quadratic at worst,
        // never exponential.
        var start = 0
        while let match = regex.firstMatch(in: text, from: start) {
            if !match.isEmpty { return true }
            guard match.lowerBound < text.count else { return false }
            start = match.lowerBound + 1
            while start < text.count, text[start] & 0xC0 == 0x80 { start += 1 }
        }
        return false
    }

    // Oniguruma's Unicode classes in RE2's words.
    private static let word = #"\p{L}\p{M}\p{N}\p{Pc}"#
    private static let space = #"\t\n\v\f\r\x{85}\p{Z}"#
    private static let endAnchor = #"(?:\n?\z)"#

    /// `source` in RE2's syntax with jq's meaning (see the type's comment).
    static func translated(_ source: String, extended: Bool) -> String {
        let s = Array(source.unicodeScalars)
        var out = ""
        var i = 0
        var inClass = false
        while i < s.count {
            let c = s[i]
            if c == "\\", i + 1 < s.count {
                let e = s[i + 1]
                i += 2
                switch (e, inClass) {
                case ("d", _): out += #"\p{Nd}"#
                case ("D", _): out += #"\P{Nd}"#
                case ("w", true): out += word
                case ("w", false): out += "[" + word + "]"
                case ("W", false): out += "[^" + word + "]"
                case ("s", true): out += space
                case ("s", false): out += "[" + space + "]"
                case ("S", false): out += "[^" + space + "]"
                case ("Z", false): out += endAnchor
                default: out.unicodeScalars.append(contentsOf: [c, e])
                }
                continue
            }
            i += 1
            if inClass {
                if c == "]" { inClass = false }
                out.unicodeScalars.append(c)
                if c == "[", i < s.count, s[i] == ":" {
                    // A POSIX class `[:alpha:]` inside a class: its `]` does not close the class.
                    while i < s.count, s[i] != "]" { out.unicodeScalars.append(s[i]); i += 1 }
                    if i < s.count { out.unicodeScalars.append(s[i]); i += 1 }
                }
                continue
            }
            switch c {
            case "[":
                inClass = true
                out += "["
                if i < s.count, s[i] == "^" { out += "^"; i += 1 }
                // A `]` first in a class is itself.
                if i < s.count, s[i] == "]" { out += "]"; i += 1 }
            case "$":
                out += endAnchor
            case _ where extended && [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(c):
                break
            case "#" where extended:
                while i < s.count, s[i] != "\n" { i += 1 }
            default:
                out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
