// The longest increasing subsequence: which kept rows stay put and which move (a batch's
// moves in LiveQuery, a table's line shifts in TableUI, a frequency table's in LiveViews).

/// Marks a longest strictly increasing subsequence of the non-negative values (negative values
/// are holes: rows that are not kept).
///
/// Patience sorting, with the common case first: a value larger than the end of the longest
/// run so far extends it in O(1), so an almost-sorted sequence (one edit to a large window)
/// costs O(n) and no search.
/// - Returns: for each position, whether it belongs to the subsequence, and its length; nil
///   when every non-negative value does (they are already increasing).
/// - Complexity: O(n log L) for a subsequence of length L; O(n) when nearly increasing.
package func longestIncreasingSubsequence(_ values: UnsafeBufferPointer<Int32>) -> (marks: [Bool], length: Int)? {
    let n = values.count
    var last: Int32 = -1
    var increasing = true
    for v in values where v >= 0 {
        if v <= last {
            increasing = false
            break
        }
        last = v
    }
    if increasing { return nil }
    // tails[l]: the position ending the best increasing run of length l + 1 found so far, and
    // tailValues[l] its value (searched without going back to `values`).
    let tails = UnsafeMutablePointer<Int32>.allocate(capacity: n)
    let tailValues = UnsafeMutablePointer<Int32>.allocate(capacity: n)
    let previous = UnsafeMutablePointer<Int32>.allocate(capacity: n)
    defer {
        tails.deallocate()
        tailValues.deallocate()
        previous.deallocate()
    }
    var length = 0
    for i in 0..<n {
        let v = values[i]
        guard v >= 0 else { continue }
        if length == 0 || tailValues[length - 1] < v {
            previous[i] = length > 0 ? tails[length - 1] : -1
            tails[length] = Int32(i)
            tailValues[length] = v
            length += 1
            continue
        }
        var lo = 0, hi = length - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if tailValues[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        previous[i] = lo > 0 ? tails[lo - 1] : -1
        tails[lo] = Int32(i)
        tailValues[lo] = v
    }
    var marks = [Bool](repeating: false, count: n)
    var p = length > 0 ? Int(tails[length - 1]) : -1
    while p >= 0 {
        marks[p] = true
        p = Int(previous[p])
    }
    return (marks, length)
}

/// Marks a longest strictly increasing subsequence of `values`.
package func longestIncreasingSubsequence(_ values: [Int32]) -> [Bool] {
    values.withUnsafeBufferPointer { longestIncreasingSubsequence($0)?.marks } ?? values.map { $0 >= 0 }
}

/// Marks a longest strictly increasing subsequence of `values` (each non-negative and below 2^31).
package func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
    longestIncreasingSubsequence(values.map { Int32(clamping: $0) })
}

/// Positions (into `values`) of a longest strictly increasing subsequence, in order.
package func longestIncreasingRun(_ values: [Int]) -> [Int] {
    let marks = longestIncreasingSubsequence(values)
    return marks.indices.filter { marks[$0] }
}
