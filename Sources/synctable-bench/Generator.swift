// Seeded generators of benchmark inputs (no large files are committed).
import SeededRandom

private let pushAlphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)
private let cities = ["Amsterdam", "Berlin", "Chennai", "Dakar", "Edinburgh", "Fukuoka", "Geneva", "Helsinki",
                      "İzmir", "São Paulo", "Москва", "東京", "Zürich"]

/// A push-id-like key for child `i`: sorted by `i`, 20 characters.
func benchKey(_ i: Int, _ r: inout SplitMix64) -> String {
    var bytes = [UInt8](repeating: 0, count: 20)
    var t = 1_700_000_000_000 + i
    for k in stride(from: 7, through: 0, by: -1) {
        bytes[k] = pushAlphabet[t % 64]
        t /= 64
    }
    for k in 8..<20 { bytes[k] = pushAlphabet[Int(r.next() % 64)] }
    return String(decoding: bytes, as: UTF8.self)
}

/// One child of the benchmark collection: an object on one line, one member nested.
func benchChild(_ i: Int, _ r: inout SplitMix64) -> String {
    let score = Int(r.next() % 1_000_000)
    let city = cities[Int(r.next() % UInt64(cities.count))]
    let views = Int(r.next() % 10_000_000), likes = Int(r.next() % 100_000)
    let active = r.next() % 2 == 0 ? "true" : "false"
    return #"{"name": "user \#(i)", "score": \#(score), "city": "\#(city)", "active": \#(active), "#
        + #""metrics": {"views": \#(views), "likes": \#(likes)}}"#
}

/// A file `{"items": {KEY: CHILD, ...}}`, one child a line, with `children` children
/// (about 150 bytes each: 1,000,000 children make about 150 MB).
func generateCollection(children: Int, seed: UInt64 = 42) -> [UInt8] {
    var r = SplitMix64(seed: seed)
    var out = [UInt8]()
    out.reserveCapacity(children * 190 + 64)
    out.append(contentsOf: "{\n  \"items\": {\n".utf8)
    for i in 0..<children {
        out.append(contentsOf: "    \"\(benchKey(i, &r))\": ".utf8)
        out.append(contentsOf: benchChild(i, &r).utf8)
        out.append(contentsOf: (i + 1 < children ? ",\n" : "\n").utf8)
    }
    out.append(contentsOf: "  }\n}\n".utf8)
    return out
}
