// SIGINT and SIGTERM for a command that prints until stopped (`events`, `history --follow`).
#if canImport(Glibc)
import Glibc
#endif
import CommandStore

/// Becomes readable on SIGINT or SIGTERM (a request the program's edge delivers, see
/// `StopRequests`), so the loop can end cleanly (exit 0); never readable without requests.
///
/// The loop may be busy (a large window being printed) or blocked (writing to a reader that
/// does not read): if it has not taken the request a quarter of a second after the signal,
/// the process ends, once a write in progress has ended (`output` waits up to another quarter
/// of a second for it, so a reader that reads gets whole lines).
public struct StopSignal {
    /// The descriptor to poll (-1, which poll(2) skips, without requests).
    public let fd: Int32
    private let requests: StopRequests?

    /// - Parameter output: the writer whose line in progress the process waits for, if any.
    public init(output: EventLineWriter? = nil) {
        requests = CommandIO.current.stop
        fd = requests?.fd ?? -1
        requests?.listen(for: [SIGINT, SIGTERM], grace: 0.25) { _ in
            output?.stopWriting(waitingUpTo: 0.25)
            // _exit skips atexit: a watched command's group is ended here.
            endRunningCommands()
            _exit(0)
        }
    }

    /// Takes the request that made `fd` readable; stops listening once the loop is over.
    public func end() {
        _ = requests?.take()
        requests?.stopListening()
    }
}
