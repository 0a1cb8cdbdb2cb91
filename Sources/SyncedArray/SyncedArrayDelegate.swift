// The two ways a list view hears about a synced array's changes.
import LiveQuery

/// Told about each change as a sequence of single-row operations, like FirebaseUI's
/// `FUIArrayDelegate`: each index is relative to the array after the previous call, and the
/// array already holds that state when the call is made (`array[index]` is the row).
///
/// One update (a revision, a query replacement, the cache being replaced) is wrapped in
/// `willUpdate` / `didUpdate`. Inside, calls come in this order: removes (descending index),
/// moves (`from` is the row's index before the move, `to` its index after it, with the row
/// taken out first), adds (ascending index), then changes (at final indexes). Moves are the
/// fewest possible, the same as the batch's.
public protocol SyncedArrayEventDelegate: AnyObject {
    func syncedArrayWillUpdate(_ array: SyncedArray)
    func syncedArray(_ array: SyncedArray, didAdd row: SyncedRow, at index: Int)
    func syncedArray(_ array: SyncedArray, didChange row: SyncedRow, at index: Int)
    func syncedArray(_ array: SyncedArray, didRemove row: SyncedRow, at index: Int)
    func syncedArray(_ array: SyncedArray, didMove row: SyncedRow, from: Int, to: Int)
    func syncedArrayDidUpdate(_ array: SyncedArray)
}

extension SyncedArrayEventDelegate {
    public func syncedArrayWillUpdate(_ array: SyncedArray) {}
    public func syncedArrayDidUpdate(_ array: SyncedArray) {}
}

/// Told about each change as one `BatchDiff`, the way a table view performs a batch update:
/// deletes and move sources are old indexes, inserts and move destinations new ones. When it is
/// called the array already holds the new rows.
public protocol SyncedArrayBatchDelegate: AnyObject {
    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff)
}
