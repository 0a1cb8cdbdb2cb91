// A delegate that rebuilds the array twice — from the events alone and from the batches alone —
// and checks at each event that the array holds the state the event describes.
import JSONTree
import LiveQuery
@testable import SyncedArray

/// A row as a test compares it: the key's code units and the value.
struct PlainRow: CustomStringConvertible {
    var key: String
    var value: JSONNode

    init(_ row: SyncedRow) {
        key = row.key
        value = row.value
    }

    init(key: String, value: JSONNode) {
        self.key = key
        self.value = value
    }

    func same(as other: PlainRow) -> Bool { codeUnitsEqual(key, other.key) && value.valueEquals(other.value) }
    var description: String { key + "=" + String(decoding: value.rawBytes, as: UTF8.self) }
}

func same(_ a: [PlainRow], _ b: [PlainRow]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.same(as: $1) }
}

/// The rows of `window` in `range`.
func plainRows(_ window: Window, _ range: Range<Int>? = nil) -> [PlainRow] {
    (range ?? 0..<window.count).map { PlainRow(key: window.key(at: $0), value: window.value(at: $0)) }
}

final class Recorder: SyncedArrayEventDelegate, SyncedArrayBatchDelegate {
    /// Rebuilt from the per-event calls only.
    var replayed: [PlainRow] = []
    /// Rebuilt from the batches only.
    var batched: [PlainRow] = []
    var batches: [BatchDiff] = []
    /// Completed will/did update pairs.
    var updates = 0
    var events: [String] = []
    /// What went wrong during the calls (empty when all was consistent).
    var problems: [String] = []
    private var inUpdate = false
    private let listensToEvents: Bool

    /// Binds itself to `array`: as event and batch delegate, or as batch delegate only.
    init(_ array: SyncedArray, events: Bool = true) {
        listensToEvents = events
        replayed = array.rows.map(PlainRow.init)
        batched = replayed
        if events { array.eventDelegate = self }
        array.batchDelegate = self
    }

    private func check(_ array: SyncedArray, _ what: String) {
        if !inUpdate { problems.append("\(what) outside will/did update") }
        if array.count != replayed.count { problems.append("\(what): array has \(array.count) rows, events say \(replayed.count)") }
        else if !zip(array.rows, replayed).allSatisfy({ codeUnitsEqual($0.key, $1.key) }) {
            problems.append("\(what): array \(array.keys) but events say \(replayed.map(\.key))")
        }
    }

    func syncedArrayWillUpdate(_ array: SyncedArray) {
        if inUpdate { problems.append("nested willUpdate") }
        inUpdate = true
    }

    func syncedArray(_ array: SyncedArray, didAdd row: SyncedRow, at index: Int) {
        events.append("add \(row.key) @\(index)")
        guard index >= 0 && index <= replayed.count else { return problems.append("add at \(index) of \(replayed.count)") }
        replayed.insert(PlainRow(row), at: index)
        check(array, "add \(row.key) @\(index)")
    }

    func syncedArray(_ array: SyncedArray, didChange row: SyncedRow, at index: Int) {
        events.append("change \(row.key) @\(index)")
        guard replayed.indices.contains(index), codeUnitsEqual(replayed[index].key, row.key) else {
            return problems.append("change \(row.key) at \(index), which holds \(replayed.indices.contains(index) ? replayed[index].key : "nothing")")
        }
        replayed[index] = PlainRow(row)
        check(array, "change \(row.key) @\(index)")
    }

    func syncedArray(_ array: SyncedArray, didRemove row: SyncedRow, at index: Int) {
        events.append("remove \(row.key) @\(index)")
        guard replayed.indices.contains(index), codeUnitsEqual(replayed[index].key, row.key) else {
            return problems.append("remove \(row.key) at \(index), which holds \(replayed.indices.contains(index) ? replayed[index].key : "nothing")")
        }
        replayed.remove(at: index)
        check(array, "remove \(row.key) @\(index)")
    }

    func syncedArray(_ array: SyncedArray, didMove row: SyncedRow, from: Int, to: Int) {
        events.append("move \(row.key) \(from)→\(to)")
        guard replayed.indices.contains(from), codeUnitsEqual(replayed[from].key, row.key) else {
            return problems.append("move \(row.key) from \(from), which holds \(replayed.indices.contains(from) ? replayed[from].key : "nothing")")
        }
        let moved = replayed.remove(at: from)
        guard to >= 0 && to <= replayed.count else { return problems.append("move to \(to) of \(replayed.count)") }
        replayed.insert(PlainRow(key: moved.key, value: row.value), at: to)
        check(array, "move \(row.key) \(from)→\(to)")
    }

    func syncedArrayDidUpdate(_ array: SyncedArray) {
        if !inUpdate { problems.append("didUpdate without willUpdate") }
        inUpdate = false
        updates += 1
    }

    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
        if inUpdate { problems.append("batch inside will/did update") }
        batches.append(batch)
        if !listensToEvents { updates += 1 }
        guard batch.isConsistent, batch.oldCount == batched.count, batch.newCount == array.count else {
            return problems.append("inconsistent batch \(batch) for \(batched.count) → \(array.count) rows")
        }
        let fewest = fewestMoves(old: batched.map(\.key), new: array.keys)
        if batch.moves.count != fewest { problems.append("batch \(batch) has \(batch.moves.count) moves, \(fewest) suffice") }
        batched = batch.apply(to: batched) { PlainRow(array[$0]) }
        if !same(batched, array.rows.map(PlainRow.init)) {
            problems.append("batch \(batch) rebuilt \(batched.map(\.key)), array holds \(array.keys)")
        }
    }

    /// Takes the problems and counts gathered so far.
    func take() -> (problems: [String], updates: Int, batches: [BatchDiff]) {
        defer {
            problems = []
            updates = 0
            batches = []
            events = []
        }
        return (problems, updates, batches)
    }
}

/// The fewest moves a batch between these windows can have: kept rows outside a longest
/// increasing subsequence of their old indexes (in new order).
func fewestMoves(old: [String], new: [String]) -> Int {
    var oldIndex = [JSONKey: Int]()
    for (i, k) in old.enumerated() { oldIndex[JSONKey(k)] = i }
    let kept = new.compactMap { oldIndex[JSONKey($0)] }
    var tails = [Int]()
    for v in kept {
        var lo = 0, hi = tails.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tails[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo == tails.count { tails.append(v) } else { tails[lo] = v }
    }
    return kept.count - tails.count
}
