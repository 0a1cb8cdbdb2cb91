// A regular expression matched in time linear in its text (RE2), for rules' `matches()` and
// jq's `test`: a pattern from a client or a prompt can be slow to compile, never to match.
import CRE2

/// A compiled RE2 pattern. RE2's syntax is Perl's without what needs backtracking:
/// lookaround, backreferences, atomic and possessive groups are refused when compiling.
///
/// ```swift
/// let r = try LinearRegex("^(a+)+$")
/// r.matches("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")   // false, in microseconds
/// ```
public final class LinearRegex: @unchecked Sendable {
    // @unchecked: an RE2 is immutable once compiled, and RE2 documents matching one from
    // several threads at once as safe.
    private let compiled: OpaquePointer

    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let caseInsensitive = Options(rawValue: Int32(CRE2_CASE_INSENSITIVE))
        /// `.` matches `\n` too.
        public static let dotMatchesNewline = Options(rawValue: Int32(CRE2_DOT_MATCHES_NEWLINE))
        /// Leftmost-longest matches instead of leftmost-first.
        public static let longestMatch = Options(rawValue: Int32(CRE2_LONGEST_MATCH))
    }

    /// Compiles `pattern`.
    /// - Throws: `LinearRegexError` with RE2's words (`missing ): (a`).
    public init(_ pattern: String, options: Options = []) throws(LinearRegexError) {
        var message: UnsafeMutablePointer<CChar>?
        var kind = CRE2ErrorKind(rawValue: 0)
        var pattern = pattern
        let compiled = pattern.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cre2_compile($0.baseAddress, $0.count, options.rawValue, &message, &kind) }
        }
        guard let compiled else {
            let text = message.map { String(cString: $0) } ?? "cannot compile"
            cre2_free_message(message)
            throw LinearRegexError(message: text, kind: LinearRegexError.Kind(kind))
        }
        self.compiled = compiled
    }

    deinit { cre2_free(compiled) }

    /// Whether the pattern matches somewhere in `text`.
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    /// Whether the pattern matches somewhere in `text` (UTF-8).
    public func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.withMemoryRebound(to: CChar.self) { cre2_find(compiled, $0.baseAddress, $0.count, 0, nil, nil) }
    }

    /// The byte range of the first match in `text` (UTF-8) that starts at `start` or after it;
    /// the bytes before `start` are context for `^` and `\b`.
    public func firstMatch(in text: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Range<Int>? {
        var lower = 0, upper = 0
        let found = text.withMemoryRebound(to: CChar.self) { cre2_find(compiled, $0.baseAddress, $0.count, start, &lower, &upper) }
        return found ? lower..<upper : nil
    }
}

/// Why a pattern does not compile.
public struct LinearRegexError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case syntax
        /// A form of backtracking engines that RE2 leaves out to stay linear (lookaround,
        /// backreferences, possessive repetition).
        case unsupported
        /// Over RE2's memory budget (`(a{1000}){1000}`).
        case tooLarge

        init(_ kind: CRE2ErrorKind) {
            switch kind {
            case CRE2_ERROR_UNSUPPORTED: self = .unsupported
            case CRE2_ERROR_TOO_LARGE: self = .tooLarge
            default: self = .syntax
            }
        }
    }

    /// RE2's words.
    public let message: String
    public let kind: Kind

    /// RE2's words, and for a form RE2 leaves out, why.
    public var description: String {
        switch kind {
        case .syntax: message
        case .unsupported: message + " (regular expressions run in linear time, on RE2: no lookaround, backreferences or possessive repetition)"
        case .tooLarge: message + " (over the regular expression size limit)"
        }
    }
}
