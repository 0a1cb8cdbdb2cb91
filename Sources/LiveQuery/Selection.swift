// Selecting the k smallest elements without sorting all of them.

/// Rearranges `a` so that `a[0..<k]` holds its `k` smallest elements, in no particular order.
/// - Complexity: O(n) expected (quickselect, median-of-three pivots); falls back to a sort of the
///   remaining range if partitioning keeps going badly, so never worse than O(n log n).
func partitionSmallest<T>(_ a: inout [T], _ k: Int, by less: (T, T) -> Bool) {
    let n = a.count
    guard k > 0 && k < n else { return }
    a.withUnsafeMutableBufferPointer { p in
        var lo = 0, hi = n - 1
        var budget = 2 * (Int.bitWidth - n.leadingZeroBitCount) + 8
        while hi > lo {
            if hi - lo < 24 || budget == 0 {
                sortRange(p, lo, hi, less)
                return
            }
            budget -= 1
            let mid = lo + (hi - lo) / 2
            // Median of three as the pivot.
            if less(p[mid], p[lo]) { p.swapAt(mid, lo) }
            if less(p[hi], p[lo]) { p.swapAt(hi, lo) }
            if less(p[hi], p[mid]) { p.swapAt(hi, mid) }
            let pivot = p[mid]
            var i = lo, j = hi
            while i <= j {
                while less(p[i], pivot) { i += 1 }
                while less(pivot, p[j]) { j -= 1 }
                if i <= j {
                    p.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Now p[lo...j] ≤ pivot ≤ p[i...hi]; elements between equal the pivot.
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return
            }
        }
    }
}

private func sortRange<T>(_ p: UnsafeMutableBufferPointer<T>, _ lo: Int, _ hi: Int, _ less: (T, T) -> Bool) {
    guard hi > lo else { return }
    var range = UnsafeMutableBufferPointer(rebasing: p[lo...hi])
    range.sort(by: less)
}
