// Time series as SVG: a polyline a series, through its exact values, and the marked moment.

extension TimeSeries {
    /// The series as an SVG document; each polyline carries its series' name (`data-name`),
    /// the marked moment is a line of class `position`.
    public func svg() -> String {
        var document = SVGDocument(x: timeScale, y: valueScale)
        document.drawLegend(legend, leftOut: leftOut)
        document.drawAxes(x: timeLabels(timeScale), y: AxisLabels(valueScale, width: 10))
        for (index, line) in lines.enumerated() {
            let coordinates = line.points.compactMap { p -> String? in
                guard let fx = timeScale.fraction(of: p.time), let fy = valueScale.fraction(of: p.value) else { return nil }
                return svgNumber(SVGDocument.x(fx)) + "," + svgNumber(SVGDocument.y(fy))
            }
            document.element("polyline", ["class": "series", "points": coordinates.joined(separator: " "), "fill": "none",
                                          "stroke": ChartPalette.svgColour(index), "data-name": line.name])
        }
        if let fx = position.flatMap({ timeScale.fraction(of: $0) }) {
            let x = svgNumber(SVGDocument.x(fx))
            document.element("line", ["class": "position", "x1": x, "y1": svgNumber(SVGDocument.plotTop), "x2": x,
                                      "y2": svgNumber(SVGDocument.plotTop + SVGDocument.plotHeight), "stroke": "black",
                                      "stroke-dasharray": "4 3"])
        }
        return document.rendered()
    }
}
