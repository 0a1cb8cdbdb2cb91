// `list --computed` in every format, `--columns` naming a computed column, `list --explain`,
// and filters and orders libjq runs — run in-process.
import CommandTestSupport
import JSONTree
import Testing
import TestSupport

@Suite struct ListComputedCommandTests {
    static let packages = #"""
        {"packages": {
          "a": {"package": "x", "depends": ["q", "r"], "tags": ["ab", "ac", "ad"]},
          "b": {"package": "y", "depends": [], "tags": ["b", "ab"]},
          "c": {"package": "z", "depends": true, "tags": ["a1", "a2", "a3", "b"]}
        }}
        """#

    func run(_ arguments: [String]) throws -> CommandResult {
        let folder = ScratchFolder("list-computed")
        let file = folder.write("packages.json", Self.packages)
        return try synctable(["list", file, "--path", "/packages"] + arguments)
    }

    @Test("--computed is a column in every format; a row it fails on shows ⚠ and the message")
    func computedInEveryFormat() throws {
        let flags = ["--computed", "nd = .depends | length", "--computed", "firsts = [.depends[]] | first"]
        let csv = try run(flags + ["--format", "csv", "--columns", "package"])
        #expect(csv.status == 0, "\(csv.errors)")
        #expect(csv.output == "key,package,nd,firsts\r\na,x,2,q\r\nb,y,0,\r\nc,z,⚠ boolean (true) has no length,⚠ Cannot iterate over boolean (true)\r\n")
        let tsv = try run(flags + ["--format", "tsv", "--columns", "package"])
        #expect(tsv.output.split(separator: "\n").first == "key\tpackage\tnd\tfirsts")
        #expect(tsv.output.contains("a\tx\t2\tq\n"))
        // Without --columns: after the inferred columns.
        let inferred = try run(flags + ["--format", "csv"])
        #expect(inferred.output.hasPrefix("key,package,depends,tags,nd,firsts\r\n"), "\(inferred.output)")
        let table = try run(flags + ["--format", "table", "--columns", "package"])
        let header = table.output.split(separator: "\n").first.map { $0.split(separator: " ") }
        #expect(header == ["key", "package", "nd", "firsts"], "\(table.output)")
        #expect(table.output.contains("⚠ boolean (true) has no length"))
        // JSON: with --columns, the fields of the projected value; without, a `computed` object.
        let projected = try run(flags + ["--format", "jsonl", "--columns", "package,nd"])
        let first = try JSONDocument(parsing: String(projected.output.split(separator: "\n")[0])).root.json
        #expect(first == ["key": "a", "value": ["package": "x", "nd": 2, "firsts": "q"]], "\(projected.output)")
        let whole = try run(flags + ["--format", "json"])
        let rows = try JSONDocument(parsing: whole.output).root.json.arrayValue ?? []
        #expect(rows.count == 3)
        #expect(rows.first?["computed"] == ["nd": 2, "firsts": "q"], "\(whole.output)")
        #expect(rows.first?["value"]?["package"] == "x")
        #expect(rows.last?["computed"]?["nd"] == "⚠ boolean (true) has no length")
    }

    @Test("--columns may name a computed column: its place, not an empty member")
    func columnsNameAComputedColumn() throws {
        let r = try run(["--computed", "nd = .depends | length", "--columns", "nd,package", "--format", "csv"])
        #expect(r.status == 0 && r.errors.isEmpty, "\(r.errors)")
        #expect(r.output == "key,nd,package\r\na,2,x\r\nb,0,y\r\nc,⚠ boolean (true) has no length,z\r\n")
    }

    @Test("--where and --order-by-computed take any jq expression; --explain says which evaluator runs each")
    func libjqFiltersOrdersAndExplain() throws {
        let filter = #".tags | map(select(startswith("a"))) | length > 2"#
        let kept = try run(["--where", filter, "--format", "jsonl"])
        #expect(kept.status == 0, "\(kept.errors)")
        let keys = kept.output.split(separator: "\n").compactMap { try? JSONDocument(parsing: String($0)).root.json["key"]?.stringValue }
        #expect(keys == ["a", "c"])
        let ordered = try run(["--order-by-computed", "[.tags[] | select(startswith(\"a\"))] | -length", "--format", "jsonl"])
        let order = ordered.output.split(separator: "\n").compactMap { try? JSONDocument(parsing: String($0)).root.json["key"]?.stringValue }
        // a and c have three each (ties by key), b one.
        #expect(order == ["a", "c", "b"], "\(ordered.errors)")

        let explain = try run(["--where", filter, "--order-by-computed", "nd", "--computed", "nd = .depends | length",
                               "--computed", "firsts = [.depends[]] | first", "--explain"])
        #expect(explain.status == 0, "\(explain.errors)")
        #expect(explain.output == """
            --where \(JSON.string(filter).serializedString()): jq (libjq 1.6, run on each child's value)
            --order-by-computed "nd = .depends | length": native (the subset, read on the document)
            --computed "nd = .depends | length": native (the subset, read on the document)
            --computed "firsts = [.depends[]] | first": jq (libjq 1.6, run on each child's value)

            """, "\(explain.output)")
        let none = try run(["--explain"])
        #expect(none.output == "no expressions: the query runs without an evaluator\n")
    }
}
