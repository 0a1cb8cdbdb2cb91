// SIGINT and SIGTERM for a command that prints until stopped (`events`, `history --follow`).
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import Dispatch

/// Becomes readable on SIGINT or SIGTERM, so the loop can end cleanly (exit 0).
///
/// The loop may be busy (a large window being printed) or blocked (writing to a reader that
/// does not read): if it has not ended a quarter of a second after the signal, the process
/// ends from here, once a write in progress has ended (`output` waits up to another quarter
/// of a second for it, so a reader that reads gets whole lines).
public final class StopSignal {
    public let fd: Int32
    private let sources: [DispatchSourceSignal]

    /// - Parameter output: the writer whose line in progress the process waits for, if any.
    public init(output: EventLineWriter? = nil) {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        fd = fds[0]
        let writeEnd = fds[1]
        // A reader that has gone away (`| head`) ends the stream quietly, like a signal.
        signal(SIGPIPE, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.25) {
                    output?.stopWriting(waitingUpTo: 0.25)
                    // _exit skips atexit: a watched command's group is ended here.
                    endRunningCommands()
                    _exit(0)
                }
            }
            source.resume()
            return source
        }
    }
}
