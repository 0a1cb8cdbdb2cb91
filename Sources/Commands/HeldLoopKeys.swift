// `q` answered while the run loop is held by a computation (a jq program that does not end, a
// first read of a large file): the loop reads keys only between its pieces of work.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TableUI

/// A thread beside the run loop that, once the loop has been at work for `patience` seconds
/// without reading the terminal, reads the keys typed meanwhile: `q` ends the program at once
/// (through `quit`); every other byte is kept and handed back when the loop waits again, so no
/// key typed during a long first read is lost.
///
/// The keys are read under the same lock as the loop's change between working and waiting, so
/// a byte is either read here and handed back, or left in the terminal for the loop's poll.
final class HeldLoopKeys: Sendable {
    private let inputFD: Int32
    private let patience: Double
    private let quit: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        /// When the loop last left its wait (monotonic seconds); nil while it waits.
        var workingSince: Double?
        var heldBytes: [UInt8] = []
        var ended = false
    }

    init(inputFD: Int32, patience: Double = 1, quit: @escaping @Sendable () -> Void) {
        self.inputFD = inputFD
        self.patience = patience
        self.quit = quit
        Thread.detachNewThread { [self] in watch() }
    }

    /// The loop leaves its wait.
    func working() { state.withLock { $0.workingSince = TableClock.now() } }

    /// The loop is about to wait for the terminal: the bytes read while it worked, in order.
    func waiting() -> [UInt8] {
        state.withLock { s in
            s.workingSince = nil
            defer { s.heldBytes = [] }
            return s.heldBytes
        }
    }

    /// The loop has ended: the thread ends within its next look.
    func end() { state.withLock { $0.ended = true } }

    private func watch() {
        while true {
            usleep(100_000)
            let (ended, quitting) = state.withLock { s -> (Bool, Bool) in
                guard !s.ended else { return (true, false) }
                guard let since = s.workingSince, TableClock.now() - since > patience else { return (false, false) }
                let read = readAvailable()
                s.heldBytes += read
                return (false, read.contains(UInt8(ascii: "q")))
            }
            if ended { return }
            if quitting { quit() }
        }
    }

    /// What the terminal holds now, without waiting.
    private func readAvailable() -> [UInt8] {
        var bytes: [UInt8] = []
        var ready = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 0) == 1, ready.revents & Int16(POLLIN) != 0 {
            var chunk = [UInt8](repeating: 0, count: 256)
            let n = read(inputFD, &chunk, chunk.count)
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        return bytes
    }
}
