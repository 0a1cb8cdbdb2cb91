// A fingerprint of each page of a large file's revision, so that the next revision's pages are
// compared with it by reading the new bytes only.
//
// A followed file's edit changes a few pages, yet which ones is known only by reading them
// all: compared byte for byte with the last revision, that reads the file twice (the new
// bytes and the old), and on this machine the comparison is bound by memory at 10 ms for
// 143 MB, the most of an edit's time. Compared by fingerprint, it reads the new bytes once
// (docs/engine/page-fingerprints.md).
//
// A fingerprint is XXH3's 128 bits keyed with a secret drawn at random for each process: two
// different pages share one by accident with a chance of about 2⁻¹²⁸. xxHash makes no
// cryptographic claim, but no way is known to make two pages collide without the secret, which
// no writer of the file sees. A cryptographic digest reads 143 MB in 80 ms here (SHA-256), ten
// times an edit's budget. A page whose fingerprint differs is different for sure, and its bytes
// are compared with the old ones to find where.
#if canImport(Glibc)
import Glibc
#endif
import CXXHash
import Synchronization

/// The fingerprints of a revision's pages (`PageFingerprints.of`), one per page of its bytes.
/// Each part of a read sets its own pages' (at most one thread a page), before any other
/// thread sees them; then they are only read.
package final class PageFingerprints: @unchecked Sendable {
    // @unchecked: each page's slot is written by one thread, before the revision is shared.
    private let values: UnsafeMutablePointer<XXH128_hash_t>
    /// Pages: the last one may be partial.
    package let count: Int
    /// False once a page was read in pieces (its fingerprint unknown): then none is used.
    package let complete = Atomic<Bool>(true)

    /// Room for the fingerprints of `bytes` bytes' pages, all unset.
    package init(bytes: Int) {
        count = Posix.wholePages(bytes) / Posix.pageSize
        values = .allocate(capacity: max(1, count))
    }

    deinit { values.deallocate() }

    package subscript(page: Int) -> XXH128_hash_t {
        get { values[page] }
        set { values[page] = newValue }
    }

    /// The fingerprints themselves, for a loop over many pages that holds this object alive.
    package var slots: UnsafeMutablePointer<XXH128_hash_t> { values }

    /// Whether `count` bytes at `offset` are a page of their own: a whole page, or the last
    /// page's bytes. Only those have a fingerprint.
    package func isWhole(pageAt offset: Int, count: Int) -> Bool {
        offset % Posix.pageSize == 0 && (count == Posix.pageSize || offset / Posix.pageSize == self.count - 1)
    }

    /// Sets the fingerprints of the pages of `bytes`, the revision's bytes from `offset` on
    /// (a page boundary); one left in pieces marks the fingerprints incomplete.
    package func set(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard let base = bytes.baseAddress else { return }
        let fingerprinter = Fingerprinter()
        var at = 0
        while at < bytes.count {
            let count = min(bytes.count - at, Posix.pageSize - (offset + at) % Posix.pageSize)
            if isWhole(pageAt: offset + at, count: count) {
                values[(offset + at) / Posix.pageSize] = fingerprinter.of(base + at, count: count)
            } else {
                complete.store(false, ordering: .relaxed)
            }
            at += count
        }
    }

    /// The fingerprint of the `count` bytes at `bytes` (a page, or the last part of one).
    package static func of(_ bytes: UnsafeRawPointer, count: Int) -> XXH128_hash_t {
        Fingerprinter().of(bytes, count: count)
    }

    /// `PageFingerprints.of` with the secret looked up once, for a loop over many pages: the
    /// static's lazy initialisation is a call at each use.
    package struct Fingerprinter {
        private let secret = PageFingerprints.secret

        package init() {}

        @inline(__always)
        package func of(_ bytes: UnsafeRawPointer, count: Int) -> XXH128_hash_t {
            cxxhash_128_with_secret(bytes, count, secret.baseAddress, secret.count)
        }
    }

    /// Whether two fingerprints are the same.
    package static func same(_ a: XXH128_hash_t, _ b: XXH128_hash_t) -> Bool { a.low64 == b.low64 && a.high64 == b.high64 }

    /// Drawn once for the process: 192 random bytes (XXH3's own secret is as long). Never
    /// written after, nor freed. (Raw memory, not an array: no reference counted per page.)
    nonisolated(unsafe) private static let secret: UnsafeRawBufferPointer = {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 192, alignment: 64)
        var generator = SystemRandomNumberGenerator()
        // Eight bytes a draw: each draw is a system call.
        for k in stride(from: 0, to: bytes.count, by: 8) { bytes.storeBytes(of: generator.next(), toByteOffset: k, as: UInt64.self) }
        // The library picks its vector code at its first call: made here, once, not by two
        // threads of a read at once.
        _ = cxxhash_128_with_secret(bytes.baseAddress, bytes.count, bytes.baseAddress, bytes.count)
        return UnsafeRawBufferPointer(bytes)
    }()
}
