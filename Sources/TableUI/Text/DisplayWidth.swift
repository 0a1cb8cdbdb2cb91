// How many terminal cells text occupies, computed from Unicode data rather than the C
// library's `wcwidth`, so layout does not depend on the locale or the libc version.
//
// The rules follow modern terminals: East Asian Wide and Fullwidth characters take two
// cells; combining and enclosing marks, format characters (ZWJ, bidi marks, tags) and
// Hangul medial/final jamo take none; an emoji with VS16, a ZWJ emoji sequence, an
// emoji with a skin-tone modifier and a regional-indicator pair (a flag) take two; VS15
// asks for the one-cell text presentation. Ambiguous-width characters (…, ↑, ▶) take one.

/// The number of terminal cells `text` occupies.
/// - Complexity: O(n) in the length of `text`.
public func displayWidth(_ text: some StringProtocol) -> Int {
    if let n = printableASCIICount(text) { return n }
    var total = 0
    for character in text { total += displayWidth(character) }
    return total
}

/// The number of terminal cells one grapheme cluster occupies (0, 1 or 2 for anything
/// a terminal draws as one glyph; a cluster of several spacing letters adds them up).
public func displayWidth(_ character: Character) -> Int {
    if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F ? 1 : 0 }
    var scalars = character.unicodeScalars.makeIterator()
    guard let base = scalars.next() else { return 0 }
    var width = scalarWidth(base)
    // One scalar (a braille dot, a box line, a letter): no emoji rule applies, and its
    // properties are not looked up.
    var rest = scalars
    guard rest.next() != nil else { return width }
    let baseIsEmoji = base.properties.isEmoji
    var afterJoiner = false
    while let s = scalars.next() {
        switch s.value {
        case 0xFE0F:  // VS16: emoji presentation
            if baseIsEmoji { width = max(width, 2) }
        case 0xFE0E:  // VS15: text presentation
            if baseIsEmoji { width = 1 }
        case 0x200D:  // ZWJ
            afterJoiner = true
            continue
        default:
            if afterJoiner && baseIsEmoji && s.properties.isEmoji {
                width = max(width, 2)  // joined into the emoji before it
            } else if isRegionalIndicator(s) && isRegionalIndicator(base) {
                width = 2  // a flag
            } else if s.properties.isEmojiModifier && baseIsEmoji {
                width = max(width, 2)
            } else {
                width += scalarWidth(s)
            }
        }
        afterJoiner = false
    }
    return width
}

/// The cells of one scalar on its own: 0 for controls and zero-width characters,
/// 2 for wide ones, 1 otherwise.
func scalarWidth(_ s: Unicode.Scalar) -> Int {
    let v = s.value
    if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
    if v < 0x300 { return 1 }
    if isWide(v) { return 2 }
    // Box drawing, blocks, shapes, symbols, dingbats and braille (what charts draw): no mark or
    // format character among them, so no property look-up.
    if (0x2500...0x28FF).contains(v) { return 1 }
    if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }  // Hangul medial/final jamo
    switch s.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    case .lineSeparator, .paragraphSeparator: return 0
    default: return 1
    }
}

/// Whether the scalar's East Asian Width is Wide or Fullwidth.
/// - Complexity: O(log r) over the ~120 ranges of the table.
func isWide(_ v: UInt32) -> Bool {
    if v < 0x1100 { return false }
    var lo = 0
    var hi = wideScalarRanges.count - 1
    while lo <= hi {
        let mid = (lo + hi) / 2
        let (a, b) = wideScalarRanges[mid]
        if v < a { hi = mid - 1 } else if v > b { lo = mid + 1 } else { return true }
    }
    return false
}

func isRegionalIndicator(_ s: Unicode.Scalar) -> Bool { (0x1F1E6...0x1F1FF).contains(s.value) }

/// The length of `text` when it is all printable ASCII (one cell per byte), else nil: the
/// common case, measured without grapheme breaking.
@inline(__always)
func printableASCIICount(_ text: some StringProtocol) -> Int? {
    var n = 0
    for byte in text.utf8 {
        guard byte >= 0x20 && byte < 0x7F else { return nil }
        n += 1
    }
    return n
}
