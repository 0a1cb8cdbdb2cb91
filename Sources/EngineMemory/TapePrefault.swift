// A large tape's pages faulted in by a thread beside its parse (tuned: `secondThread`). The
// kernel zeroes each fresh page on first write: for the 110 MB tape of a 1,000,000-child file
// that was a fifth of the parse, on the parse's own thread. Here the other core does it, a
// little ahead of the parse.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Faults in the pages of a tape being written, from its start up to where the parse is told
/// it will soon write (`tell(upTo:)`, now and then), until stopped. The pages are made present
/// without being written (`MADV_POPULATE_WRITE`), so the parser's writes are never raced.
package final class TapePrefault: @unchecked Sendable {
    /// Tapes at least this large are faulted in beside their parse.
    package static let threshold = 32 << 20
    /// How far ahead of the parse the pages are made present: a few huge pages, so that the
    /// parse never waits.
    static let lead = 16 << 20

    /// Where the pages should be present, for a parse `at` bytes into `input` bytes that has
    /// written `written` bytes of tape: `lead` bytes ahead, but not past the tape's size
    /// foreseen from the bytes each input byte has taken so far, so that no more is made
    /// present than the parse will write (pages past the tape's end would add to the peak
    /// until `shrink` gives them back).
    package static func wanted(written: Int, at: Int, of input: Int) -> Int {
        guard at > 0 else { return written }
        let foreseen = Int(Double(written) / Double(at) * Double(input))
        return min(written + lead, max(written, foreseen))
    }

    /// What the parse and the thread share.
    private final class State: Sendable {
        let wanted = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
    }
    private let state = State()
    private var work: ThreadWork<Void>?

    /// Starts faulting in `bytes` bytes of `block`, a mapping; nil unless `tuning` has a
    /// second thread and the block is a mapping of at least `threshold` bytes.
    package init?<Element>(_ block: RecycledMemory<Element>, tuning: EngineTuning) {
        let bytes = block.capacity * MemoryLayout<Element>.stride / Posix.pageSize * Posix.pageSize
        guard tuning.secondThread, block.isMapped, bytes >= Self.threshold else { return nil }
        let state = state
        let address = UInt(bitPattern: block.base)
        work = ThreadWork {
            let base = UnsafeMutableRawPointer(bitPattern: address)!
            let huge = Posix.hugePageSize
            var present = 0
            while !state.stopped.load(ordering: .acquiring) && present < bytes {
                let wanted = min(bytes, (state.wanted.load(ordering: .relaxed) + huge - 1) / huge * huge)
                guard wanted > present else {
                    usleep(200)
                    continue
                }
                // Where the kernel cannot (older than 5.14), the parse faults its pages in
                // itself, as it does plain.
                do { try Posix.advise(base + present, wanted - present, .populateWrite) } catch { return }
                present = wanted
            }
        }
    }

    /// Tells how many bytes of the tape should be present now (see `wanted`).
    package func tell(upTo bytes: Int) { state.wanted.store(bytes, ordering: .relaxed) }

    /// Stops and waits for the thread: before the tape's memory is resized or given back.
    package func stop() {
        state.stopped.store(true, ordering: .releasing)
        work?.join()
        work = nil
    }

    deinit { stop() }
}
