// A histogram as SVG: a horizontal bar a bin, its length the count, its count at its end.

extension Histogram {
    /// The histogram as an SVG document. The plot area's x scale runs from 0 to the largest
    /// count; each bar carries its bin's count and edges (`data-count`, `data-lower`, `data-upper`).
    public func svg() -> String {
        let largest = max(1, counts.max() ?? 0)
        let countScale = Scale(lower: 0, upper: Double(largest))
        var document = SVGDocument(x: countScale, y: scale)
        document.drawLegend([], leftOut: leftOut)
        document.drawAxes(x: AxisLabels(countScale, width: 10), y: AxisLabels(scale, width: 10))
        for (bin, count) in counts.enumerated() {
            let (lower, upper) = edges(of: bin)
            let top = SVGDocument.y(Double(bin + 1) / Double(binCount))
            let height = SVGDocument.y(Double(bin) / Double(binCount)) - top
            let width = Double(count) / Double(largest) * SVGDocument.plotWidth
            document.element("rect", [
                "class": "bar", "x": svgNumber(SVGDocument.plotLeft), "y": svgNumber(top), "width": svgNumber(width),
                "height": svgNumber(height), "fill": ChartPalette.svgColour(0),
                "data-count": String(count), "data-lower": lower.description, "data-upper": upper.description,
            ])
            if count > 0 {
                document.element("text", ["class": "count", "x": svgNumber(SVGDocument.plotLeft + width + 4),
                                          "y": svgNumber(top + height / 2 + 4), "font-size": "11"], text: String(count))
            }
        }
        return document.rendered()
    }
}
