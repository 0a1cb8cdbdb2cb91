// Where a command reads, writes and hears it should stop: the process's own descriptors, or a
// test's (so that a command runs in-process, its output captured and its exit status returned).
#if canImport(Glibc)
import Glibc
#endif

/// The descriptors a command uses instead of 0, 1 and 2, and its requests to stop.
///
/// A command's `run()` takes no parameters (the argument parser calls it), so these travel
/// as a task-local value: `CommandIO.$current.withValue(io) { … }` around the run. Every
/// read of standard input and every write of a command's output goes through `current`.
public struct CommandIO: Sendable {
    public var input: Int32
    public var output: Int32
    public var errors: Int32
    /// SIGINT, SIGTERM and SIGHUP, as the program's edge delivers them (see `StopRequests`).
    public var stop: StopRequests?

    public init(input: Int32 = 0, output: Int32 = 1, errors: Int32 = 2, stop: StopRequests? = nil) {
        self.input = input
        self.output = output
        self.errors = errors
        self.stop = stop
    }

    /// The process's own descriptors, with no stop requests.
    @TaskLocal public static var current = CommandIO()

    /// Whether standard output is a terminal (tables by default, not JSON).
    public var outputIsTerminal: Bool { isatty(output) == 1 }
}
