// The file a follower's current revision was read from, held open until the revision after it
// has been handed to the store's loop (docs/engine/held-file.md).
//
// A writer that saves by rename replaces the file: the old one is freed when its last
// reference goes, in whichever process lets go of it last. On ext4 mounted with `discard` that
// process waits for the device (tens of ms for 150 MB), and the writer's `rename` — the save
// the follower is waiting to show — returned only after it. Held here, the old file is
// ours to free, once its successor is read and handed on. (Tuned, the first revision is read
// from a mapping whose descriptor is closed at once: it is not held.)
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory

/// The descriptor of the file the last large revision was read from, and those of files it
/// replaced, to be closed once the revision that replaced them has been handed to the loop.
final class HeldFile: @unchecked Sendable {
    // @unchecked: used on the store's read queue only (serial), and by `deinit`.
    private var current: Int32 = -1
    private var replaced: [Int32] = []
    /// Tuned (`secondThread`): the last close, on a thread of its own (it may wait for the
    /// device); joined before the next one starts.
    private var closing: ThreadWork<Void>?
    private let tuning: EngineTuning

    init(tuning: EngineTuning) { self.tuning = tuning }

    deinit {
        release()
        _ = closing?.join()
        if current >= 0 { close(current) }
    }

    /// Holds `fd` (-1: none) as the file of the revision just read; the one held before is let
    /// go at the next `release`.
    func hold(_ fd: Int32) {
        if current >= 0 && current != fd { replaced.append(current) }
        current = fd
    }

    /// The inodes of the files held: the current revision's, and those replaced but not yet
    /// let go (tests).
    var inodes: (current: UInt64?, replaced: [UInt64]) {
        func inode(_ fd: Int32) -> UInt64? {
            var st = stat()
            return fstat(fd, &st) == 0 ? UInt64(st.st_ino) : nil
        }
        return (current >= 0 ? inode(current) : nil, replaced.compactMap(inode))
    }

    /// Closes the files replaced since the last call: the revision read after them has been
    /// delivered. Tuned, on a thread, so that a wait for the device delays no read.
    func release() {
        guard !replaced.isEmpty else { return }
        let files = replaced
        replaced = []
        _ = closing?.join()
        let work = ThreadWork(onThread: tuning.secondThread) { for fd in files { close(fd) } }
        if work.startsThread { closing = work } else { closing = nil; work.join() }
    }
}
