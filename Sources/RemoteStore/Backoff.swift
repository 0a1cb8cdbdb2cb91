// How long to wait before the next try to reconnect.

/// Exponential backoff with "equal" jitter: the n-th try waits between half and all of
/// `initial × 2^(n-1)`, capped at `maximum`; so clients that lost a server together do not
/// all come back at the same instant, and none waits less than half its step.
public struct Backoff: Sendable, Equatable {
    /// The first step (the full delay of the first try, before jitter).
    public var initial: Duration
    /// The largest step. One second by default: a restarted server is followed again within a
    /// second of being back, whatever the outage.
    public var maximum: Duration
    /// The largest step after refusals (401, 403, another 4xx, `cancel`): the server answered, so
    /// asking again and again would only load it. The steps still start at `initial`, so that a
    /// refusal that ends soon (a served file briefly removed) ends soon for the client too.
    public var refused: Duration

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(1), refused: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.refused = max(self.maximum, refused)
    }

    /// The step of try `attempt` (1 for the first), before jitter.
    public func step(attempt: Int) -> Duration { step(attempt: attempt, upTo: maximum) }

    /// `initial` doubled for each try after the first, at most `cap`.
    private func step(attempt: Int, upTo cap: Duration) -> Duration {
        var step = initial
        var doublings = 1
        while doublings < attempt && step < cap {
            step = step * 2
            doublings += 1
        }
        return min(step, cap)
    }

    /// The delay of try `attempt`: a random point in the upper half of its step.
    public func delay(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        jittered(self.step(attempt: attempt), using: &random)
    }

    /// The delay of try `attempt` after a refusal: as `delay`, with steps up to `refused`.
    public func delayAfterRefusal(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        jittered(step(attempt: attempt, upTo: refused), using: &random)
    }

    private func jittered(_ duration: Duration, using random: inout some RandomNumberGenerator) -> Duration {
        let step = milliseconds(duration)
        let half = step / 2
        return .milliseconds(half + Int.random(in: 0...(step - half), using: &random))
    }
}

/// A duration in whole milliseconds.
func milliseconds(_ d: Duration) -> Int {
    let (seconds, attoseconds) = d.components
    return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
}
