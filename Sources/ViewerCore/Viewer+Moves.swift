// Rows that leave the rows loaded because their sort value moved them further down the order:
// said as moves (`moved to row 212`), and the selected one followed.
import JSONTree
import LiveQuery
import SyncedArray

extension Viewer {
    /// The most rows that left in one update whose new place is looked up (each costs a pass
    /// over the children); a bulk change past this is not itemised.
    static let movedOutLookups = 3

    /// After an update of a paged array: rows that left (`left`, the batch's deletes) while their
    /// child is still in the query's range moved past the rows loaded. The message line says
    /// where they went; when the selected row is one of them, enough pages are loaded to show
    /// it, and it stays selected (`pendingSelection`).
    func followRowsMovedOut(_ left: [SyncedRow], selected: String?) {
        guard query.isPaged, left.count <= Self.movedOutLookups, let array, let window = array.window,
            let revision = store.currentRevision, window.document === revision.document
        else { return }
        var moves: [String] = []
        for row in left {
            // Still a child, and still selected by the query: it moved rather than went.
            guard let place = window.selectedIndex(ofKey: row.key) else { continue }
            let total = selectedChildCount ?? currentChildCount ?? window.selectedCount()
            let fromEnd = query.fromEnd
            let shownRow = query.displayReversed ? total - place : place + 1
            moves.append("\(location.child(row.key)) moved to row \(shownRow)")
            guard row.key == selected else { continue }
            let needed = fromEnd ? total - place : place + 1
            guard let pages = query.showRows(needed) else { continue }
            pendingSelection = row.key
            ownUpdateRequested(array) { array.showPages(pages) }
        }
        guard !moves.isEmpty else { return }
        let followed = selected.map { key in moves.contains { $0.hasPrefix("\(location.child(key)) ") } } ?? false
        message = Message(text: moves.joined(separator: "; ") + (followed ? " (the rows up to it are loaded; it stays selected)" : ", past the rows loaded"),
                          isError: false)
    }
}
