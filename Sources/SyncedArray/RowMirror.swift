// What a view kept in step with a synced array's rows (a typed view) is told.
import LiveQuery

/// Storage parallel to a `SyncedArray`'s rows, updated before the delegates are called, so that
/// a delegate reading it sees the same state as the array: step by step when the array has an
/// event delegate, else one batch per update.
protocol RowMirror: AnyObject {
    var count: Int { get }
    func remove(at index: Int)
    func move(from: Int, to: Int)
    func insert(_ row: SyncedRow, at index: Int)
    func change(_ row: SyncedRow, at index: Int)
    /// The whole update at once: `batch` turns the old rows into `newRows`.
    func apply(_ batch: BatchDiff, _ newRows: [SyncedRow])
    /// The update is complete.
    func finishUpdate()
}

struct WeakMirror {
    weak var mirror: (any RowMirror)?
}

extension SyncedArray {
    /// Keeps `mirror` in step with the rows from now on (it starts from the current rows).
    func addMirror(_ mirror: any RowMirror) {
        mirrorReferences.removeAll { $0.mirror == nil }
        mirrorReferences.append(WeakMirror(mirror: mirror))
    }
}
