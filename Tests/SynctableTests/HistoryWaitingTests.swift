// `synctable history` on a file that does not change says what it is waiting for.
import Foundation
import Testing
import TestSupport

@Suite struct HistoryWaitingTests {
    @Test("history on a file that does not change prints one line to standard error saying it waits for changes")
    func saysItIsWaiting() throws {
        let folder = ScratchFolder("history-waiting")
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 1)]), to: file, style: .rename)
        let process = try ChildProcess([try synctableBinary(), "history", file, "--path", "/players", "--follow"])
        let expected = "synctable history: waiting for \(file) to change: changes are printed from now on (its past was not recorded: --record FILE keeps it)\n"
        // Each read of standard error takes what came since the last one.
        var said = ""
        #expect(eventually { said += process.standardError(); return said == expected }, "standard error: \(said)")
        // Still one line after the command ends: it is said once, not once per wake-up.
        usleep(300_000)
        process.signal(SIGTERM)
        #expect(process.wait(seconds: 30) == 0)
        said += process.standardError()
        #expect(said == expected)
        #expect(process.readLine(seconds: 1) == nil)
    }
}
