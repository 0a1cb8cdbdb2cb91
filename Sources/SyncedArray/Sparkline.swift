// Numbers as a line of block characters, for a field's recent values.

/// `values` as one block character each, from `▁` (the lowest) to `█` (the highest); a value
/// that is not a number is a space. All equal: the middle block.
public func sparkline(_ values: [Double?]) -> String {
    let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    let numbers = values.compactMap { $0 }.filter(\.isFinite)
    guard let low = numbers.min(), let high = numbers.max() else { return String(repeating: " ", count: values.count) }
    return String(values.map { value in
        guard let value, value.isFinite else { return " " }
        guard high > low else { return blocks[3] }
        return blocks[min(blocks.count - 1, Int((value - low) / (high - low) * Double(blocks.count - 1) + 0.5))]
    })
}
