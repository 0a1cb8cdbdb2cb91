// Test support: a seeded random generator and JSON tree generators for property tests.
import JSONTree

/// Locates `Fixtures/` in the repository from this source file's path.
func fixturesURL(_ relative: String) -> String {
    let here = #filePath
    let root = here.components(separatedBy: "/Tests/").first!
    return root + "/Fixtures/" + relative
}

enum Gen {
    static let alphabet: [String] = ["a", "b", "z", "0", "7", "-", " ", "é", "e\u{301}", "\u{FFFF}", "😀", "中",
                                     "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "\u{E000}", "~"]

    static func string<R: RandomNumberGenerator>(_ r: inout R, maxLength: Int = 6) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...maxLength, using: &r) { s += alphabet.randomElement(using: &r)! }
        return s
    }

    static func number<R: RandomNumberGenerator>(_ r: inout R) -> JSON {
        switch Int.random(in: 0..<6, using: &r) {
        case 0: return .number(JSONNumber(Int.random(in: -1000...1000, using: &r)))
        case 1: return .number(JSONNumber(Double.random(in: -1e6...1e6, using: &r)))
        case 2: return .number(JSONNumber(text: ["1.0", "1e3", "-0", "0.5E-2", "12345678901234567890", "1E+2", "-12.50"].randomElement(using: &r)!)!)
        case 3: return .number(JSONNumber(Double.random(in: -1e-300...1e-300, using: &r)))
        case 4: return .number(JSONNumber(Double(Int64.random(in: Int64.min...Int64.max, using: &r))))
        default: return .number(JSONNumber(Double.random(in: -1...1, using: &r) * 1e300))
        }
    }

    /// A random tree at most `depth` levels deep.
    static func value<R: RandomNumberGenerator>(_ r: inout R, depth: Int = 4) -> JSON {
        let pick = Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &r)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &r))
        case 2: return number(&r)
        case 3, 4: return .string(string(&r))
        case 5: return .array((0..<Int.random(in: 0...4, using: &r)).map { _ in value(&r, depth: depth - 1) })
        default:
            let members = (0..<Int.random(in: 0...5, using: &r)).map { _ in (key: string(&r, maxLength: 3), value: value(&r, depth: depth - 1)) }
            return .object(JSONObject(members))
        }
    }
}
