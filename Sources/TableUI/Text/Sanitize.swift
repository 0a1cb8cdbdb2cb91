// Untrusted text made safe to draw: nothing from a cell may reach the terminal raw.

/// Text safe to draw on a terminal, with every dangerous scalar shown as a visible escape:
/// - C0 controls and DEL: `\n`, `\t`, `\r`, others `\xHH` (`\x1b`, `\x00`, `\x7f`);
/// - C1 controls (U+0080–U+009F): `\u0085`;
/// - bidirectional overrides, embeddings, isolates and marks (U+202A–U+202E, U+2066–U+2069,
///   U+200E, U+200F, U+061C) are neutralised by showing them as escapes (`\u202e`), so a
///   cell cannot reorder the text around it and the trick stays visible;
/// - line and paragraph separators (U+2028, U+2029) as escapes too, since terminals may
///   treat them as line breaks;
/// - invisible format characters (general category Cf: soft hyphen, zero-width space, word
///   joiner, BOM, interlinear annotation U+FFF9–U+FFFB, tag characters U+E0000–U+E007F, …)
///   as escapes (`\ufff9`, `\u{e0041}`), so text cannot hide in a cell; but for the joiners
///   U+200C and U+200D, which shape the visible text around them (emoji sequences, Indic and
///   Persian words).
/// A combining mark at the very start (which would attach to the previous cell) gets a
/// dotted-circle base `◌`. Backslashes are left as they are.
/// - Complexity: O(n) in the length of `text`.
public func sanitize(_ text: some StringProtocol) -> String {
    sanitize(text, scalarLimit: Int.max)
}

/// `sanitize(_:)` for raw UTF-8 bytes: invalid sequences become U+FFFD first.
public func sanitize(_ bytes: some Collection<UInt8>) -> String {
    sanitize(String(decoding: bytes, as: UTF8.self))
}

/// `sanitize(_:)` that reads at most `scalarLimit` scalars of `text` and ends with `…`
/// when it stopped early, so a huge cell costs no more than what can be shown.
func sanitize(_ text: some StringProtocol, scalarLimit: Int) -> String {
    if let n = printableASCIICount(text), n <= scalarLimit { return String(text) }
    var out = String.UnicodeScalarView()
    var read = 0
    var first = true
    for s in text.unicodeScalars {
        if read == scalarLimit {
            out.append("…")
            break
        }
        read += 1
        if first {
            first = false
            let category = s.properties.generalCategory
            if category == .nonspacingMark || category == .enclosingMark || category == .spacingMark {
                out.append("\u{25CC}")
            }
        }
        switch s.value {
        case 0x0A: out.append(contentsOf: "\\n".unicodeScalars)
        case 0x09: out.append(contentsOf: "\\t".unicodeScalars)
        case 0x0D: out.append(contentsOf: "\\r".unicodeScalars)
        case 0x00..<0x20, 0x7F: appendEscape(&out, "x", s.value, digits: 2)
        case 0x80..<0xA0: appendEscape(&out, "u", s.value, digits: 4)
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x2029:
            appendEscape(&out, "u", s.value, digits: 4)
        case 0xAD... where isInvisibleFormat(s):
            if s.value <= 0xFFFF {
                appendEscape(&out, "u", s.value, digits: 4)
            } else {
                out.append(contentsOf: "\\u{".unicodeScalars)
                out.append(contentsOf: String(s.value, radix: 16).unicodeScalars)
                out.append("}")
            }
        default: out.append(s)
        }
    }
    return String(out)
}

/// Whether `scalar` is an invisible format character that `sanitize` shows as an escape: general
/// category Cf but for the joiners U+200C and U+200D (bidirectional controls are Cf too).
public func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0xAD && scalar.value != 0x200C && scalar.value != 0x200D && scalar.properties.generalCategory == .format
}

private func appendEscape(_ out: inout String.UnicodeScalarView, _ letter: String, _ value: UInt32, digits: Int) {
    out.append("\\")
    out.append(contentsOf: letter.unicodeScalars)
    for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
        out.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)])
    }
}

private let hexDigits = Array("0123456789abcdef".unicodeScalars)
