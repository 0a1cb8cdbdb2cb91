// glibc malloc's thresholds fixed for a long-running process that follows a file (tuned:
// `fixedMallocThresholds`, set by `EngineTuning.adopt`).
import CEngineMemory

/// By default glibc moves both thresholds up to the largest mapped block freed (trimming at
/// twice that): after a revision's 1 MiB temporaries, blocks of that size came from the heaps of
/// the thread that asked, and the megabyte or two freed there stayed. A follower of a large file
/// grew by such a step now and then (1.6 MB, in a heap of a worker thread's own), though nothing
/// leaked. Fixed at their starting values (128 KiB), a block of 128 KiB or more is mapped and
/// given back when freed, and a heap's free top over 128 KiB is given back. Blocks of 1 MiB or
/// more of our own are mappings anyway, tuned (`RecycledMemory`).
enum MallocThresholds {
    /// Fixes both; false where the C library is not glibc or refuses.
    @discardableResult
    static func fix() -> Bool { engine_fix_malloc_thresholds(128 << 10) == 1 }
}
