// A command source's run, as a status bar tells it.

/// One finished run of a command source: which, when it started and how long it took.
public struct CommandRun: Sendable, Equatable, CustomStringConvertible {
    /// 1 for the first run.
    public var number: Int
    /// When it started, as the local time of day (`10:02:03`).
    public var startedAt: String
    public var milliseconds: Int
    /// Whether it failed (the store's problem says how).
    public var failed: Bool
    /// When it started, seconds since 1970 (what rates divide by).
    public var startTime: Double

    public init(number: Int, startedAt: String, milliseconds: Int, failed: Bool, startTime: Double = 0) {
        self.number = number
        self.startedAt = startedAt
        self.milliseconds = milliseconds
        self.failed = failed
        self.startTime = startTime
    }

    /// `run 14 at 10:02:03 took 0.4 s`.
    public var description: String { "run \(number) at \(startedAt) took \(secondsText(milliseconds))" }
}
