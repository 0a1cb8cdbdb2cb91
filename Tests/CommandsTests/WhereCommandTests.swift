// `--where` on `list` and `events`, `--order-by-computed`, `list --count` and `list --format csv`,
// run in-process.
import CommandTestSupport
import JSONTree
import Testing
import TestSupport

@Suite struct WhereCommandTests {
    static let players = #"""
        {"players": {
          "ann": {"name": "Ann", "score": 12, "team": "a"},
          "bob": {"name": "Bob, \"B\"", "score": 50, "team": "b"},
          "cy": {"name": "Cy\nline", "score": 30, "team": "a"},
          "dee": {"name": "Dee", "score": 70, "team": "a"},
          "eve": {"name": "Eve", "score": 90, "team": "b"}
        }}
        """#

    func run(_ arguments: [String]) throws -> CommandResult {
        let folder = ScratchFolder("where")
        let file = folder.write("players.json", Self.players)
        return try synctable(arguments.map { $0 == "FILE" ? file : $0 })
    }

    func keys(_ jsonl: String) throws -> [String] {
        try jsonl.split(separator: "\n").map { try JSONDocument(parsing: String($0)).root.json["key"]?.stringValue ?? "?" }
    }

    @Test func whereKeepsChildrenAndALimitCountsThem() throws {
        let all = try run(["list", "FILE", "--path", "/players", "--where", #".team == "a""#, "--format", "jsonl"])
        #expect(all.status == 0)
        #expect(try keys(all.output) == ["ann", "cy", "dee"])
        // The query orders and ranges, the filter keeps, the limit counts what it kept.
        let top = try run(["list", "FILE", "--path", "/players", "--order-by-child", "score", "--start-at", "20",
                           "--limit-to-last", "2", "--where", #".team == "a""#, "--format", "jsonl"])
        #expect(try keys(top.output) == ["cy", "dee"])
        let count = try run(["list", "FILE", "--path", "/players", "--where", ".score > 20 and .team == \"a\"", "--count"])
        #expect(count.output == "2\n")
    }

    @Test func badExpressionsAreFlagErrors() throws {
        let bad = try run(["list", "FILE", "--path", "/players", "--where", ".score >"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--where: jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score >"), "\(bad.errors)")
        let undefined = try run(["events", "FILE", "--where", "reduce .[] as $x (0; f($x))"])
        #expect(undefined.status == 2)
        #expect(undefined.errors.contains("--where: jq: error: f/1 is not defined at <top-level>, line 1: reduce .[] as $x (0; f($x))"),
                "\(undefined.errors)")
    }

    /// Issue 47: `test` backtracked (over 100 s for these 41 characters); on RE2 it answers at once.
    @Test func aPathologicalPatternAnswersQuickly() throws {
        let folder = ScratchFolder("where")
        let file = folder.write("names.json", #"{"a": {"name": "\#(String(repeating: "a", count: 40))b"}, "b": {"name": "aaa"}}"#)
        let start = ContinuousClock.now
        let result = try synctable(["list", file, "--where", #".name | test("^(a+)+$")"#, "--format", "jsonl"])
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(result.status == 0)
        #expect(try keys(result.output) == ["b"])
    }

    /// The order of an expression is jq's `sort_by` of it, ties by key; bounds and limits apply to its values.
    @Test(arguments: [".score", "-.score", ".name | ascii_downcase", ".team + .name", ".score % 40", ".missing"])
    func anExpressionOrdersAsJqSortsByIt(expression: String) throws {
        // `--flag=value`: a value may start with `-`.
        let ours = try run(["list", "FILE", "--path", "/players", "--order-by-computed=\(expression)", "--format", "jsonl"])
        #expect(ours.status == 0, "\(ours.errors)")
        let folder = ScratchFolder("computed-order")
        let file = folder.write("players.json", Self.players)
        let jq = try runProgram("/usr/bin/jq", ["-c", ".players | to_entries | sort_by((.value | \(expression)), .key) | map(.key)", file])
        #expect(try keys(ours.output) == (try JSONDocument(parsing: jq.output).root.json.arrayValue?.compactMap(\.stringValue) ?? ["jq: \(jq.errors)"]))
    }

    @Test func aComputedOrderTakesBoundsAndNamesItsErrors() throws {
        let top = try run(["list", "FILE", "--path", "/players", "--order-by-computed", ".score / 10", "--start-at", "3",
                           "--limit-to-first", "2", "--format", "jsonl"])
        #expect(try keys(top.output) == ["cy", "bob"])
        let bad = try run(["list", "FILE", "--path", "/players", "--order-by-computed", ".score /"])
        #expect(bad.status == 2 && bad.errors.contains("--order-by-computed: jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score /"), "\(bad.errors)")
        let unnamed = try run(["list", "FILE", "--path", "/players", "--order-by-computed", "ratio"])
        #expect(unnamed.status == 2 && unnamed.errors.contains("no computed column is named ratio"), "\(unnamed.errors)")
        let two = try run(["list", "FILE", "--path", "/players", "--order-by-computed", ".score", "--order-by-key"])
        #expect(two.status == 2 && two.errors.contains("a query has one ordering"), "\(two.errors)")
    }

    @Test func eventsFollowOnlyTheChildrenKept() throws {
        let r = try run(["events", "FILE", "--path", "/players", "--where", ".score >= 50", "--exit-after-revisions", "1"])
        #expect(r.status == 0)
        let added = r.output.split(separator: "\n").compactMap { line -> String? in
            let event = try? JSONDocument(parsing: String(line)).root.json
            return event?["event"] == "child_added" ? event?["key"]?.stringValue : nil
        }
        #expect(added == ["bob", "dee", "eve"])
    }

    /// CSV as RFC 4180 quotes it, read back by Python's csv module.
    @Test func csvQuotesAsRFC4180() throws {
        let r = try run(["list", "FILE", "--path", "/players", "--format", "csv", "--columns", "name,score"])
        #expect(r.status == 0)
        #expect(r.output.hasPrefix("key,name,score\r\nann,Ann,12\r\nbob,\"Bob, \"\"B\"\"\",50\r\ncy,\"Cy\nline\",30\r\n"))
        let folder = ScratchFolder("where-csv")
        let file = folder.write("out.csv", r.output)
        let read = try runProgram("/usr/bin/python3", ["-c", "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))", file])
        let rows = try JSONDocument(parsing: read.output).root.json
        #expect(rows == [["key", "name", "score"], ["ann", "Ann", "12"], ["bob", #"Bob, "B""#, "50"], ["cy", "Cy\nline", "30"],
                         ["dee", "Dee", "70"], ["eve", "Eve", "90"]])
    }
}
