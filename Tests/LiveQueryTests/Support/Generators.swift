// Random collections, edits and queries for the property tests.
import JSONTree
@testable import LiveQuery
import TestSupport

/// Keys that exercise the order: integer keys and near misses, code-unit order beyond the BMP,
/// canonically equivalent spellings, escapes.
let keyPool: [String] = [
    "a", "b", "c", "A", "Z", "_", "-", "~", "ab", "a b", "0", "1", "2", "7", "007", "-5", "-0", "00", "10", "9",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "+5", " 5", "5.0", "1e3", "é", "e\u{301}",
    "😀", "\u{FF61}", "\"q", "back\\slash", "tab\t", "/", "~1",
]

func number(_ text: String) -> JSON { .number(JSONNumber(text: text)!) }

/// Values children are ordered by: every kind, equal values spelled differently, UTF-16 traps.
let sortValuePool: [JSON] = [
    .null, false, true, -1, 0, number("-0"), 0.5, 1, number("1.0"), 2, number("1e3"),
    "a", "b", "", "é", "e\u{301}", "😀", "\u{FF61}", "10", "9", [:], ["x": 1], [1],
]

/// Bounds: scalars only.
let boundPool: [JSON] = sortValuePool.filter(\.isScalar)

/// A collection in file order (keys unique).
typealias Items = [(key: String, value: JSON)]

func randomChildValue(_ rng: inout SplitMix64) -> JSON {
    if rng.chance(0.25) { return rng.pick(sortValuePool) }
    var members: [(key: String, value: JSON)] = []
    if !rng.chance(0.15) { members.append(("score", rng.pick(sortValuePool))) }
    members.append(("name", .string("n\(rng.int(0..<5))")))
    if rng.chance(0.4) { members.append(("m", ["v": rng.pick(sortValuePool)])) }
    if rng.chance(0.3) { members.append((".priority", rng.pick([.null, 1, 2, 0.5, "p", "q", true] as [JSON]))) }
    return .object(JSONObject(members))
}

func randomCollection(_ rng: inout SplitMix64, maxCount: Int = 14) -> Items {
    var keys = keyPool.shuffled(using: &rng)
    keys = Array(keys.prefix(rng.int(0..<maxCount)))
    return keys.map { ($0, rng.chance(0.08) ? .null : randomChildValue(&rng)) }
}

/// An edited copy: removals, additions, value changes (sort field, other fields, equal values
/// spelled differently), and reordering in the file.
func randomEdit(_ c: Items, _ rng: inout SplitMix64, keysAreIndexes: Bool = false) -> Items {
    var c = c
    for _ in 0..<rng.int(0..<3) where !c.isEmpty && !keysAreIndexes { c.remove(at: rng.int(0..<c.count)) }
    for _ in 0..<rng.int(0..<4) where !c.isEmpty {
        let i = rng.int(0..<c.count)
        switch rng.int(0..<5) {
        case 0: c[i].value = randomChildValue(&rng)
        case 1:
            if case .object(var o) = c[i].value {
                o["score"] = rng.pick(sortValuePool)
                c[i].value = .object(o)
            }
        case 2:
            if case .object(var o) = c[i].value {
                o["name"] = .string("n\(rng.int(0..<5))")
                c[i].value = .object(o)
            }
        case 3: c[i].value = rng.chance(0.5) ? number("1.0") : 1
        default: c[i].value = .null
        }
    }
    if keysAreIndexes {
        // Arrays: insert or remove elements, shifting later keys.
        for _ in 0..<rng.int(0..<3) {
            if rng.chance(0.5) && !c.isEmpty { c.remove(at: rng.int(0..<c.count)) } else { c.insert(("", randomChildValue(&rng)), at: rng.int(0..<(c.count + 1))) }
        }
        return c
    }
    let unused = keyPool.filter { k in !c.contains { Array($0.key.utf8) == Array(k.utf8) } }
    for k in unused.shuffled(using: &rng).prefix(rng.int(0..<4)) {
        c.insert((k, randomChildValue(&rng)), at: rng.int(0..<(c.count + 1)))
    }
    if rng.chance(0.2) && c.count > 1 {
        let m = c.remove(at: rng.int(0..<c.count))
        c.insert(m, at: rng.int(0..<(c.count + 1)))
    }
    return c
}

/// The document text: the collection at /items (an object, or an array of its values), between
/// other members so the location is not the whole file.
func documentText(_ c: Items, asArray: Bool, pretty: Bool) -> String {
    let style: JSONStyle = pretty ? .pretty : .compact
    var items = ""
    if asArray {
        items = JSON.array(c.map(\.value)).serializedString(style)
    } else {
        var out = [UInt8]()
        out.append(UInt8(ascii: "{"))
        for (i, m) in c.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if pretty { out.append(contentsOf: "\n    ".utf8) }
            writeJSONString(m.key, to: &out)
            out.append(contentsOf: (pretty ? ": " : ":").utf8)
            m.value.write(to: &out, style: style, depth: 2)
        }
        if pretty && !c.isEmpty { out.append(contentsOf: "\n  ".utf8) }
        out.append(UInt8(ascii: "}"))
        items = String(decoding: out, as: UTF8.self)
    }
    return pretty
        ? "{\n  \"meta\": {\"version\": 1},\n  \"items\": \(items),\n  \"tail\": [1, 2, 3]\n}\n"
        : "{\"meta\":{\"version\":1},\"items\":\(items),\"tail\":[1,2,3]}"
}

func document(_ text: String) -> (JSONDocument, JSON) {
    let doc = try! JSONDocument(parsing: text)
    return (doc, doc.root.json)
}

/// A random valid query (the builder's errors are tested elsewhere).
func randomQuery(_ rng: inout SplitMix64) -> Query {
    while true {
        do {
            var q = Query()
            switch rng.int(0..<6) {
            case 0: q = try q.orderByKey()
            case 1: q = try q.orderByValue()
            case 2: q = try q.orderByChild("score")
            case 3: q = try q.orderByChild("m/v")
            case 4: q = try q.orderByPriority()
            default: break
            }
            let byKey = q.ordering == .key
            func bound() -> (JSON, String?) {
                if byKey { return (.string(rng.pick(keyPool)), nil) }
                return (rng.pick(boundPool), rng.chance(0.3) ? rng.pick(keyPool) : nil)
            }
            if rng.chance(0.15) {
                let (v, k) = bound()
                q = try q.equalTo(v, key: k)
            } else {
                if rng.chance(0.35) {
                    let (v, k) = bound()
                    q = rng.chance(0.5) ? try q.startAt(v, key: k) : try q.startAfter(v, key: k)
                }
                if rng.chance(0.35) {
                    let (v, k) = bound()
                    q = rng.chance(0.5) ? try q.endAt(v, key: k) : try q.endBefore(v, key: k)
                }
            }
            switch rng.int(0..<3) {
            case 0: q = try q.limitToFirst(rng.int(1..<6))
            case 1: q = try q.limitToLast(rng.int(1..<6))
            default: break
            }
            // A viewer's `s`: children without a value after the others.
            if rng.chance(0.25) { q = q.valuesFirst() }
            return q
        } catch {
            continue
        }
    }
}

/// A collection large enough that a limited window keeps a reserve and a boundary.
func randomLargeCollection(_ rng: inout SplitMix64) -> Items {
    let n = rng.int(30..<90)
    return (0..<n).map { i in ("k\(i)", randomChildValue(&rng)) }
}

/// A heavier edit: many sort values change, children leave and arrive in bulk.
func randomBulkEdit(_ c: Items, _ rng: inout SplitMix64, next: inout Int) -> Items {
    var c = c
    let changes = rng.int(0..<12)
    for _ in 0..<changes where !c.isEmpty {
        let i = rng.int(0..<c.count)
        c[i].value = rng.chance(0.7) ? ["score": rng.pick(sortValuePool), "name": "x"] : randomChildValue(&rng)
    }
    for _ in 0..<rng.int(0..<10) where !c.isEmpty { c.remove(at: rng.int(0..<c.count)) }
    for _ in 0..<rng.int(0..<(rng.chance(0.2) ? 40 : 6)) {
        c.insert(("n\(next)", randomChildValue(&rng)), at: rng.int(0..<(c.count + 1)))
        next += 1
    }
    return c
}

/// Where the generated collections live.
let itemsPath = try! Path("/items")
