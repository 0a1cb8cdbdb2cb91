// The program's edge: what a process does once, before any command runs — the only
// process-wide effects (the engine's tuning, the descriptor limit, every signal handler).
#if canImport(Glibc)
import Glibc
#endif
import Commands
import Headless
import JSONTree
import TableUI

// First, before any thread starts: see `watchQuittingSignals`.
let stop: StopRequests?
do { stop = try watchQuittingSignals() } catch {
    printError(error.line)
    exit(error.exitCode)
}
// The engine's tactics: every one (`EngineTuning.tuned`, docs/engine/), or the library's plain
// default where `SYNCTABLE_ENGINE=plain` says so (the bench's plain rows).
let plain = getenv("SYNCTABLE_ENGINE").map { String(cString: $0) } == "plain"
(plain ? EngineTuning.plain : EngineTuning.tuned).adopt()
// The crash handlers, in this order: an open terminal is put back on any signal that ends the
// program; then the mapped reads' SIGBUS guard, which hands a fault outside a mapping to it.
Terminal.restoreOnFatalSignals()
EngineTuning.guardMappedReads()
raiseDescriptorLimit()
let status = SyncTable.run(Array(CommandLine.arguments.dropFirst()), io: CommandIO(stop: stop)) { command in
    // A reader that has gone away (`| head`) ends the stream quietly (EPIPE), not by SIGPIPE.
    if SyncTable.streamsUntilStopped(command) { signal(SIGPIPE, SIG_IGN) }
}
exit(status)
