// `synctable replay`: a journal in the viewer, at its last revision, with the time machine and the
// timelines over the whole recording (what a user sees).
import Testing
import TestSupport

@Suite struct ReplayTerminalTests {
    @Test("replay opens a journal at its last revision; [ steps back through it; T shows a row's recorded timeline")
    func replayStepsBackAndShowsTheTimeline() throws {
        let folder = ScratchFolder("replay")
        let journal = folder.write("scores.journal", """
            {"synctable":"journal","version":1,"time":1764900000000,"writer":"other process","value":{"players":{"a":{"score":10},"b":{"score":500}}}}
            {"time":1764900060000,"writer":"other process","changes":[["/players/a/score",20]]}
            {"time":1764900120000,"writer":"other process","changes":[["/players/a/score",30],["/players/c",{"score":7}]]}

            """)
        let session = try TmuxSession(viewer: try viewerCommand(["replay", journal, "--path", "/players"]), width: 100, height: 12)
        try session.waitFor("the last revision") { $0.line(ofKey: "a") != nil && $0.line(ofKey: "c") != nil && $0.contains("30") }
        try session.type("[")
        try session.waitFor("one revision back, its change held") {
            $0.contains("HISTORY rev 2 of 3") && $0.contains("10 → 20") && $0.contains("by other process")
        }
        try session.type("P")
        try session.waitFor("the present") { !$0.contains("HISTORY") }
        try session.type("T")
        try session.waitFor("a's timeline: every recorded revision") {
            $0.contains("timeline of a") && $0.lines.filter { $0.contains("changed") }.count == 2
        }
        try session.send("q")
        try session.send("q")
        try session.waitFor("exit", history: true) { $0.contains("EXITED 0") }
    }

    @Test("replay of a file that is not a journal: exit status 2 naming its line and column")
    func notAJournal() throws {
        let folder = ScratchFolder("replay-not")
        let file = folder.write("data.json", "{\"a\" 1}\n")
        let result = try runProgram(try synctableBinary(), ["replay", file])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("\(file):1:6: error: not a SyncTable journal: expected ':'"), "\(result.errors)")
    }
}
