import Testing
import TableUI
import TestSupport
@testable import Charts

/// Each chart's SVG read by Python's `xml.etree` (so it is well-formed XML), with every
/// mark's coordinates mapped back to data through the scales the plot area carries.
@Suite struct SVGExportTests {
    @Test func scatterPointsMapBackToTheirValues() throws {
        var points: [String: ScatterPoint] = [:]
        for i in 0..<40 {
            points["row \(i) <&\">"] = ScatterPoint(x: Double(i) * 0.37 - 3, y: Double(i * i) * 0.19743416929728977, category: i % 3 == 0 ? "a&b" : "c")
        }
        points["inf"] = ScatterPoint(x: .infinity, y: 1)
        let named = NamedScatter(points, size: CanvasSize(rows: 20, columns: 60))
        let s = named.chart
        let marks = try mappedBack(s.svg { named.names[$0] })
        let circles = marks.filter { $0[0] == "point" }
        #expect(circles.count == 40)
        for mark in circles {
            let point = try #require(points[mark[1]])
            #expect(abs(Double(mark[2])! - point.x) < 1e-4 * (s.xScale.upper - s.xScale.lower), "\(mark)")
            #expect(abs(Double(mark[3])! - point.y) < 1e-4 * (s.yScale.upper - s.yScale.lower), "\(mark)")
        }
        #expect(marks.contains(["text", "legend", "a&b"]))
        #expect(marks.contains(["text", "left-out", "1 left out (1 not finite)"]))
        #expect(marks.contains(["text", "y-label", axisLabel(s.yScale.upper, width: 10)]))
    }

    @Test func histogramBarsMapBackToTheirCountsAndBins() throws {
        let h = Histogram([1, 3, 30, 300, 3000, 3000, 30000, 2e5, .infinity], binCount: 5)
        #expect(h.scale.isLogarithmic)
        let bars = try mappedBack(h.svg()).filter { $0[0] == "bar" }
        #expect(bars.count == 5)
        for (bin, bar) in bars.enumerated() {
            let (lower, upper) = h.edges(of: bin)
            #expect(Int(bar[1]) == h.counts[bin])
            #expect(abs(Double(bar[2])! - Double(h.counts[bin])) < 1e-3, "\(bar)")
            #expect(abs(Double(bar[3])! / lower - 1) < 1e-4, "\(bar)")
            #expect(abs(Double(bar[4])! / upper - 1) < 1e-4, "\(bar)")
        }
    }

    @Test func seriesLinesMapBackToTheirTimesAndValues() throws {
        let start = 1_764_900_000.0
        let lines = [
            TimeLine(name: "alice", points: (0..<30).map { TimePoint(time: start + Double($0) * 61, value: Double($0 % 7) * 1.5) }),
            TimeLine(name: "bob", points: (0..<30).map { TimePoint(time: start + Double($0) * 60, value: Double($0) / 3) }),
        ]
        let series = TimeSeries(lines, position: start + 600)
        let marks = try mappedBack(series.svg())
        for line in lines {
            let mark = try #require(marks.first { $0[0] == "series" && $0[1] == line.name })
            let pairs = mark[2].split(separator: " ").map { $0.split(separator: ",").map { Double($0)! } }
            #expect(pairs.count == line.points.count)
            for (pair, point) in zip(pairs, line.points) {
                #expect(abs(pair[0] - point.time) < 1e-4 * 1800, "\(line.name) \(point)")
                #expect(abs(pair[1] - point.value) < 1e-4 * 10, "\(line.name) \(point)")
            }
        }
        let position = try #require(marks.first { $0[0] == "position" })
        #expect(abs(Double(position[1])! - (start + 600)) < 0.2)
        #expect(marks.contains(["text", "x-label", timeLabel(start, span: series.timeScale.upper - start)]))
    }
}

/// Python: the plot area's scales, and each mark mapped back through them, a line a mark,
/// fields separated by tabs.
private let mapBack = #"""
import sys, math, xml.etree.ElementTree as ET
S = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
area = next(r for r in root.iter(S + 'rect') if r.get('class') == 'plot-area')
L, T, W, H = (float(area.get(k)) for k in ('x', 'y', 'width', 'height'))
def back(axis, f):
    lo, hi = float(area.get('data-%s-lower' % axis)), float(area.get('data-%s-upper' % axis))
    if area.get('data-%s-scale' % axis) == 'log':
        return math.exp(math.log(lo) + f * (math.log(hi) - math.log(lo)))
    return lo + f * (hi - lo)
X = lambda px: back('x', (px - L) / W)
Y = lambda py: back('y', 1 - (py - T) / H)
out = []
for c in root.iter(S + 'circle'):
    out.append(['point', c.get('data-row'), repr(X(float(c.get('cx')))), repr(Y(float(c.get('cy'))))])
for r in root.iter(S + 'rect'):
    if r.get('class') == 'bar':
        y, h = float(r.get('y')), float(r.get('height'))
        out.append(['bar', r.get('data-count'), repr(X(L + float(r.get('width')))), repr(Y(y + h)), repr(Y(y))])
for p in root.iter(S + 'polyline'):
    pts = [tuple(map(float, xy.split(','))) for xy in p.get('points').split()]
    out.append(['series', p.get('data-name'), ' '.join('%r,%r' % (X(x), Y(y)) for x, y in pts)])
for l in root.iter(S + 'line'):
    if l.get('class') == 'position':
        out.append(['position', repr(X(float(l.get('x1'))))])
for t in root.iter(S + 'text'):
    out.append(['text', t.get('class'), t.text])
sys.stdout.write(''.join('\t'.join(f) + '\n' for f in out))
"""#

/// The marks of `svg` as Python maps them back: `point ROW X Y`, `bar COUNT X YLOW YHIGH`,
/// `series NAME X,Y X,Y…`, `position X`, `text CLASS TEXT`.
private func mappedBack(_ svg: String) throws -> [[String]] {
    let folder = ScratchFolder("svg")
    let file = folder.write("chart.svg", svg)
    // The folder is removed when it goes away, so it is kept until Python has read the file.
    let result = try withExtendedLifetime(folder) { try runProgram("/usr/bin/env", ["python3", "-c", mapBack, file]) }
    try #require(result.status == 0, "python3: \(result.errors)")
    return result.output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
}
