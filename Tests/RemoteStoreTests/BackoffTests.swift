// Reconnection delays: doubling from the first step, capped, jittered within the upper half.
@testable import RemoteStore
import Testing
import TestSupport

@Suite struct BackoffTests {
    @Test func stepsDoubleUpToTheCap() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
        #expect((1...9).map { milliseconds(backoff.step(attempt: $0)) } == [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000])
        #expect(backoff.step(attempt: .max) == .seconds(5))
        #expect(Backoff(initial: .seconds(2), maximum: .seconds(1)).maximum == .seconds(2))
        // By default a lost server is tried at least once a second; a refusal twice a minute.
        #expect(Backoff().maximum == .seconds(1) && Backoff().refused == .seconds(30))
    }

    @Test func delaysAreJitteredInTheUpperHalfOfTheStep() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
        var random = SplitMix64(seed: 7)
        for attempt in 1...12 {
            let step = milliseconds(backoff.step(attempt: attempt))
            let delays = (0..<200).map { _ in milliseconds(backoff.delay(attempt: attempt, using: &random)) }
            #expect(delays.allSatisfy { $0 >= step / 2 && $0 <= step }, "attempt \(attempt)")
            #expect(Set(delays).count > 20, "attempt \(attempt): the delays vary")
        }
    }
}
