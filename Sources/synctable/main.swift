// The program's edge: what a process does once, before any command runs — the only
// process-wide effects (the engine's tuning, the descriptor limit, the quitting signals).
#if canImport(Glibc)
import Glibc
#endif
import Commands
import Headless
import JSONTree

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
raiseDescriptorLimit()
let status = SyncTable.run(Array(CommandLine.arguments.dropFirst()), io: CommandIO(stop: stop)) { command in
    // A reader that has gone away (`| head`) ends the stream quietly (EPIPE), not by SIGPIPE.
    if SyncTable.streamsUntilStopped(command) { signal(SIGPIPE, SIG_IGN) }
}
exit(status)
