// A scatter as SVG: a circle a point, at its exact value rather than its dot.

extension Scatter {
    /// The scatter as an SVG document; each circle carries its row (`data-row`).
    public func svg() -> String {
        var document = SVGDocument(x: xScale, y: yScale)
        document.drawLegend(legend, leftOut: leftOut)
        document.drawAxes(x: AxisLabels(xScale, width: 10), y: AxisLabels(yScale, width: 10))
        for (row, point) in points.sorted(by: { $0.key < $1.key }) {
            guard let (_, colour) = placement(of: point),
                  let fx = xScale.fraction(of: point.x), let fy = yScale.fraction(of: point.y) else { continue }
            document.element("circle", [
                "class": "point", "cx": svgNumber(SVGDocument.x(fx)), "cy": svgNumber(SVGDocument.y(fy)), "r": "2.5",
                "fill": legend.isEmpty ? ChartPalette.svgColour(0) : ChartPalette.svgColour(colour), "data-row": row,
            ])
        }
        return document.rendered()
    }
}
