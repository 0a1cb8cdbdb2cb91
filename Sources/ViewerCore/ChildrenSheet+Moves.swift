// Rows that leave the rows loaded because their sort value moved them further down the order:
// shown as moves (`moved to row 212`), and the selected one followed.
import JSONTree
import LiveQuery
import SyncedArray

/// A row that left the rows loaded for a place past them.
struct MovedOut {
    /// Its index among the rows before the update (query order).
    let index: Int
    let key: String
    /// Its place among every child the query selects (0: the first in the query's order).
    let place: Int
    /// `moved to row 212`, the row as the table numbers it.
    let words: String
}

extension ChildrenSheet {
    /// The most rows that left in one update whose new place is looked up (each costs a pass
    /// over the children); a bulk change past this is not itemised.
    static let movedOutLookups = 3

    /// Of the rows an update of a paged array removed (`left`: their old indexes), those whose
    /// child is still selected by the query: they moved past the rows loaded rather than went.
    func rowsMovedOut(_ left: [(index: Int, row: SyncedRow)]) -> [MovedOut] {
        guard query.isPaged, !left.isEmpty, left.count <= Self.movedOutLookups, let window = array?.window,
            let revision = store.currentRevision, window.document === revision.document
        else { return [] }
        return left.compactMap { index, row in
            guard let place = window.selectedIndex(ofKey: row.key) else { return nil }
            let total = selectedChildCount ?? currentChildCount ?? window.selectedCount()
            let shownRow = query.displayReversed ? total - place : place + 1
            return MovedOut(index: index, key: row.key, place: place, words: "moved to row \(shownRow)")
        }
    }

    /// After the update: the message line says where the rows went; when the selected row is
    /// one of them, the pages up to it are loaded and it stays selected (`pendingSelection`).
    func followRowsMovedOut(_ moved: [MovedOut], selected: String?) {
        guard let array else { return }
        var followed = false
        for move in moved where move.key == selected {
            let total = selectedChildCount ?? currentChildCount ?? array.window?.selectedCount() ?? move.place + 1
            guard let pages = query.showRows(query.fromEnd ? total - move.place : move.place + 1) else { continue }
            pendingSelection = move.key
            followed = true
            ownUpdateRequested(array) { array.showPages(pages) }
        }
        let text = moved.map { "\(location.child($0.key)) \($0.words)" }.joined(separator: "; ")
        message = Message(text: text + (followed ? " (the rows up to it are loaded; it stays selected)" : ", past the rows loaded"),
                          isError: false)
    }
}
