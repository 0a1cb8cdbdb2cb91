// The loop's wake-up: a pipe any thread can signal.
#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor closed when the last reference goes away.
///
/// Sendable: the descriptor number is immutable, and what is done with it (writing a byte to
/// a pipe, reading an inotify queue from its one owner) is safe from any thread.
package final class OwnedDescriptor: Sendable {
    package let raw: Int32
    package init(_ raw: Int32) { self.raw = raw }
    deinit { close(raw) }
}

/// A pipe used as a wake-up: any thread may `signal()`; the loop polls `fd` and `drain()`s it.
package final class WakeSignal: Sendable {
    private let readEnd: OwnedDescriptor
    private let writeEnd: OwnedDescriptor

    package init() throws(FileStoreError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .system("pipe", errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = OwnedDescriptor(fds[0])
        writeEnd = OwnedDescriptor(fds[1])
    }

    /// The end to poll for `POLLIN`.
    package var fd: Int32 { readEnd.raw }

    /// Makes `fd` readable. A full pipe is already readable, so a failed write loses nothing.
    package func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd.raw, &one, 1)
    }

    /// Clears the signal; returns whether it was set.
    @discardableResult
    package func drain() -> Bool {
        var signalled = false
        withUnsafeTemporaryAllocation(byteCount: 256, alignment: 1) { buffer in
            while read(readEnd.raw, buffer.baseAddress, buffer.count) > 0 { signalled = true }
        }
        return signalled
    }
}
