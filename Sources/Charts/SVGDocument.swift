// SVG written as text: elements with escaped attributes, and a chart's plot area and axes.

/// An SVG picture being written: a fixed 640×400 view with the plot area inside margins for
/// the labels. The plot area's rect carries its scales (`data-x-lower`, `data-x-upper`,
/// `data-x-scale`, the same for y), so a reader can map any coordinate back to data.
public struct SVGDocument {
    public static let width = 640.0
    public static let height = 400.0
    public static let plotLeft = 80.0
    public static let plotTop = 40.0
    public static let plotWidth = 530.0
    public static let plotHeight = 310.0

    private var body: [String] = []
    let xScale: Scale
    let yScale: Scale

    /// A document whose plot area spans `x` across and `y` up.
    public init(x: Scale, y: Scale) {
        xScale = x
        yScale = y
    }

    /// The horizontal coordinate of fraction `f` of the plot area's width.
    public static func x(_ f: Double) -> Double { plotLeft + f * plotWidth }
    /// The vertical coordinate of fraction `f` of the plot area's height, from the bottom.
    public static func y(_ f: Double) -> Double { plotTop + (1 - f) * plotHeight }

    /// Appends `<name attributes>text</name>` (or `<name attributes/>` without text).
    public mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String>, text: String? = nil) {
        var tag = "<" + name
        for (key, value) in attributes { tag += " \(key)=\"\(SVGDocument.escape(value))\"" }
        if let text { tag += ">" + SVGDocument.escape(text) + "</\(name)>" } else { tag += "/>" }
        body.append(tag)
    }

    /// The plot area, its axes, and the labels at both ends and the middle of each.
    public mutating func drawAxes(x: AxisLabels, y: AxisLabels) {
        let left = SVGDocument.plotLeft, top = SVGDocument.plotTop
        let right = left + SVGDocument.plotWidth, bottom = top + SVGDocument.plotHeight
        element("rect", [
            "class": "plot-area", "x": svgNumber(left), "y": svgNumber(top),
            "width": svgNumber(SVGDocument.plotWidth), "height": svgNumber(SVGDocument.plotHeight), "fill": "none",
            "data-x-lower": xScale.lower.description, "data-x-upper": xScale.upper.description, "data-x-scale": xScale.kindName,
            "data-y-lower": yScale.lower.description, "data-y-upper": yScale.upper.description, "data-y-scale": yScale.kindName,
        ])
        element("line", ["class": "axis", "x1": svgNumber(left), "y1": svgNumber(bottom), "x2": svgNumber(right), "y2": svgNumber(bottom), "stroke": "black"])
        element("line", ["class": "axis", "x1": svgNumber(left), "y1": svgNumber(top), "x2": svgNumber(left), "y2": svgNumber(bottom), "stroke": "black"])
        for (f, label) in [(0.0, x.low), (0.5, x.middle), (1.0, x.high)] {
            element("text", ["class": "x-label", "x": svgNumber(SVGDocument.x(f)), "y": svgNumber(bottom + 18),
                             "text-anchor": "middle", "font-size": "12"], text: label)
        }
        for (f, label) in [(0.0, y.low), (0.5, y.middle), (1.0, y.high)] {
            element("text", ["class": "y-label", "x": svgNumber(left - 6), "y": svgNumber(SVGDocument.y(f) + 4),
                             "text-anchor": "end", "font-size": "12"], text: label)
        }
    }

    /// The legend across the top: a square of each entry's colour and its name; then the
    /// left-out note.
    public mutating func drawLegend(_ entries: [LegendEntry], leftOut: LeftOut) {
        var x = SVGDocument.plotLeft
        for entry in entries {
            element("rect", ["class": "legend-swatch", "x": svgNumber(x), "y": "12", "width": "10", "height": "10",
                             "fill": ChartPalette.svgColour(entry.colour)])
            element("text", ["class": "legend", "x": svgNumber(x + 14), "y": "21", "font-size": "12"], text: entry.name)
            x += 24 + 7 * Double(entry.name.count)
        }
        if leftOut.total > 0 {
            element("text", ["class": "left-out", "x": svgNumber(SVGDocument.width - 10), "y": "21", "text-anchor": "end",
                             "font-size": "12"], text: leftOut.note)
        }
    }

    /// The whole document.
    public func rendered() -> String {
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(svgNumber(SVGDocument.width))" height="\(svgNumber(SVGDocument.height))" \
            viewBox="0 0 \(svgNumber(SVGDocument.width)) \(svgNumber(SVGDocument.height))" font-family="sans-serif">
            <rect width="100%" height="100%" fill="white"/>
            """
        return head + "\n" + body.joined(separator: "\n") + "\n</svg>\n"
    }

    /// XML's five special characters escaped, and characters XML 1.0 forbids dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += "&#\(scalar.value);"
            default:
                if scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}

/// A coordinate to a thousandth of a unit: finer than any screen, short in the file.
func svgNumber(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
    return rounded.description
}
