// Moving lines that are already on the canvas to where the next frame wants them, with
// as few band shifts as possible, so only lines with new content are drawn.
import Sequences

/// A band shift of canvas lines (in body-line coordinates).
enum LineShift: Hashable {
    /// `count` blank lines at `at`; lines `at..<regionEnd - count` move down.
    case insert(count: Int, at: Int, regionEnd: Int)
    /// Lines `at..<at + count` dropped; lines below up to `regionEnd` move up.
    case delete(count: Int, at: Int, regionEnd: Int)

    /// The same shift applied to a model of the lines.
    func apply<T>(to lines: inout [T?]) {
        switch self {
        case .insert(let n, let at, let end):
            lines.replaceSubrange(at..<end, with: Array(repeating: nil, count: n) + lines[at..<(end - n)])
        case .delete(let n, let at, let end):
            lines.replaceSubrange(at..<end, with: lines[(at + n)..<end] + Array(repeating: nil, count: n))
        }
    }
}

/// The shifts that bring old lines to new places: `pairs` are (old line, new line) for
/// lines whose content is unchanged, in increasing new line. Lines keep their order, so a
/// longest run with increasing old lines is kept; its lines are grouped into hunks that
/// move by the same amount. Hunks moving up are shifted top to bottom, hunks moving down
/// bottom to top, so no shift overwrites a line another hunk still needs.
/// - Complexity: O(n log n) in the number of lines.
func planLineShifts(pairs: [(old: Int, new: Int)]) -> [LineShift] {
    let keep = longestIncreasingRun(pairs.map(\.old)).map { pairs[$0] }
    var hunks: [(old: Range<Int>, delta: Int)] = []
    for pair in keep {
        let delta = pair.new - pair.old
        if let last = hunks.last, last.delta == delta, last.old.upperBound == pair.old {
            hunks[hunks.count - 1].old = last.old.lowerBound..<(pair.old + 1)
        } else {
            hunks.append((pair.old..<(pair.old + 1), delta))
        }
    }
    var shifts: [LineShift] = []
    for hunk in hunks.reversed() where hunk.delta > 0 {
        shifts.append(.insert(count: hunk.delta, at: hunk.old.lowerBound, regionEnd: hunk.old.upperBound + hunk.delta))
    }
    for hunk in hunks where hunk.delta < 0 {
        shifts.append(.delete(count: -hunk.delta, at: hunk.old.lowerBound + hunk.delta, regionEnd: hunk.old.upperBound))
    }
    return shifts
}
