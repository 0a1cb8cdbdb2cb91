// `synctable plot`, run in-process: each kind as text and as SVG, and the columns it refuses.
import CommandTestSupport
import Testing
import TestSupport

@Suite struct PlotCommandTests {
    /// Runs `synctable plot FILE arguments` on a file holding `json`; `svg` is the SVG file's path in the folder.
    private func plot(_ json: String, _ arguments: [String]) throws -> (result: CommandResult, svg: String) {
        let folder = ScratchFolder("plot")
        let file = folder.write("data.json", json)
        let svg = folder.file("chart.svg")
        let arguments = arguments.map { $0 == "SVG" ? svg : $0 }
        let result = try synctable(["plot", file] + arguments)
        return (result, withExtendedLifetime(folder) { folder.read("chart.svg") })
    }

    /// Ten players: scores 10, 20 … 100, levels 1 … 10, every third one "red", a time a minute apart.
    private let players: String = {
        let members = (1...10).map { i in
            #""p\#(i)": {"score": \#(i * 10), "level": \#(i), "team": "\#(i % 3 == 0 ? "red" : "blue")", "at": \#(1_764_900_000 + i * 60)}"#
        }
        return #"{"players": {"# + members.joined(separator: ", ") + "}}"
    }()

    @Test func histogramPrintsBarsAndCounts() throws {
        let (r, _) = try plot(players, ["--path", "/players", "--kind", "histogram", "--x", "score", "--bins", "5",
                                        "--width", "40", "--height", "10"])
        #expect(r.status == 0, "\(r.errors)")
        let lines = r.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 11)  // ten lines and the end
        // Five bins of two scores each: five equal bars, each labelled 2.
        #expect(lines.filter { $0.contains("█ 2") }.count == 5, "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("100│") })
    }

    @Test func scatterWritesSVGWithAPointPerRow() throws {
        let (r, svg) = try plot(players, ["--path", "/players", "--kind", "scatter", "--x", "score", "--y", "level",
                                          "--color", "team", "--svg", "SVG"])
        #expect(r.status == 0 && r.output.isEmpty, "\(r.errors)")
        #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == 10)
        #expect(svg.contains(#"data-row="p7""#) && svg.contains(">red</text>"))
    }

    @Test func seriesLabelsTheTimes() throws {
        let (r, _) = try plot(players, ["--path", "/players", "--kind", "series", "--x", "at", "--y", "score", "--by", "team",
                                        "--width", "60", "--height", "12"])
        #expect(r.status == 0, "\(r.errors)")
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("■ blue  ■ red") == true, "\(r.output)")
        // 2025-12-05 02:01 to 02:10 UTC: a span under an hour, to the second.
        #expect(lines.last?.contains("02:01:00") == true && lines.last?.hasSuffix("02:10:00") == true, "\(r.output)")
    }

    @Test func aColumnNoChildHasExitsTwoNamingIt() throws {
        let (r, _) = try plot(players, ["--path", "/players", "--kind", "scatter", "--x", "score", "--y", "levle"])
        #expect(r.status == 2)
        #expect(r.errors == "synctable: error: --y: no column 'levle' in the 10 children\n")
    }

    @Test func aColumnWithoutTwoNumbersSaysSoInOneLine() throws {
        let (words, _) = try plot(players, ["--path", "/players", "--kind", "histogram", "--x", "team"])
        #expect(words.status == 1)
        #expect(words.errors == "synctable: error: column 'team': no numbers to plot\n")
        let (one, _) = try plot(#"{"a": {"v": 1}, "b": {"v": "x"}}"#, ["--kind", "histogram", "--x", "v"])
        #expect(one.status == 1)
        #expect(one.errors == "synctable: error: column 'v': only one point; a chart needs two\n")
        let (apart, _) = try plot(#"{"a": {"x": 1}, "b": {"y": 2}}"#, ["--kind", "scatter", "--x", "x", "--y", "y"])
        #expect(apart.status == 1)
        #expect(apart.errors == "synctable: error: columns 'x' and 'y': no rows with numbers in both to plot\n")
    }
}
