// A window's members as child ordinals, stored only when they are not simply consecutive.

/// The ordinals of a window's members, in query order: an array, or, when they are the
/// consecutive children `lowerBound..<upperBound` (an array read by key, a file kept in query
/// order), only those bounds — a window over millions of children in file order then holds
/// nothing per child.
struct MemberList: RandomAccessCollection, Sendable {
    private let stored: [Int32]?
    private let consecutive: Range<Int32>

    init(_ ordinals: [Int32]) {
        stored = ordinals
        consecutive = 0..<0
    }

    init(consecutive ordinals: Range<Int32>) {
        stored = nil
        consecutive = ordinals
    }

    var startIndex: Int { 0 }
    var endIndex: Int { stored?.count ?? consecutive.count }

    @inline(__always)
    subscript(i: Int) -> Int32 {
        if let stored { return stored[i] }
        return consecutive.lowerBound + Int32(truncatingIfNeeded: i)
    }

    /// Calls `body` with the ordinals in one buffer (made for the call when they are consecutive).
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Int32>) throws -> R) rethrows -> R {
        if let stored { return try stored.withUnsafeBufferPointer(body) }
        return try Array(consecutive).withUnsafeBufferPointer(body)
    }
}
