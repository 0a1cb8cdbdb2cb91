// The thread that runs a command again and again, one run at a time.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import JSONTree
import StoreInterface
import Synchronization

/// What one finished run gives the store's loop thread.
struct FinishedRun: Sendable {
    enum Outcome: Sendable {
        /// Output that differs from the last good run's, parsed.
        case document(JSONDocument, bytes: Int)
        /// The same output as the last good run: no new revision.
        case unchanged
        /// In words: `exit 1: error: …`, `invalid JSON at line 2, column 5: …`.
        case failed(String)
    }
    var run: CommandRun
    var outcome: Outcome
}

/// Runs the command on a thread of its own: a run, then `every` of rest after it ended, then
/// the next, so that runs never overlap however long one takes. Each finished run is queued
/// for the loop thread, which `wake` wakes.
final class CommandRunner: Sendable {
    let executable: String
    let arguments: [String]
    let every: Int
    let limits: RunLimits
    private let wake: WakeSignal
    private let stopSignal: WakeSignal
    private let finished = Mutex<[FinishedRun]>([])
    private let ended = DispatchSemaphore(value: 0)

    init(executable: String, arguments: [String], everyMilliseconds: Int, limits: RunLimits,
         wake: WakeSignal) throws(FileStoreError) {
        self.executable = executable
        self.arguments = arguments
        every = everyMilliseconds
        self.limits = limits
        self.wake = wake
        stopSignal = try WakeSignal()
    }

    func start() {
        DispatchQueue(label: "CommandStore.runs").async { [self] in
            runUntilStopped()
            ended.signal()
        }
    }

    /// Ends the run in progress (its whole process group) and the runs to come; returns once
    /// the thread is done.
    func stop() {
        stopSignal.signal()
        ended.wait()
        ended.signal()
    }

    /// The runs finished since the last call, oldest first.
    func takeFinished() -> [FinishedRun] {
        finished.withLock { runs in defer { runs.removeAll() }; return runs }
    }

    private func runUntilStopped() {
        var lastGood: [UInt8]?
        var lastDocument: JSONDocument?
        var number = 0
        repeat {
            number += 1
            let startedAt = timeOfDay()
            let startTime = wallClockSeconds()
            let start = monotonicNanoseconds()
            let end = runCommand(executable: executable, arguments: arguments, limits: limits, stop: stopSignal,
                                 expectedBytes: lastGood?.count ?? 0)
            let milliseconds = Int((monotonicNanoseconds() - start) / 1_000_000)
            let outcome: FinishedRun.Outcome
            switch end {
            case .stopped:
                return
            case .failed(let why):
                outcome = .failed(why)
            case .output(let bytes) where lastGood.map { sameBytes(bytes, $0) } == true:
                outcome = .unchanged
            case .output(let bytes):
                switch document(ofOutput: bytes, previous: lastDocument) {
                case .success(let document):
                    lastGood = bytes
                    lastDocument = document
                    outcome = .document(document, bytes: bytes.count)
                case .failure(let error):
                    outcome = .failed("invalid JSON at line \(error.line), column \(error.column): \(error.message)")
                }
            }
            var failed = false
            if case .failed = outcome { failed = true }
            let run = CommandRun(number: number, startedAt: startedAt, milliseconds: milliseconds, failed: failed, startTime: startTime)
            finished.withLock { $0.append(FinishedRun(run: run, outcome: outcome)) }
            wake.signal()
        } while !stopped(waitingMilliseconds: every)
    }

    /// Waits up to `milliseconds` for `stop()`; whether it came.
    private func stopped(waitingMilliseconds milliseconds: Int) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        while true {
            var fd = pollfd(fd: stopSignal.fd, events: Int16(POLLIN), revents: 0)
            let now = monotonicNanoseconds()
            let wait = now >= deadline ? 0 : Int32(clamping: (deadline - now) / 1_000_000 + 1)
            let ready = poll(&fd, 1, wait)
            if ready > 0 { return true }
            if ready == 0 && monotonicNanoseconds() >= deadline { return false }
        }
    }
}

/// Whether `a` and `b` hold the same bytes, compared by `memcmp` (an array's `==` compares an
/// element at a time: a sixth of a run's parse, on a 700 KB output).
private func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && a.withUnsafeBufferPointer { p in
        b.withUnsafeBufferPointer { q in p.isEmpty || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 }
    }
}

/// The local time of day, `10:02:03`.
private func timeOfDay() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
}
