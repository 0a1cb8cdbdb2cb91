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
// different pages have the same fingerprint with a chance of about 2⁻¹²⁸, whatever the file
// holds, since no writer knows the secret. (A cryptographic digest would say the same with
// proof, but none reads 143 MB in a few milliseconds: SHA-256 takes 80 ms here.) A page whose
// fingerprint differs is different for sure, and its bytes are compared with the old ones to
// find where.
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

    /// The fingerprint of the `count` bytes at `bytes` (a page, or the last part of one).
    package static func of(_ bytes: UnsafeRawPointer, count: Int) -> XXH128_hash_t {
        secret.withUnsafeBytes { cxxhash_128_with_secret(bytes, count, $0.baseAddress, $0.count) }
    }

    /// Whether two fingerprints are the same.
    package static func same(_ a: XXH128_hash_t, _ b: XXH128_hash_t) -> Bool { a.low64 == b.low64 && a.high64 == b.high64 }

    /// Drawn once for the process: 192 random bytes (XXH3's own secret is as long).
    private static let secret: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<192).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()
}
