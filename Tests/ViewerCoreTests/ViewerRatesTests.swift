// `R`: a rate column of the numeric column under the cursor, from the store of rates.
import Testing
import TableUI
@testable import ViewerCore

@Suite("The rate key")
struct ViewerRatesTests {
    @Test("R adds $rate/n after the column under the cursor: a rate where n grew, reset where it went down")
    func rateOfTheColumnUnderTheCursor() throws {
        let h = try ViewerHarness(memoryWithRates: #"{"a":{"n":10},"b":{"n":50}}"#)
        try h.save(#"{"a":{"n":30},"b":{"n":40}}"#)
        h.send(.right)
        h.type("R")
        let screen = try h.waitUntil("the rate column") { $0.contains("$rate/n") && $0.contains("reset") }
        let a = try #require(h.lines.first { $0.contains(" a ") })
        #expect(a.split(separator: " ").count == 4, "a, its n and its rate: \(a)")
        #expect(screen.contains("per second between the last two revisions"), "\(screen)")
    }

    @Test("R on a file's viewer (no store of rates) says to start with --rate")
    func rateOfAFileNeedsTheFlag() throws {
        let h = try ViewerHarness(#"{"a":{"n":10}}"#)
        h.send(.right)
        h.type("R")
        #expect(h.messageArea.contains("start with --rate n"), "\(h.messageArea)")
    }
}
