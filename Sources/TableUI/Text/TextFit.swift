// Fitting text into a fixed number of cells: padding, alignment, truncation with an ellipsis.

/// `text` made exactly `width` cells wide: padded with spaces (on the left when
/// `alignRight`), or cut at a grapheme boundary and ended with `ellipsis` when it is
/// too wide. A wide character that would straddle the edge is dropped and the gap
/// padded, so the result never exceeds `width`.
/// - Parameter ellipsis: one cell wide (`…`, or `~` on terminals without UTF-8).
/// - Complexity: O(width) — reading stops as soon as the text is known not to fit.
public func fit(_ text: String, width: Int, alignRight: Bool = false, ellipsis: Character = "…") -> String {
    guard width > 0 else { return "" }
    if let n = printableASCIICount(text) {
        if n <= width {
            let padding = String(repeating: " ", count: width - n)
            return alignRight ? padding + text : text + padding
        }
        var out = String(decoding: text.utf8.prefix(width - 1), as: UTF8.self)
        out.append(ellipsis)
        return out
    }
    var used = 0
    var cutIndex = text.startIndex  // end of the longest prefix that fits in width - 1 cells
    var cutWidth = 0
    var index = text.startIndex
    while index < text.endIndex {
        let character = text[index]
        let w = displayWidth(character)
        if used + w > width {
            // Too wide: keep what fits beside the ellipsis.
            var out = String(text[..<cutIndex])
            out.append(ellipsis)
            let gap = String(repeating: " ", count: width - cutWidth - 1)
            return alignRight ? gap + out : out + gap
        }
        used += w
        index = text.index(after: index)
        if used <= width - 1 {
            cutIndex = index
            cutWidth = used
        }
    }
    let padding = String(repeating: " ", count: width - used)
    return alignRight ? padding + text : text + padding
}
