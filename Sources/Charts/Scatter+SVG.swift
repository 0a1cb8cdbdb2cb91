// A scatter as SVG: a circle a point, at its exact value rather than its dot.

extension Scatter {
    /// The scatter as an SVG document, slots in order; each circle carries its row's name
    /// (`data-row`, from `name`).
    public func svg(name: (_ slot: Int) -> String) -> String {
        var document = SVGDocument(x: xScale, y: yScale)
        document.drawLegend(legend, leftOut: leftOut)
        document.drawAxes(x: AxisLabels(xScale, width: 10), y: AxisLabels(yScale, width: 10))
        for slot in 0..<slotCount where cell(ofSlot: slot) != nil {
            guard let fx = xScale.fraction(of: xs[slot]), let fy = yScale.fraction(of: ys[slot]) else { continue }
            document.element("circle", [
                "class": "point", "cx": svgNumber(SVGDocument.x(fx)), "cy": svgNumber(SVGDocument.y(fy)), "r": "2.5",
                "fill": ChartPalette.svgColour(colourIndex(ofSlot: slot)), "data-row": name(slot),
            ])
        }
        return document.rendered()
    }
}
