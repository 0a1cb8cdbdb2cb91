// A command run every interval as a live store: each run whose output differs is a revision.
import JSONTree
import LiveQuery
import StoreInterface

/// A `LiveStore` whose revisions are a command's outputs: the command runs, then again `every`
/// after it ended (never two runs at once), and each run whose output differs from the last
/// good one becomes the next revision. A run that fails — an exit status other than 0, output
/// that is not JSON, a timeout, too much output — is the store's problem, in words
/// (`StoreProblem.runFailed`), while the last good revision stays current.
///
/// The command runs without a shell (`["sh", "-c", "…"]` for one), in a process group of its
/// own, which `stop()` ends at once — as does the end of this process.
///
/// Like every store it belongs to one loop thread, which polls `pollDescriptors` and calls
/// `processPendingChanges()`; observers are called there. A command's output is read-only.
public final class CommandStore: ReadOnlyStore {
    /// How often and within which bounds the command runs.
    public struct Options: Sendable {
        /// The rest between the end of a run and the start of the next.
        public var everyMilliseconds: Int
        /// A run still going after this long is ended and fails; by default the larger of 30 s
        /// and 10 × `everyMilliseconds`.
        public var timeoutMilliseconds: Int?
        /// A run that prints more than this is ended and fails (256 MiB by default).
        public var maxOutputBytes: Int

        public init(everyMilliseconds: Int = 2000, timeoutMilliseconds: Int? = nil, maxOutputBytes: Int = 256 << 20) {
            self.everyMilliseconds = everyMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
            self.maxOutputBytes = maxOutputBytes
        }

        /// The timeout that applies.
        public var effectiveTimeoutMilliseconds: Int {
            timeoutMilliseconds ?? max(30_000, 10 * everyMilliseconds)
        }
    }

    public let hub: RevisionHub
    /// The command line, for people: `kubectl get pods -o json`.
    public let name: String
    public var loadingMessage: String { "running \(name)…" }
    public var pollDescriptors: [Int32] { [wake.fd] }

    private let wake: WakeSignal
    private let runner: CommandRunner
    private var stopped = false

    /// Starts the first run at once.
    /// - Parameter command: the program (found in `$PATH` unless it holds a `/`) and its arguments.
    /// - Throws: `CommandStoreError.notFound` when there is no such program (nothing runs).
    public init(command: [String], options: Options = Options()) throws(CommandStoreError) {
        guard let program = command.first else { throw .noCommand }
        guard let executable = executablePath(program) else { throw .notFound(program) }
        name = command.map(shellWord).joined(separator: " ")
        do {
            wake = try WakeSignal()
            hub = RevisionHub(status: StoreStatus(revision: 0, problem: nil, watchMode: .polling), wake: wake)
            runner = try CommandRunner(executable: executable, arguments: command, everyMilliseconds: options.everyMilliseconds,
                                       limits: RunLimits(timeoutMilliseconds: options.effectiveTimeoutMilliseconds,
                                                         maxOutputBytes: options.maxOutputBytes),
                                       wake: wake)
        } catch {
            throw .system("\(error)")
        }
        runner.start()
    }

    deinit { stop() }

    /// Ends the run in progress (the command's whole process group, at once) and every run to
    /// come; returns when they are over. The current revision stays.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        runner.stop()
    }

    public func processPendingChanges() {
        wake.drain()
        for finished in runner.takeFinished() {
            hub.status.lastRun = finished.run
            switch finished.outcome {
            case .document(let document, let bytes):
                let now = Int64(PushIDGenerator.systemMilliseconds()) * 1_000_000
                hub.publish(document: document, identity: FileIdentity(device: 0, inode: 0, size: Int64(bytes), modified: now, changed: now),
                            time: finished.run.startTime)
            case .unchanged:
                hub.status.problem = nil
            case .failed(let why):
                hub.status.problem = .runFailed("run \(finished.run.number) at \(finished.run.startedAt): \(why)")
            }
        }
        hub.deliverEvaluatedWindows()
        hub.deliverStatusIfChanged()
    }
}

/// Why a command source cannot start.
public enum CommandStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No command was given.
    case noCommand
    /// No program of that name (in `$PATH`, or at that path), or it is not executable.
    case notFound(String)
    /// The store's pipes could not be made.
    case system(String)

    public var description: String {
        switch self {
        case .noCommand: "no command to run"
        case .notFound(let name): "\(name): command not found"
        case .system(let why): why
        }
    }
}

/// `word` as a shell would need it written to be one word (for showing the command line).
private func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./=:,+@%".unicodeScalars.contains(scalar)
    }
    return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}
