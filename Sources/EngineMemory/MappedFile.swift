// A file's pages mapped for reading (tuned: `mappedReads`), guarded against the file shrinking
// meanwhile: a page another process's truncation took reads as zeroes instead of ending the
// process with SIGBUS. The guard is a process-wide SIGBUS handler, which only the program's
// edge installs (`EngineTuning.guardMappedReads()`): until then nothing is mapped, and plain
// reads never map.
import CEngineMemory

/// The first `count` bytes of an open file, mapped read-only and guarded, until `unmap`.
package struct MappedFile: @unchecked Sendable {
    package let base: UnsafeRawPointer
    package let count: Int
    private let slot: Int32

    /// Maps `count` bytes of `fd` (at least one); with `populate`, every page at once (else
    /// each as it is first read). Nil where `tuning` has no mapped reads, the program installed
    /// no guard, the file cannot be mapped, or 64 mappings are guarded already.
    package init?(_ fd: Int32, count: Int, populate: Bool, tuning: EngineTuning) {
        guard tuning.mappedReads, count > 0 else { return nil }
        var slot: Int32 = 0
        guard let base = mapped_file_map(fd, count, populate ? 1 : 0, &slot) else { return nil }
        (self.base, self.count, self.slot) = (base, count, slot)
    }

    /// Whether a page was found gone since the file was mapped (read as zeroes).
    package var lostPages: Bool { mapped_file_lost_pages(slot) != 0 }

    /// Installs the guard (process-wide, once): see `EngineTuning.guardMappedReads()`.
    package static func installGuard() { mapped_file_install_guard() }

    /// Unmaps the file; its bytes are not read after.
    package func unmap() { mapped_file_unmap(slot) }

    /// Maps the pages of bytes `range` now, in one call. A page the file no longer has is left
    /// to the guard, when it is read.
    package func populate(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let start = UnsafeMutableRawPointer(mutating: base) + range.lowerBound
        try? Posix.advise(start, Posix.wholePages(range.count), .populateRead, fileMayShrink: true)
    }

    /// Gives back the pages of bytes `range` (they stay in the page cache): a copy of them was
    /// made. The last piece may end mid-page, at the file's end.
    package func giveBack(_ range: Range<Int>) {
        let start = UnsafeMutableRawPointer(mutating: base) + range.lowerBound
        // A mapping of ours, its range on page boundaries: only a wrong range fails.
        do { try Posix.advise(start, Posix.wholePages(range.count), .dontNeed) } catch { preconditionFailure("\(error)") }
    }
}
