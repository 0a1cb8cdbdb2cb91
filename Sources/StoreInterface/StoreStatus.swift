// What the store can tell a status bar: the current revision, and what is wrong, if anything.
import JSONTree

/// Why the file's current state is not a revision.
public enum StoreProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file is not valid JSON (a half-written file, a typo); the last good revision stays current.
    case invalidJSON(JSONParseError)
    /// The file does not exist (yet, or any more). The store waits for it to appear.
    case missing
    /// The file exists but cannot be read (permissions, a directory, an I/O error).
    case unreadable(String)
    /// A command source's last run failed (its exit status, invalid output, a timeout), in
    /// words: `run 14 at 10:02:03: exit 1: error: …`; the last good revision stays current.
    case runFailed(String)
    /// Something the user should know that leaves the data whole (a journal's torn last line, left out).
    case warning(String)

    /// One line for a person.
    public var description: String {
        switch self {
        case .invalidJSON(let e): "invalid JSON at line \(e.line), column \(e.column): \(e.message)"
        case .missing: "file not found"
        case .unreadable(let why): "cannot read file: \(why)"
        case .runFailed(let what): what
        case .warning(let what): what
        }
    }

    /// The line and column of a JSON error; nil for other problems.
    public var position: (line: Int, column: Int)? {
        if case .invalidJSON(let e) = self { return (e.line, e.column) }
        return nil
    }
}

/// How the store learns about changes.
public enum WatchMode: Sendable, Equatable {
    /// inotify on the file's folder: changes are seen as they happen.
    case inotify
    /// `stat` every 100 ms: where inotify is unavailable, or the folder itself is missing.
    case polling
}

/// The store's state, for a status bar.
public struct StoreStatus: Sendable, Equatable {
    /// The current revision's number; 0 before the first one.
    public var revision: Int
    /// What is wrong with the file now; nil when its current state is the current revision.
    public var problem: StoreProblem?
    /// How changes are being watched.
    public var watchMode: WatchMode
    /// For a JSON Lines file or a pipe: its records, invalid records, restarts and end; nil for
    /// a JSON document.
    public var lines: LinesStatus?
    /// For a database over the network: the connection; nil for a file or a pipe.
    public var connection: ConnectionStatus?
    /// For a command source: its last finished run; nil for other stores, and before the first run ends.
    public var lastRun: CommandRun?

    public init(revision: Int, problem: StoreProblem?, watchMode: WatchMode, lines: LinesStatus? = nil,
                connection: ConnectionStatus? = nil, lastRun: CommandRun? = nil) {
        self.revision = revision
        self.problem = problem
        self.watchMode = watchMode
        self.lines = lines
        self.connection = connection
        self.lastRun = lastRun
    }
}

/// A remote store's connection to its database, for a status bar. While it is not `online`, the
/// last revision stays current.
public enum ConnectionStatus: Sendable, Equatable, CustomStringConvertible {
    /// The first connection is being made.
    case connecting
    /// The stream is open and its first `put` has been delivered: changes arrive as they happen.
    case online
    /// The stream was lost (`reason`); the next try, number `attempt` since the stream was last
    /// online, starts after `delayMilliseconds`.
    case reconnecting(attempt: Int, delayMilliseconds: Int, reason: String)
    /// The server refuses to stream the location (a 4xx other than 401/403, such as a query it
    /// does not allow, or a `cancel` event); tries go on at the slowest pace.
    case offline(reason: String)
    /// The token is missing, refused (401, 403) or was revoked; tries go on at the slowest pace,
    /// in case access is granted.
    case unauthorized(reason: String)

    /// Whether changes are arriving.
    public var isOnline: Bool { self == .online }

    /// One line for a person.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .online: "online"
        case .reconnecting(let attempt, let ms, let reason):
            "\(reason) — retrying in \(secondsText(ms)), try \(attempt)"
        case .offline(let reason): "offline: \(reason)"
        case .unauthorized(let reason): "unauthorized: \(reason)"
        }
    }
}

/// A JSON Lines source's state, for a status bar.
public struct LinesStatus: Sendable, Equatable {
    /// Records so far (blank lines included: a record's key is its line's index).
    public var records = 0
    /// Records that are not valid JSON (error rows).
    public var invalidRecords = 0
    /// How often the source started over, and why it last did.
    public var restarts = 0
    public var lastRestart: LinesRestart?
    /// A pipe's input has ended (the list is complete).
    public var inputEnded = false
    /// The current revision holds only the newest records of a large file; the whole file is
    /// being read (`FileStore.Options.newestFirst`).
    public var isPartial = false
    /// Only the newest records of a large file were read; the older lines are counted, not
    /// read (`FileStore.NewestFirst.onlyNewest`), until `readEveryRecord()` asks for them.
    public var olderUnread = false
    /// `readEveryRecord()` asked for the older lines, which are being read.
    public var olderRequested = false
    /// The invalid records found by the latest read (all of them are also error rows).
    public var recentErrors: [JSONLinesError] = []

    public init() {}
}

/// A delay for people: `0.8 s`, `2 s`, `12 s` (tenths below ten seconds).
package func secondsText(_ milliseconds: Int) -> String {
    guard milliseconds < 9950 else { return "\((milliseconds + 500) / 1000) s" }
    let tenths = (max(0, milliseconds) + 50) / 100
    return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
}

/// Why a JSON Lines source started over from its first byte.
public enum LinesRestart: Sendable, Equatable, CustomStringConvertible {
    /// The file became shorter, or its bytes before the read position changed (copytruncate).
    case truncated
    /// Another file now has the path (logrotate's rename and create, an editor's save).
    case replaced
    /// The file was deleted; the list is empty until it comes back.
    case deleted

    public var description: String {
        switch self {
        case .truncated: "truncated"
        case .replaced: "replaced"
        case .deleted: "deleted"
        }
    }
}
