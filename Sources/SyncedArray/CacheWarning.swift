// Why the first-page cache was not used or not written (the array goes on without it).

/// A problem with the first-page cache, reported through `SyncedArray.onCacheWarning`; the
/// array ignores the cache file and shows the store's rows when they arrive.
public enum CacheWarning: Error, Sendable, Equatable, CustomStringConvertible {
    /// No folder for caches: neither `XDG_CACHE_HOME` (absolute) nor `HOME` is set.
    case unavailable(String)
    /// No cache file for this file and query yet (the first run).
    case missing(path: String)
    /// The cache file is for another state of the file (it changed since), another file or
    /// query (a hash collision), or another version of SyncTable.
    case stale(path: String, reason: String)
    /// The cache file is not a valid cache (truncated, edited, not JSON).
    case corrupt(path: String, reason: String)
    /// The cache file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The cache file could not be written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unavailable(let why): "first-page cache unavailable: \(why)"
        case .missing(let path): "no first-page cache yet (\(path))"
        case .stale(let path, let why): "first-page cache ignored, stale: \(why) (\(path))"
        case .corrupt(let path, let why): "first-page cache ignored, corrupt: \(why) (\(path))"
        case .unreadable(let path, let why): "first-page cache ignored, unreadable: \(why) (\(path))"
        case .unwritable(let path, let why): "first-page cache not written: \(why) (\(path))"
        }
    }
}
