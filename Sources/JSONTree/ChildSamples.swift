// Every 64th child of a document's large containers, so that a re-parse finds the child an edit
// touched without walking every child before it: over a million children that walk was 7 ms
// of each edit's 35.
import Synchronization

/// For each large container a re-parse has looked into, by tape index: the tape index of every
/// `ChildSamples.stride`-th child (its key, in an object), in order. Built the first time a
/// re-parse walks past `ChildSamples.buildAfter` children of a container, and carried to the
/// documents re-parsed from this one (shared while their tape is the same, shifted by a splice).
/// A splice of a run of a container's children drops the samples among them, so samples are
/// some of the children, in order, rather than every 64th: any such serve. A walk that passes
/// `buildAfter` children between two samples takes them afresh.
final class ChildSamples: Sendable {
    static let stride = 64
    static let buildAfter = 4096

    private let byContainer: Mutex<[Int: [UInt32]]>
    /// Objects whose keys, each without escapes, are known to strictly increase (as bytes): a
    /// run of members re-parsed whose keys lie in order between its neighbours' leaves every key
    /// unique, with no comparison against the others (`JSONDocument.reparsedChildren`).
    private let increasingKeys: Mutex<Set<Int>>

    init(_ samples: [Int: [UInt32]] = [:], increasingKeys: Set<Int> = []) {
        byContainer = Mutex(samples)
        self.increasingKeys = Mutex(increasingKeys)
    }

    /// Whether object `container`'s keys are known to strictly increase.
    func keysIncrease(_ container: Int) -> Bool { increasingKeys.withLock { $0.contains(container) } }

    /// Notes whether object `container`'s keys strictly increase, before this is shared.
    func note(keysIncrease: Bool, of container: Int) {
        increasingKeys.withLock { keys in
            if keysIncrease { keys.insert(container) } else { keys.remove(container) }
        }
    }

    /// The first child of `container` (its key, in an object) whose value ends after byte
    /// `offset`; the container's next index when none does.
    func firstChild(endingAfter offset: Int, in container: Int, _ tape: TapeReader) -> Int {
        children(around: offset, in: container, tape).first
    }

    /// The first child of `container` whose value ends after byte `offset` (the container's
    /// next index when none does), and the child before it, if any.
    func children(around offset: Int, in container: Int, _ tape: TapeReader) -> (before: Int?, first: Int) {
        let isObject = tape.firstByte(container) == UInt8(ascii: "{")
        let end = tape.nextIndex(container)
        var child = tape.firstChild(container)
        let samples = samples(of: container)
        if let samples {
            // The last sample that starts before `offset`: every child before it ends before it.
            // From the sample before that one, so that the child before the first is seen too.
            var low = 0, high = samples.count
            while low < high {
                let mid = (low + high) / 2
                if tape.start(Int(samples[mid])) < offset { low = mid + 1 } else { high = mid }
            }
            if low > 1 { child = Int(samples[low - 2]) }
        }
        var passed = 0
        var before: Int?
        while child < end {
            let value = isObject ? child + 1 : child
            if tape.end(value) > offset { break }
            before = child
            child = tape.nextIndex(value)
            passed += 1
        }
        // None yet, or too few: children inserted since they were taken lie between them.
        if passed >= Self.buildAfter {
            let built = Self.sample(container, isObject: isObject, end: end, tape)
            byContainer.withLock { $0[container] = built }
        }
        return (before, child)
    }

    /// The samples kept for `container`, if any.
    func samples(of container: Int) -> [UInt32]? { byContainer.withLock { $0[container] } }

    /// Every `every`-th child of `container`, from its first.
    static func sample(_ container: Int, isObject: Bool, end: Int, _ tape: TapeReader, every: Int = stride) -> [UInt32] {
        var samples: [UInt32] = []
        var child = tape.firstChild(container), k = 0
        while child < end {
            if k % every == 0 { samples.append(UInt32(child)) }
            child = tape.nextIndex(isObject ? child + 1 : child)
            k += 1
        }
        return samples
    }

    /// The samples of a tape in which entries `index..<oldNext` (a subtree, or a run of
    /// children) were replaced by `countDelta` more: a container among them is gone, and so are
    /// the samples of children among them (any children in order do as samples); indexes after
    /// them move by `countDelta`.
    func spliced(at index: Int, oldNext: Int, countDelta: Int) -> ChildSamples {
        let moved = byContainer.withLock { all in
            var moved: [Int: [UInt32]] = [:]
            for (container, samples) in all where !(index <= container && container < oldNext) {
                let shift = { (i: Int) in i >= oldNext ? i + countDelta : i }
                moved[shift(container)] = samples.filter { !(index..<oldNext).contains(Int($0)) }.map { UInt32(shift(Int($0))) }
            }
            return moved
        }
        let increasing = increasingKeys.withLock { all in
            Set(all.filter { !(index <= $0 && $0 < oldNext) }.map { $0 >= oldNext ? $0 + countDelta : $0 })
        }
        return ChildSamples(moved, increasingKeys: increasing)
    }
}
