// The one start and stop of the derived sheets: what they follow, and how they stop.
import StoreInterface
import LiveQuery
import SyncedArray

/// What a derived sheet follows — a selection's window changes, or the time machine's
/// history — started when the sheet is pushed and stopped when it is closed.
final class SheetFeed {
    private let follow: () -> () -> Void
    private var unfollow: (() -> Void)?

    /// `follow` starts following and returns how to stop.
    init(_ follow: @escaping () -> () -> Void) { self.follow = follow }

    /// Each change of the children `reference` selects, to `handle`; `known` is the window the
    /// sheet has just read, which the store starts from.
    static func changes(of reference: @escaping () -> StoreReference, startingFrom known: Window? = nil,
                        _ handle: @escaping (WindowChange) -> Void) -> SheetFeed {
        var known = known
        return SheetFeed {
            let reference = reference()
            // Once: a window kept here would keep its revision's document alive.
            defer { known = nil }
            let token = reference.observeChanges(startingFrom: known, handle)
            return { reference.removeObserver(token) }
        }
    }

    /// Each new revision `history` keeps, to `handle`.
    static func revisions(of history: RevisionHistory, _ handle: @escaping () -> Void) -> SheetFeed {
        SheetFeed {
            let token = history.addObserver(handle)
            return { history.removeObserver(token) }
        }
    }

    func start() { unfollow = follow() }

    func stop() {
        unfollow?()
        unfollow = nil
    }
}

/// A sheet that follows one feed: its start and stop are the feed's.
protocol FeedSheet: Sheet {
    var feed: SheetFeed { get }
    /// Called before the feed starts (the history sheets read their first rows).
    func willStart()
}

extension FeedSheet {
    func willStart() {}
    func start() {
        willStart()
        feed.start()
    }
    func stop() { feed.stop() }
}
