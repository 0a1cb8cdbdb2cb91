// glibc malloc's thresholds fixed for a long-running process that follows a file.
#if canImport(Glibc)
import Glibc
#endif

/// Fixes glibc's thresholds for mapping a block and for trimming a heap at their starting
/// values (128 KiB): `synctable` does as it starts, for the commands that run for long (the
/// viewer, `events`, `serve`).
///
/// By default both move up to the largest mapped block freed (trimming at twice that): after a
/// revision's 1 MiB temporaries, blocks of that size came from the heaps of the thread that
/// asked, and the megabyte or two freed there stayed. A follower of a large file grew by such
/// a step now and then (1.6 MB, in a heap of a worker thread's own), though nothing leaked.
/// Fixed, a block of 128 KiB or more is mapped and given back when freed, and a heap's free
/// top over 128 KiB is given back. Blocks of 1 MiB or more of our own are mappings anyway
/// (`RecycledMemory`).
/// - Returns: whether both were set (false where the C library has no `mallopt`).
@discardableResult
public func fixMallocThresholds() -> Bool {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let mallopt = cLibraryFunction("mallopt", as: Mallopt.self) else { return false }
    // M_TRIM_THRESHOLD and M_MMAP_THRESHOLD (malloc.h, which Glibc's module leaves out).
    let (trimThreshold, mmapThreshold): (Int32, Int32) = (-1, -3)
    return mallopt(mmapThreshold, 128 << 10) == 1 && mallopt(trimThreshold, 128 << 10) == 1
}
