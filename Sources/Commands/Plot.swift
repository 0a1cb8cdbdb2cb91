// `synctable plot`: a histogram, scatter or time series of a query's children, as text or SVG.
import ArgumentParser
import Charts
import FileStore
import Headless
import JSONTree
import LiveQuery
import TableUI

/// `synctable plot FILE [--path P] [query flags] --kind histogram|scatter|series --x COL [--y COL] [--svg OUT]`.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a chart of the children a query selects.",
        discussion: """
            histogram: the numbers of --x in bins (logarithmic when the positive ones span more than \
            three orders of magnitude and none is negative). scatter: --x against --y, coloured by --color. series: --y over the times of \
            --x (seconds since 1970, or milliseconds), one line per value of --by (the --top largest). \
            Prints the chart as text, or writes it as SVG with --svg. Exit status: 2 for a bad flag or \
            a column no child has, 1 when a column has fewer than two numbers to plot.
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case histogram, scatter, series
    }

    @Argument(help: "The JSON file ('-' for standard input), or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions

    @Option(help: "The kind of chart.")
    var kind: Kind

    @Option(help: ArgumentHelp("The column across: the values (histogram), x (scatter) or the times (series).", valueName: "path"))
    var x: String

    @Option(help: ArgumentHelp("The column up (scatter, series).", valueName: "path"))
    var y: String?

    @Option(help: ArgumentHelp("scatter: colour the points by this column's values.", valueName: "path"))
    var color: String?

    @Option(help: ArgumentHelp("series: one line per value of this column.", valueName: "path"))
    var by: String?

    @Option(help: "series: how many lines, those with the largest last values.")
    var top: Int = 5

    @Option(help: "histogram: how many bins (default: one a line, at most 20).")
    var bins: Int?

    @Option(help: "The text chart's characters: braille, blocks or ascii.")
    var marker: Marker = .braille

    @Option(help: "The text chart's width in cells.")
    var width: Int = 80

    @Option(help: "The text chart's height in lines.")
    var height: Int = 24

    @Option(help: ArgumentHelp("Write the chart as SVG to this file instead of printing it.", valueName: "file"))
    var svg: String?

    @Option(help: ArgumentHelp("Refuse standard input longer than this many bytes.", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

    func validate() throws {
        guard width >= 12, height >= 5 else { throw ValidationError("--width must be at least 12 and --height at least 5") }
        guard top >= 1 else { throw ValidationError("--top must be at least 1") }
        if let bins, bins < 1 || bins > height - 3 { throw ValidationError("--bins must be between 1 and --height minus 3 (\(height - 3))") }
        if kind != .histogram, y == nil { throw ValidationError("--kind \(kind.rawValue) needs --y") }
    }

    func run() throws {
        let path: Path
        let query: Query
        do { (path, query) = try self.query.resolved() } catch { throw CommandError("\(error)") }
        let columns = PlotColumns(rows: Array(try window(path: path, query: query)))
        let size = CanvasSize(rows: height, columns: width)
        let (text, picture): (CellGrid, String)
        switch kind {
        case .histogram: (text, picture) = try columns.histogram(x: x, bins: bins, size: size)
        case .scatter: (text, picture) = try columns.scatter(x: x, y: y!, color: color, marker: marker, size: size)
        case .series: (text, picture) = try columns.series(x: x, y: y!, by: by, top: top, marker: marker, size: size)
        }
        if let svg {
            try writeWholeFile(svg, Array(picture.utf8), replacing: true)
        } else {
            writeOut(Array((text.lines.joined(separator: "\n") + "\n").utf8))
        }
    }

    /// The children the query selects, from the file (as `list` reads it) or the database URL.
    private func window(path: Path, query: Query) throws(CommandError) -> Window {
        if let url = try databaseURL(file) { return try remoteWindow(url, remote.credential, path: path, query: query) }
        let reading: FileStore.Format = file == "-" ? (input.input == .jsonl ? .jsonLines : .json) : input.format(of: file)
        let document = try readDocument(file, format: reading, path: path, query: query, maxSize: maxSize, valuesAllowed: input.input != .json)
        return Window(query: query, path: path, document: document)
    }
}

extension Marker: ExpressibleByArgument {}
