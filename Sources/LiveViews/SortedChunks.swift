// An ordered multiset with ranks: what the frequency table's order and a column's median need.

/// A sorted multiset kept as a list of sorted chunks of at most `chunkLimit` elements: insert
/// and remove move at most one chunk's elements, rank and element-at walk the chunk sizes.
///
/// A million elements make about 2,000–4,000 chunks, so every operation costs a few
/// microseconds; building from a sorted array costs one pass. (swift-collections 1.6's sorted
/// containers sit behind an unstable trait, so this small structure stands in.)
///
/// ```swift
/// var lengths = SortedChunks<Int>(sorted: [1, 3, 3, 7])
/// lengths.insert(5)
/// lengths.remove(3)
/// lengths.element(at: lengths.count / 2)   // 5: the median's upper middle
/// lengths.rank(of: 5)                      // 2: elements before the first 5
/// ```
struct SortedChunks<Element: Comparable> {
    private var chunks: [[Element]] = []
    private(set) var count = 0

    static var chunkLimit: Int { 1024 }

    init() {}

    /// A multiset of `sorted` (ascending), in one pass.
    init(sorted: [Element]) {
        let half = Self.chunkLimit / 2
        var start = 0
        while start < sorted.count {
            let end = min(sorted.count, start + half)
            chunks.append(Array(sorted[start..<end]))
            start = end
        }
        count = sorted.count
    }

    var isEmpty: Bool { count == 0 }
    var first: Element? { chunks.first?.first }
    var last: Element? { chunks.last?.last }

    /// The chunk that holds `x`'s place: the first whose last element is not less than `x`
    /// (the last chunk when every element is less).
    private func chunkIndex(for x: Element) -> Int {
        var lo = 0, hi = chunks.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if chunks[mid].last! < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first place in `chunk` whose element is not less than `x`.
    private static func lowerBound(_ chunk: [Element], _ x: Element) -> Int {
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if chunk[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    mutating func insert(_ x: Element) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[x]]
            return
        }
        let c = chunkIndex(for: x)
        chunks[c].insert(x, at: Self.lowerBound(chunks[c], x))
        if chunks[c].count > Self.chunkLimit {
            let upper = Array(chunks[c][(Self.chunkLimit / 2)...])
            chunks[c].removeLast(upper.count)
            chunks.insert(upper, at: c + 1)
        }
    }

    /// Removes one element equal to `x`; returns whether there was one.
    @discardableResult
    mutating func remove(_ x: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let c = chunkIndex(for: x)
        let i = Self.lowerBound(chunks[c], x)
        guard i < chunks[c].count, !(x < chunks[c][i]) else { return false }
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty {
            chunks.remove(at: c)
        } else if c + 1 < chunks.count, chunks[c].count + chunks[c + 1].count <= Self.chunkLimit / 2 {
            // Small neighbours merge, so the chunk count stays near count / chunkLimit.
            chunks[c].append(contentsOf: chunks[c + 1])
            chunks.remove(at: c + 1)
        }
        return true
    }

    /// How many elements are less than `x`.
    func rank(of x: Element) -> Int {
        guard !chunks.isEmpty else { return 0 }
        let c = chunkIndex(for: x)
        var before = 0
        for k in 0..<c { before += chunks[k].count }
        return before + Self.lowerBound(chunks[c], x)
    }

    /// How many elements equal `x`.
    func count(of x: Element) -> Int {
        guard !chunks.isEmpty else { return 0 }
        var n = 0
        var c = chunkIndex(for: x)
        // Equal elements may run on over the next chunks.
        while c < chunks.count {
            let chunk = chunks[c]
            var i = Self.lowerBound(chunk, x)
            while i < chunk.count && !(x < chunk[i]) {
                n += 1
                i += 1
            }
            guard i == chunk.count else { break }
            c += 1
        }
        return n
    }

    /// The element at `index` in ascending order.
    /// - Precondition: `0 <= index < count`.
    func element(at index: Int) -> Element {
        var i = index
        for chunk in chunks {
            if i < chunk.count { return chunk[i] }
            i -= chunk.count
        }
        preconditionFailure("index \(index) out of \(count) elements")
    }

    /// Every element, ascending.
    var elements: [Element] { chunks.flatMap { $0 } }
}
