// The newest records of a large JSON Lines file, without reading or parsing the rest as records.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import StoreInterface

/// The last records of a JSON Lines file: its end read until it holds them, the lines before
/// counted a megabyte at a time (at memory speed), and only those records parsed
/// (`JSONLinesBuilder.records(_:afterLines:)`): an array document with a full read's keys, every
/// earlier line `null`.
public struct LinesTail: Sendable {
    /// The records: the last `children` children are exactly a full read's.
    public let document: JSONDocument
    /// The file's size when read (the tail ends there).
    public let size: Int
    /// Whether the file may hold a `.priority` member (the word, or an ASCII letter escaped as
    /// `\u00..` that could spell it): then priority order is not line order.
    public let mayHavePriorities: Bool
    /// Where the newest records start in the file, and how many lines come before.
    public let start: Int
    public let linesBefore: Int

    /// Reads the last `children` children of the JSON Lines file at `path`; nil when it cannot
    /// be read (missing, not a regular file, changed while read: the caller reads it whole).
    /// - Complexity: O(file size) byte counting, O(size of the last records) parsing.
    public init?(path: String, children n: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.init(fd: fd, size: Int(st.st_size), children: n)
    }

    init?(fd: Int32, size: Int, children n: Int) {
        self.size = size
        // The end of the file, doubled until it holds n whole records (or is the whole file).
        var length = min(size, 1 << 20)
        var region: [UInt8]
        var start: Int
        while true {
            guard let bytes = readExactly(fd, at: size - length, count: length) else { return nil }
            region = bytes
            if let found = region.withUnsafeBufferPointer({ JSONLinesBuilder.tailStart(in: $0, children: n) }) {
                start = found
                break
            }
            if length == size {
                start = 0
                break
            }
            length = min(size, length * 2)
        }
        var lines = 0, mentioned = false, seam: [UInt8] = []
        func look(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard !mentioned else { return }
            // Across chunk seams too.
            let joined = seam + Array(bytes.prefix(8))
            mentioned = joined.withUnsafeBufferPointer(mentionsPriority) || mentionsPriority(bytes)
            seam = Array(bytes.suffix(8))
        }
        let tailOffset = size - length + start
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while offset < tailOffset {
            let count = min(buffer.count, tailOffset - offset)
            guard buffer.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, count, off_t(offset)) }) == count else { return nil }
            buffer.withUnsafeBufferPointer { p in
                let chunk = UnsafeBufferPointer(rebasing: p[0..<count])
                lines += JSONLinesBuilder.countNewlines(chunk)
                look(chunk)
            }
            offset += count
        }
        document = region.withUnsafeBufferPointer { p in
            let tail = UnsafeBufferPointer(rebasing: p[start...])
            look(tail)
            return JSONLinesBuilder.records(tail, afterLines: lines)
        }
        mayHavePriorities = mentioned
        self.start = tailOffset
        linesBefore = lines
    }
}

/// Whether `bytes` holds `priority` or `\u00`.
private func mentionsPriority(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    contains(bytes, Array("priority".utf8)) || contains(bytes, Array(#"\u00"#.utf8))
}

/// `count` bytes of `fd` at `offset`, or nil when they cannot all be read.
private func readExactly(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return nil }
        done += n
    }
    return bytes
}

/// Whether `needle` occurs in `haystack` (memchr for its first byte, then a comparison).
private func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
    guard let base = haystack.baseAddress else { return false }
    var at = 0
    while at + needle.count <= haystack.count {
        guard let hit = memchr(base + at, Int32(needle[0]), haystack.count - at - needle.count + 1) else { return false }
        let i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        if memcmp(base + i, needle, needle.count) == 0 { return true }
        at = i + 1
    }
    return false
}
