// The engine's one way into the C library for memory, mappings and threads: every call checked.
// A failure the caller can act on is thrown (`PosixError`); one that can only be a wrong
// argument of ours (a bad address, a range that is not ours) stops a debug build.
#if canImport(Glibc)
import Glibc
#endif
import CEngineMemory

/// A failed system call: which, and `errno`.
package struct PosixError: Error, CustomStringConvertible {
    package let call: String
    package let errno: Int32

    package var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

package enum Posix {
    /// The size of a page.
    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    /// The size of a transparent huge page on x86-64 and most arm64 kernels.
    package static let hugePageSize = 2 << 20

    /// `bytes` rounded up to whole pages.
    package static func wholePages(_ bytes: Int) -> Int { (bytes + pageSize - 1) / pageSize * pageSize }

    /// The magic number of the file system holding `fd` (<linux/magic.h>); nil where unknown.
    package static func fileSystemType(_ fd: Int32) -> Int? {
        let type = engine_file_system_type(fd)
        return type < 0 ? nil : type
    }

    /// What `advise` tells the kernel about a range of pages.
    package enum Advice: CustomStringConvertible {
        /// Give the pages back; they read as zeroes (anonymous) or the file's bytes after.
        case dontNeed
        /// Back the range with transparent huge pages where possible.
        case hugePage
        /// Keep the range in small pages (khugepaged fills a partly present huge page back).
        case noHugePage
        /// Make the pages present and writable now, without writing them (Linux 5.14).
        case populateWrite
        /// Map the pages present now (of a file: its pages, none made), without a fault each (Linux 5.14).
        case populateRead

        var value: Int32 {
            switch self {
            case .dontNeed: MADV_DONTNEED
            case .hugePage: MADV_HUGEPAGE
            case .noHugePage: MADV_NOHUGEPAGE
            case .populateWrite: engine_advice_populate_write()
            case .populateRead: engine_advice_populate_read()
            }
        }

        package var description: String {
            switch self {
            case .dontNeed: "MADV_DONTNEED"
            case .hugePage: "MADV_HUGEPAGE"
            case .noHugePage: "MADV_NOHUGEPAGE"
            case .populateWrite: "MADV_POPULATE_WRITE"
            case .populateRead: "MADV_POPULATE_READ"
            }
        }
    }

    /// `bytes` (whole pages) of fresh anonymous read-write memory, no swap reserved: a tape's
    /// mapping is sized for the most nodes its input can hold, often four times what it uses.
    package static func mapAnonymous(_ bytes: Int) throws(PosixError) -> UnsafeMutableRawPointer {
        checkPages(nil, bytes)
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              p != MAP_FAILED
        else { throw PosixError(call: "mmap(\(bytes))", errno: Glibc.errno) }
        return p
    }

    /// A memory file of `bytes` bytes (whole pages; they take memory once written), for
    /// mappings that share its pages. The descriptor is the caller's to close.
    package static func memoryFile(_ bytes: Int) throws(PosixError) -> Int32 {
        checkPages(nil, bytes)
        let fd = engine_memory_file("synctable-revision")
        guard fd >= 0 else { throw PosixError(call: "memfd_create", errno: Glibc.errno) }
        guard ftruncate(fd, off_t(bytes)) == 0 else {
            let code = Glibc.errno
            close(fd)
            throw PosixError(call: "ftruncate(\(bytes))", errno: code)
        }
        return fd
    }

    /// `bytes` (whole pages) of the file `fd` mapped read-write: `shared`, writes go to the
    /// file; else a write copies its page, and the file stays as it was. With `at` (whole pages
    /// of a mapping of ours), mapped there, in place of what was.
    package static func mapFile(_ fd: Int32, _ bytes: Int, shared: Bool, at: UnsafeMutableRawPointer? = nil) throws(PosixError) -> UnsafeMutableRawPointer {
        checkPages(at, bytes)
        let flags = (shared ? MAP_SHARED : MAP_PRIVATE | MAP_NORESERVE) | (at == nil ? 0 : MAP_FIXED)
        guard let p = mmap(at, bytes, PROT_READ | PROT_WRITE, flags, fd, 0), p != MAP_FAILED
        else { throw PosixError(call: "mmap(\(bytes), fd \(fd))", errno: Glibc.errno) }
        return p
    }

    /// `bytes` (whole pages) of addresses, no memory behind them: room for mappings put there
    /// one after another (`mapFile(at:)`), unmapped as one.
    package static func reserveAddresses(_ bytes: Int) throws(PosixError) -> UnsafeMutableRawPointer {
        checkPages(nil, bytes)
        guard let p = mmap(nil, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), p != MAP_FAILED
        else { throw PosixError(call: "mmap(\(bytes), PROT_NONE)", errno: Glibc.errno) }
        return p
    }

    /// Unmaps `bytes` at `base`, a range of whole pages of a mapping of ours.
    package static func unmap(_ base: UnsafeMutableRawPointer, _ bytes: Int) {
        checkPages(base, bytes)
        let result = munmap(base, bytes)
        assert(result == 0, "munmap: \(String(cString: strerror(Glibc.errno)))")
    }

    /// Tells the kernel `advice` about `bytes` at `base` (whole pages of a mapping of ours).
    /// Throws where the kernel does not know the advice (`EINVAL`: an older kernel, or huge
    /// pages configured off) or cannot follow it (`ENOMEM`, `EAGAIN`).
    /// - Parameter fileMayShrink: the range maps a file another process may cut short: populating
    ///   a page it no longer has fails with `EFAULT`, which is then no wrong range.
    package static func advise(_ base: UnsafeMutableRawPointer, _ bytes: Int, _ advice: Advice,
                               fileMayShrink: Bool = false) throws(PosixError) {
        checkPages(base, bytes)
        guard madvise(base, bytes, advice.value) != 0 else { return }
        let code = Glibc.errno
        assert((code != EFAULT || fileMayShrink) && code != EBADF, "madvise(\(advice)): \(String(cString: strerror(code)))")
        throw PosixError(call: "madvise(\(advice))", errno: code)
    }

    /// Asks for huge pages over a range that may be a hint only: where the kernel has them
    /// off, the pages stay small, as they would have been.
    package static func adviseHugePages(_ base: UnsafeMutableRawPointer, _ bytes: Int) {
        do { try advise(base, bytes, .hugePage) } catch { return }
    }

    /// Moves `bytes` of pages at `from` (whole pages within one mapping) to `to`, replacing
    /// what was mapped there; `from` is unmapped after. No copy: the page table entries move.
    package static func movePages(from: UnsafeMutableRawPointer, _ bytes: Int, to: UnsafeMutableRawPointer) throws(PosixError) {
        checkPages(from, bytes)
        checkPages(to, 0)
        guard engine_move_pages(from, bytes, to) == 0 else { throw PosixError(call: "mremap", errno: Glibc.errno) }
    }

    /// Adds to `actions` that the child closes every descriptor from `lowest` up, whatever its
    /// flags: descriptors that libraries open without close-on-exec (SwiftNIO's sockets) or that
    /// another thread has not yet marked do not reach the child. False where the C library lacks
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34; the Glibc module map leaves it out).
    @discardableResult
    package static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let addCloseFrom else { return false }
        return addCloseFrom(&actions, lowest) == 0
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom = cLibraryFunction("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)

    /// The C library's function `name` as `type`, for those the Glibc module map leaves out
    /// (behind `_GNU_SOURCE`, or newer); nil where the library lacks it.
    package static func cLibraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// Starts a thread running `start(argument)`; false where none can be made.
    package static func startThread(
        _ thread: inout pthread_t, _ start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
        _ argument: UnsafeMutableRawPointer
    ) -> Bool {
        pthread_create(&thread, nil, start, argument) == 0
    }

    /// Waits for `thread` to end.
    package static func join(_ thread: pthread_t) {
        let result = pthread_join(thread, nil)
        assert(result == 0, "pthread_join: \(result)")
    }

    /// Debug builds: `base` page-aligned and `bytes` whole pages.
    private static func checkPages(_ base: UnsafeMutableRawPointer?, _ bytes: Int) {
        assert(base.map { Int(bitPattern: $0) % pageSize == 0 } ?? true, "not page-aligned: \(base!)")
        assert(bytes >= 0 && bytes % pageSize == 0, "not whole pages: \(bytes)")
    }
}
