// Replacing the query while syncing, and paging: each change reported as one batch.
import LiveQuery

extension SyncedArray {
    /// Replaces the query (sort by another child, reverse, change a bound), keeping the paging
    /// and the pages shown. While syncing, the rows held are matched by key with the new query's
    /// rows and the difference is reported as one batch — rows move to their new places, the
    /// fewest moves possible — as soon as the store has a revision (at once, usually).
    public func replaceQuery(_ query: Query) {
        replace(query, paging: paging, pages: pages)
    }

    /// Replaces the query and the paging (one page shown); see `replaceQuery(_:)`.
    public func replaceQuery(_ query: Query, paging: Paging?) {
        replace(query, paging: paging, pages: 1)
    }

    /// Shows one more page (a paged array with more rows); the new rows arrive as one batch —
    /// after the rows shown when paging from the start, before them when from the end.
    /// - Returns: whether a page was asked for (false without paging, when no more exist, or
    ///   while the rows last asked for are still being evaluated: see `isAwaitingRows`).
    @discardableResult
    public func loadMore() -> Bool {
        guard paging != nil, hasMore, !isAwaitingRows else { return false }
        replace(query, paging: paging, pages: pages + 1)
        return true
    }

    /// Shows the first `pages` pages (a paged array): to reach a row further down, or back up.
    /// The change arrives as one batch, like a page more.
    public func showPages(_ pages: Int) {
        guard paging != nil, pages != self.pages else { return }
        replace(query, paging: paging, pages: Swift.max(1, pages))
    }

    private func replace(_ query: Query, paging: Paging?, pages: Int) {
        if isUpdating {
            return deferredWhileUpdating.append { [weak self] in self?.replace(query, paging: paging, pages: pages) }
        }
        let samePage = self.paging == paging && query.withoutLimit == self.query.withoutLimit
            && (paging != nil || query == self.query)
        self.query = query
        self.paging = paging
        self.pages = pages
        guard observation != nil else { return }
        if !samePage { cacheNeedsWrite = cache != nil }
        whileUpdating {
            unobserve()
            observe()
        }
    }
}
