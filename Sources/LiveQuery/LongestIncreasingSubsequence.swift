// The longest increasing subsequence: which kept rows stay put and which move.

/// Marks a longest strictly increasing subsequence of `values`.
///
/// Patience sorting, with the common case first: a value larger than the end of the longest
/// run so far extends it in O(1), so an almost-sorted sequence (one edit to a large window)
/// costs O(n) and no search.
/// - Returns: for each position, whether it belongs to the subsequence.
/// - Complexity: O(n log L) for a subsequence of length L; O(n) when `values` is increasing.
func longestIncreasingSubsequence(_ values: [Int32]) -> [Bool] {
    let n = values.count
    var increasing = true
    for i in values.indices.dropFirst() where values[i - 1] >= values[i] {
        increasing = false
        break
    }
    if increasing { return [Bool](repeating: true, count: n) }
    // tails[l]: the position ending the best increasing run of length l + 1 found so far.
    var tails = [Int32]()
    var previous = [Int32](repeating: -1, count: n)
    for i in 0..<n {
        let v = values[i]
        if let last = tails.last, values[Int(last)] >= v {
            var lo = 0, hi = tails.count - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[Int(tails[mid])] < v { lo = mid + 1 } else { hi = mid }
            }
            previous[i] = lo > 0 ? tails[lo - 1] : -1
            tails[lo] = Int32(i)
        } else {
            previous[i] = tails.last ?? -1
            tails.append(Int32(i))
        }
    }
    var inSubsequence = [Bool](repeating: false, count: n)
    var p = tails.last ?? -1
    while p >= 0 {
        inSubsequence[Int(p)] = true
        p = previous[Int(p)]
    }
    return inSubsequence
}
