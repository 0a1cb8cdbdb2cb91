// A regular expression whose every test is bounded: ICU's matcher (Foundation's
// NSRegularExpression) reports its progress as it goes, and a test that has used its time, or
// whose search was cancelled, is stopped there.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Why the test of one text was stopped.
enum RegexStop: Error {
    case tooCostly
    case cancelled
}

/// A compiled regular expression whose tests stop after a given time of the thread's CPU.
///
/// A backtracking matcher can take exponential time (`(a|aa)*b` on forty `a`s), and Swift's
/// `Regex` cannot be stopped once it has started. ICU's can: with `.reportProgress` it calls back
/// every 10,000 steps and at each place it tries a match from, and the callback may stop it.
/// The time is the thread's own (`CLOCK_THREAD_CPUTIME_ID`), so a machine busy with other work
/// does not make a cheap test look costly.
final class BoundedRegex: @unchecked Sendable {
    /// A cell's test for its highlight, on the loop thread: a screen of such cells stays quick.
    static let highlightSeconds = 0.002

    // Immutable once made; ICU's matcher state is per test (checked out or cloned).
    private let regex: NSRegularExpression

    init(_ pattern: String, ignoresCase: Bool) throws(SearchPatternError) {
        do {
            regex = try NSRegularExpression(pattern: pattern, options: ignoresCase ? [.caseInsensitive] : [])
        } catch {
            throw SearchPatternError(message: "not a regular expression ICU takes: \(pattern)")
        }
    }

    /// Whether the expression matches somewhere in `text`.
    /// - Throws: `RegexStop.tooCostly` past `seconds` of this thread's time, `.cancelled` once
    ///   `control` is cancelled.
    func firstMatch(in text: String, seconds: Double, control: SearchControl?) throws(RegexStop) -> Bool {
        var found = false
        var stop: RegexStop?
        var calls = 0
        let start = threadSeconds()
        regex.enumerateMatches(in: text, options: .reportProgress, range: NSRange(location: 0, length: text.utf16.count)) { match, _, halt in
            if match != nil {
                found = true
                halt.pointee = true
                return
            }
            // Reading the clock costs a system call: every 16th report (at most 160,000 steps).
            calls += 1
            guard calls & 15 == 0 else { return }
            if control?.isCancelled == true {
                stop = .cancelled
            } else if threadSeconds() - start > seconds {
                stop = .tooCostly
            }
            if stop != nil { halt.pointee = true }
        }
        if let stop { throw stop }
        return found
    }
}

/// The CPU time this thread has used, in seconds.
private func threadSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
