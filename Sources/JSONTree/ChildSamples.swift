// Every 64th child of a document's large containers, so that a re-parse finds the child an edit
// touched without walking every child before it: over a million children that walk was 7 ms
// of each edit's 35.
import Synchronization

/// For each large container a re-parse has looked into, by tape index: the tape index of every
/// `ChildSamples.stride`-th child (its key, in an object), in order. Built the first time a
/// re-parse walks past `ChildSamples.buildAfter` children of a container, and carried to the
/// documents re-parsed from this one (shared while their tape is the same, shifted by a splice).
final class ChildSamples: Sendable {
    static let stride = 64
    static let buildAfter = 4096

    private let byContainer: Mutex<[Int: [UInt32]]>

    init(_ samples: [Int: [UInt32]] = [:]) {
        byContainer = Mutex(samples)
    }

    /// The first child of `container` (its key, in an object) whose value ends after byte
    /// `offset`; the container's next index when none does.
    func firstChild(endingAfter offset: Int, in container: Int, _ tape: TapeReader) -> Int {
        let isObject = tape.firstByte(container) == UInt8(ascii: "{")
        let end = tape.nextIndex(container)
        var child = tape.firstChild(container)
        let samples = samples(of: container)
        if let samples {
            // The last sample that starts before `offset`: every child before it ends before it.
            var low = 0, high = samples.count
            while low < high {
                let mid = (low + high) / 2
                if tape.start(Int(samples[mid])) < offset { low = mid + 1 } else { high = mid }
            }
            if low > 0 { child = Int(samples[low - 1]) }
        }
        var passed = 0
        while child < end {
            let value = isObject ? child + 1 : child
            if tape.end(value) > offset { break }
            child = tape.nextIndex(value)
            passed += 1
        }
        if samples == nil && passed >= Self.buildAfter {
            let built = Self.sample(container, isObject: isObject, end: end, tape)
            byContainer.withLock { $0[container] = built }
        }
        return child
    }

    /// The samples kept for `container`, if any.
    func samples(of container: Int) -> [UInt32]? { byContainer.withLock { $0[container] } }

    /// Every `stride`-th child of `container`, from its first.
    static func sample(_ container: Int, isObject: Bool, end: Int, _ tape: TapeReader) -> [UInt32] {
        var samples: [UInt32] = []
        var child = tape.firstChild(container), k = 0
        while child < end {
            if k % stride == 0 { samples.append(UInt32(child)) }
            child = tape.nextIndex(isObject ? child + 1 : child)
            k += 1
        }
        return samples
    }

    /// The samples of a tape in which the subtree at `index` (which ended before `oldNext`)
    /// was replaced by one of `countDelta` more entries: a container inside that subtree is
    /// gone; indexes after it move by `countDelta`.
    func spliced(at index: Int, oldNext: Int, countDelta: Int) -> ChildSamples {
        let moved = byContainer.withLock { all in
            var moved: [Int: [UInt32]] = [:]
            for (container, samples) in all where !(index <= container && container < oldNext) {
                let shift = { (i: Int) in i >= oldNext ? i + countDelta : i }
                moved[shift(container)] = samples.map { UInt32(shift(Int($0))) }
            }
            return moved
        }
        return ChildSamples(moved)
    }
}
