// Following a log: with the end of the order at the bottom (JSON Lines, standard input), the
// table follows new rows like `tail -f` while the newest row is selected.
import StoreInterface
import TableUI

extension ChildrenSheet {
    /// Whether new rows move the selection to the newest: the table shows a tail and the
    /// newest row (the last) is selected, or nothing is yet. Moving away pauses following;
    /// `G`/`End` (the last row) resumes it. No state of its own: it is where the selection is.
    var isFollowing: Bool {
        guard query.tail else { return false }
        guard let selection = table.state.selection else { return true }
        return selection >= rows.numberOfRows - 1
    }

    /// Whether `selection` is within a screenful of the older end of the rows, where the next
    /// page is loaded: the bottom, or the top of a tail (whose pages grow upwards).
    func nearOlderEnd(_ selection: Int) -> Bool {
        let screenful = max(1, table.bodyHeight)
        return query.tail ? selection < screenful : selection >= rows.numberOfRows - screenful
    }

    /// Whether the log started over (cut short, replaced, deleted) since the rows last shown.
    /// Read from the store's status now, which counts the restart before it publishes the new
    /// file's rows (the status observer may hear of it later).
    func logStartedOver() -> Bool {
        let restarts = store.status.lines?.restarts ?? 0
        defer { shownRestarts = restarts }
        return restarts != shownRestarts
    }

    /// The status bar's badges for a log: following or paused, invalid lines, restarts, the
    /// input's end.
    var streamBadges: [String] {
        var badges: [String] = []
        if query.tail {
            if isFollowing {
                badges.append(" FOLLOWING ")
            } else if let (key, _) = selectedChild {
                badges.append(" paused at row \(key) (G follows) ")
            }
        }
        guard let lines = storeStatus.lines else { return badges }
        // (While only the newest lines are in, the row count says the lines are being counted.)
        if lines.olderRequested { badges.append(" READING OLDER LINES ") }
        if lines.invalidRecords > 0 {
            badges.append(" \(lines.invalidRecords) INVALID \(lines.invalidRecords == 1 ? "LINE" : "LINES") ")
        }
        if let restart = lines.lastRestart {
            let what: String
            switch restart {
            case .truncated: what = "the file was cut short"
            case .replaced: what = "a new file took its place"
            case .deleted: what = "the file was deleted"
            }
            let times = lines.restarts > 1 ? " \(lines.restarts) TIMES, LAST" : ""
            badges.append(" STARTED OVER\(times): \(what) ")
        }
        if lines.inputEnded { badges.append(" INPUT ENDED ") }
        return badges
    }
}
