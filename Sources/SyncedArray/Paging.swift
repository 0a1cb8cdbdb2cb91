// How a synced array pages through a query: a page size and the end it grows from.

/// Paging of a `SyncedArray`: the array shows `pageSize × pages` rows from one end of the
/// query's range, and `loadMore()` adds a page.
///
/// The array observes one child more than it shows (`limitToFirst(shown + 1)` or
/// `limitToLast(shown + 1)`), which tells it whether more exist; memory and work per revision
/// stay bounded by the rows shown, whatever the number of children. A paged array replaces the
/// query's own limit.
public struct Paging: Sendable, Equatable, CustomStringConvertible {
    /// The end of the query's range the rows are taken from.
    public enum Edge: Sendable, Equatable {
        /// The first rows (`limitToFirst`); more rows appear after them.
        case start
        /// The last rows (`limitToLast`), still in ascending order; more rows appear before them.
        case end
    }

    /// Rows per page; at least 1.
    public let pageSize: Int
    public let edge: Edge

    /// - Parameter pageSize: rows per page; values below 1 count as 1.
    public init(pageSize: Int, from edge: Edge = .start) {
        self.pageSize = max(1, pageSize)
        self.edge = edge
    }

    /// The same page size from the other end (a table's "reverse").
    public var reversed: Paging { Paging(pageSize: pageSize, from: edge == .start ? .end : .start) }

    public var description: String { "pages of \(pageSize) from the \(edge == .start ? "start" : "end")" }

    /// The rows shown for `pages` pages, capped so the observed limit cannot overflow.
    func rowCount(pages: Int) -> Int {
        let (n, overflow) = pageSize.multipliedReportingOverflow(by: max(1, pages))
        return overflow ? Paging.maximumRows : min(n, Paging.maximumRows)
    }

    static let maximumRows = 1 << 30
}
