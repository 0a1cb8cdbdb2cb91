// Comments in a rules file: `// …` to the end of the line and `/* … */`, as the Firebase CLI
// reads `database.rules.json` (it strips them before parsing the JSON).

enum RulesComments {
    /// `source` with each comment's bytes made spaces (its newlines kept), so that every
    /// other byte keeps its offset, line and column for error messages.
    /// - Throws: `RulesError` for a `/*` that is never closed.
    static func blanked(_ source: [UInt8]) throws(RulesError) -> [UInt8] {
        var out = source
        var i = 0
        var inString = false
        while i < out.count {
            let b = out[i]
            if inString {
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") {
                inString = true
                i += 1
                continue
            }
            guard b == UInt8(ascii: "/"), i + 1 < out.count else { i += 1; continue }
            if out[i + 1] == UInt8(ascii: "/") {
                while i < out.count && out[i] != 0x0A { out[i] = 0x20; i += 1 }
            } else if out[i + 1] == UInt8(ascii: "*") {
                let start = i
                out[i] = 0x20
                out[i + 1] = 0x20
                i += 2
                while true {
                    guard i < out.count else { throw RulesError("a /* comment is not closed", at: start, in: source) }
                    if out[i] == UInt8(ascii: "*"), i + 1 < out.count, out[i + 1] == UInt8(ascii: "/") {
                        out[i] = 0x20
                        out[i + 1] = 0x20
                        i += 2
                        break
                    }
                    if out[i] != 0x0A { out[i] = 0x20 }
                    i += 1
                }
            } else {
                i += 1
            }
        }
        return out
    }
}
