// One complete, valid state of the watched file.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// What `stat` says about a file: enough to tell one saved state from the next.
///
/// Two reads with equal identities most likely saw the same bytes; the store still compares bytes,
/// since timestamps can be coarse.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Last modification, nanoseconds since 1970.
    public var modified: Int64
    /// Last status change, nanoseconds since 1970 (changes on rename, chmod and every write).
    public var changed: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    package init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }

    public var description: String { "inode \(inode), \(size) bytes, modified \(modified) ns" }
}

/// A complete, valid state of the file, as one immutable value.
///
/// Revisions are numbered 1, 2, 3, … in the order the store saw them. A revision is
/// never a mix of two writes, and never invalid JSON: such reads are reported as a
/// `StoreProblem` and the previous revision stays current.
public struct Revision: Sendable {
    /// 1 for the first state read, then one more for each new state.
    public let number: Int
    /// The parsed file; its `bytes` are exactly the bytes read.
    public let document: JSONDocument
    /// The file's `stat` when it was read.
    public let identity: FileIdentity
    /// When the store made it current: `CLOCK_MONOTONIC` nanoseconds (see `monotonicNanoseconds()`).
    public let publishedAt: UInt64
    /// When the state was made, seconds since 1970: a command run's start, a journal's recorded
    /// time; else when the store made it current. Rates divide by the differences of these.
    public let time: Double
    /// Who wrote it, where the source says (a journal's record); nil for the store's own readers to judge.
    public let writer: String?

    public init(number: Int, document: JSONDocument, identity: FileIdentity, publishedAt: UInt64,
                time: Double? = nil, writer: String? = nil) {
        self.number = number
        self.document = document
        self.identity = identity
        self.publishedAt = publishedAt
        self.time = time ?? wallClockSeconds()
        self.writer = writer
    }

    /// The file's top-level value.
    public var root: JSONNode { document.root }
}

/// `CLOCK_MONOTONIC` in nanoseconds.
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// `CLOCK_REALTIME` as seconds since 1970, to the nanosecond.
public func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
