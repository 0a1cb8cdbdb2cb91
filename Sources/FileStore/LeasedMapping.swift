// A large file's first revision read without a copy on its way to the first screen: the
// file's own pages, held under a read lease, until a copy takes their place.
#if canImport(Glibc)
import Glibc
#endif
import CMappedFile
import Dispatch
import JSONTree
import Synchronization

/// The bytes of a document parsed from a file's mapping under a read lease
/// (`SnapshotReader.parseLeased`). While the lease is held, a process that opens the file for
/// writing or truncates it waits (a writer that replaces the file by rename does not; it
/// never touches these pages), so the pages are the bytes parsed. `settle` copies them into
/// anonymous memory at the same address and gives the lease up; until then a writer waits,
/// so it is called as soon as the document's first windows are made, and the wait is that
/// copy (40–310 ms for 150 MB on the machine it was measured on). A writer opening with `O_NONBLOCK` gets
/// `EWOULDBLOCK` meanwhile instead of waiting.
final class LeasedMapping: Sendable {
    private let slot: Int32
    private let fd: Int32
    private let address: UInt
    private let count: Int
    /// Raised once `settle` has begun: it runs once.
    private let settling = Atomic<Bool>(false)
    /// Raised once the copy has taken the mapping's place.
    private let settled = Atomic<Bool>(false)

    init(slot: Int32, fd: Int32, base: UnsafeRawPointer, count: Int) {
        (self.slot, self.fd, address, self.count) = (slot, fd, UInt(bitPattern: base), count)
    }

    /// Copies the bytes of `document` (whose block this mapping is) into memory of its own on
    /// another thread, then gives up the lease. The document is kept until then, so the block
    /// is not released during the copy.
    func settle(keeping document: JSONDocument) {
        guard !settling.exchange(true, ordering: .relaxed) else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            withExtendedLifetime(document) {
                // No memory for the copy: try again; a writer waits meanwhile.
                while mapped_file_settle(slot, fd) != 0 { usleep(10_000) }
                settled.store(true, ordering: .releasing)
            }
        }
    }

    /// The block's release: a settled copy is kept as a spare for the next revision's bytes
    /// (a read of a file of this size takes it without fresh pages); a mapping never settled
    /// is unmapped, and its lease given up.
    func release() {
        if settled.load(ordering: .acquiring) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            RecycledMemory<UInt8>.keepSpare(mapping: UnsafeMutableRawPointer(bitPattern: address)!,
                                            bytes: (count + page - 1) / page * page)
        } else {
            mapped_file_unmap_leased(slot, fd)
        }
    }
}
