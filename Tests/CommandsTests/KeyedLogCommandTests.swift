// `list --key` and `--delete-when` as a user gives them, run in-process: a JSON Lines file, a command's stream.
import CommandTestSupport
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite("Logs folded by a key, listed")
struct KeyedLogCommandTests {
    private static let records = [
        #"{"type": "ADDED", "metadata": {"name": "web"}, "ready": 0}"#,
        #"{"type": "ADDED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "MODIFIED", "metadata": {"name": "web"}, "ready": 1}"#,
        #"{"type": "DELETED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "BROKEN"}"#,
    ]

    @Test("list --key folds a JSON Lines file, and a command's stream, into one child per key; a record without one is an error row")
    func listFolds() throws {
        let folder = ScratchFolder("keyed-list")
        let file = folder.write("pods.jsonl", Self.records.joined(separator: "\n") + "\n")
        let flags = ["--key", ".metadata.name", "--delete-when", #".type == "DELETED""#, "--format", "jsonl"]
        // In key order: `$4` before `web`.
        let expected = #"{"key":"$4","value":{"$error":{"record":4,"message":"--key .metadata.name gives null, not a string or a number"}}}"# + "\n"
            + #"{"key":"web","value":{"type":"MODIFIED","metadata":{"name":"web"},"ready":1}}"# + "\n"
        let fromFile = try synctable(["list", file] + flags)
        #expect(fromFile.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output == expected)
        let fromCommand = try synctable(["list", "--watch", "1s"] + flags + ["--", "/bin/cat", file])
        #expect(fromCommand.status == 0, "\(fromCommand.errors)")
        #expect(fromCommand.output == expected)
        let alone = try synctable(["list", file, "--delete-when", ".gone"])
        #expect(alone.status == 2 && alone.errors.contains("--delete-when needs --key"), "\(alone.errors)")
    }

    @Test("list --key folds a log longer than a piece read as it reads it, as jq's reduce folds it; an invalid line's error row names its line")
    func foldWhileReading() throws {
        try forEachSeed(4) { seed, rng in
            let records = (0..<rng.int(1_500...4_000)).map { i in
                #"{"k": "k\#(rng.int(0..<300))", "seq": \#(i), "type": "\#(rng.chance(0.1) ? "DELETED" : "MODIFIED")"}"#
            }
            let folder = ScratchFolder("keyed-fold-read")
            let file = folder.write("log.jsonl", records.joined(separator: "\n") + "\n")
            let flags = ["--key", ".k", "--delete-when", #".type == "DELETED""#]
            let listed = try synctable(["list", file, "--format", "jsonl"] + flags)
            #expect(listed.status == 0, "seed \(seed): \(listed.errors)")
            var folded = [String: JSON]()
            for line in listed.output.split(separator: "\n") {
                let row = try JSONDocument(parsing: String(line)).root.json
                folded[row["key"]?.stringValue ?? "?"] = row["value"]
            }
            let step = #"if $r.type == "DELETED" then del(.[$r.k]) else .[$r.k] = $r end"#
            let jq = try runProgram("/usr/bin/jq", ["-c", "-n", "reduce inputs as $r ({}; \(step))", file])
            let expected = try JSONDocument(parsing: jq.output).root.json
            #expect(folded == Dictionary(uniqueKeysWithValues: (expected.objectValue?.members ?? []).map { ($0.key, $0.value) }), "seed \(seed)")
            let counted = try synctable(["list", file, "--count"] + flags)
            #expect(counted.output == "\(folded.count)\n", "seed \(seed)")
            // A line that is not JSON, in a later piece: its error row names its line in the whole log.
            var broken = records
            let bad = rng.int((broken.count / 2)..<broken.count)
            broken[bad] = "{oops"
            let brokenFile = folder.write("broken.jsonl", broken.joined(separator: "\n") + "\n")
            let withError = try synctable(["list", brokenFile, "--key", ".k", "--format", "jsonl"])
            #expect(withError.output.contains(#""key":"$\#(bad)""#) && withError.output.contains(#""line":\#(bad + 1),"#),
                    "seed \(seed): \(withError.output.split(separator: "\n").filter { $0.contains("$error") })")
        }
    }

    @Test("history --key on a journal of a log prints what each recorded revision changed among the keyed children")
    func historyOfAKeyedJournal() throws {
        let folder = ScratchFolder("keyed-journal")
        let journal = folder.write("pods.journal", """
            {"synctable":"journal","version":1,"time":1764900000000,"writer":"other process","value":[{"k":"a","n":1}]}
            {"time":1764900060000,"changes":[["/1",{"k":"b","n":2}]]}
            {"time":1764900120000,"changes":[["/2",{"k":"a","n":5}]]}
            """ + "\n")
        let result = try synctable(["history", journal, "--key", ".k"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            {"revision":2,"time":"2025-12-05T02:01:00.000Z","writer":"other process","event":"added","key":"b","index":1,"new":{"k":"b","n":2}}
            {"revision":3,"time":"2025-12-05T02:02:00.000Z","writer":"other process","event":"changed","key":"a","fromIndex":0,"index":0,"fields":[{"path":"n","old":1,"new":5}]}

            """)
    }
}
