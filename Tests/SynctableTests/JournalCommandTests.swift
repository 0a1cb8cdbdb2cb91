// `history` and `list` on a journal (written by --record): the recording printed headless and
// cut by time; a torn last line is a warning naming it; --rate where list reads once is refused.
import JSONTree
import Testing
import TestSupport

@Suite struct JournalCommandTests {
    /// Three revisions a minute apart, then a line cut short by a killed writer.
    private func journal(_ folder: ScratchFolder) -> String {
        folder.write("scores.journal", """
            {"synctable":"journal","version":1,"time":1764900000000,"writer":"other process","value":{"players":{"a":{"score":10},"b":{"score":500}}}}
            {"time":1764900060000,"writer":"network","changes":[["/players/a/score",20]]}
            {"time":1764900120000,"writer":"other process","changes":[["/players/b"]]}
            {"time":1764900180000,"changes":[["/players/a/sc
            """)
    }

    @Test("history on a journal prints every recorded change with its time and writer, warns of the torn line, and exits")
    func historyPrintsTheRecording() throws {
        let folder = ScratchFolder("journal-history")
        let file = journal(folder)
        let result = try runProgram(try synctableBinary(), ["history", file, "--path", "/players"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            {"revision":2,"time":"2025-12-05T02:01:00.000Z","writer":"network","event":"changed","key":"a","fromIndex":0,"index":0,"fields":[{"path":"score","old":10,"new":20}]}
            {"revision":3,"time":"2025-12-05T02:02:00.000Z","writer":"other process","event":"removed","key":"b","fromIndex":1,"old":{"score":500}}

            """)
        #expect(result.errors == "synctable: warning: \(file): line 4 was cut short (its writer stopped mid-line) and is left out\n")
        // --since cuts it: the state at 02:01:30 (revision 2's) is the first revision.
        let cut = try runProgram(try synctableBinary(), ["history", file, "--path", "/players", "--since", "2025-12-05T02:01:30Z"])
        #expect(cut.status == 0, "\(cut.errors)")
        #expect(cut.output.split(separator: "\n").count == 1 && cut.output.contains(#""event":"removed","key":"b""#), "\(cut.output)")
        // list prints its last revision.
        let list = try runProgram(try synctableBinary(), ["list", file, "--path", "/players", "--format", "jsonl"])
        #expect(list.output == #"{"key":"a","value":{"score":20}}"# + "\n", "\(list.errors)")
    }

    @Test("--rate on a source read once, and --since on a file that is not a journal, are refused in words")
    func refusals() throws {
        let folder = ScratchFolder("journal-refusals")
        let file = folder.write("data.json", #"{"a":{"n":1}}"#)
        let rate = try runProgram(try synctableBinary(), ["list", file, "--rate", "n"])
        #expect(rate.status == 2)
        #expect(rate.errors.hasPrefix("synctable: error: --rate needs two revisions and list reads one"), "\(rate.errors)")
        let since = try runProgram(try synctableBinary(), ["history", file, "--since", "03:00"])
        #expect(since.status == 2)
        #expect(since.errors.hasPrefix("synctable: error: --since and --until cut a journal"), "\(since.errors)")
    }
}
