// The synced array's use of the first-page cache: shown at start, written once real rows arrive.
import StoreInterface
import JSONTree

extension SyncedArray {
    /// What this array's cache file is for; the query without its limit when paged (the
    /// paging replaces it).
    public var cacheKey: CacheKey {
        CacheKey(
            file: resolvedPath(store.name), location: location,
            query: paging == nil ? query.description : query.withoutLimit.description, paging: paging)
    }

    /// The rows of the first page: one page (paged), else up to the cache's row limit, from the
    /// end the rows are taken from.
    func firstPage(rowLimit: Int) -> ArraySlice<SyncedRow> {
        let n = Swift.min(paging?.pageSize ?? rowLimit, rows.count)
        let fromEnd: Bool
        if let paging {
            fromEnd = paging.edge == .end
        } else if case .last = query.limit {
            fromEnd = true
        } else {
            fromEnd = false
        }
        return fromEnd ? rows.suffix(n) : rows.prefix(n)
    }

    /// Shows the cached first page, if there is a usable one, as one update (all inserts).
    func showCachedPage() {
        guard let cache else { return }
        let key = cacheKey
        switch cache.load(key, identity: currentIdentity(resolvedPath(store.name))) {
        case .success(let page):
            whileUpdating {
                let batch = keyedBatch(to: page.rows)
                isShowingCache = true
                hasMore = page.hasMore
                window = nil
                commit(page.rows, batch)
            }
        case .failure(let warning):
            warn(warning)
        }
    }

    /// Writes the first page of the real rows to the cache (not while showing the cache, and
    /// not again for the revision and query last written).
    func writeCache() {
        guard let cache, !isShowingCache, window != nil, let revision = store.currentRevision else { return }
        let key = cacheKey
        let page = firstPage(rowLimit: cache.rowLimit)
        let more = paging != nil && (hasMore || rows.count > page.count)
        let written = CacheWrite(key: key, revision: revision.number, rows: page.count, hasMore: more)
        guard written != lastCacheWrite else { return }
        lastCacheWrite = written
        if let warning = cache.save(key, identity: revision.identity, rows: page, hasMore: more) { warn(warning) }
    }

    func warn(_ warning: CacheWarning) {
        lastCacheWarning = warning
        onCacheWarning?(warning)
    }
}

/// A cache write: which page of which revision.
struct CacheWrite: Equatable {
    let key: CacheKey
    let revision: Int
    let rows: Int
    let hasMore: Bool
}
