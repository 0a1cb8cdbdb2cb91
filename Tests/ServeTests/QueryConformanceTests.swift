// Every query kind over REST — including those the Python SDK cannot send ($priority,
// startAfter, endBefore) — against `synctable list` on random trees with priorities.
import CommandTestSupport
import JSONTree
import ServeTestSupport
import Testing
import TestSupport

@Suite struct QueryConformanceTests {
    @Test func restQueriesAnswerWhatListPrints() async throws {
        try await forEachSeed(3, base: 0xC0FFEE) { seed, random in
            let folder = ScratchFolder()
            let tree = RandomTree.withPriorities(RandomTree.make(&random), &random)
            let file = folder.write("db.json", tree.serializedString(.pretty))
            let server = try await InProcessServer(file: file)
            var selectedSome = 0
            for _ in 0..<25 {
                let query = RawQuery.make(&random, tree: tree)
                let response = try server.request("GET", "/items.json?format=export&" + query.urlQuery)
                #expect(response.status == 200, "seed \(seed): \(query.urlQuery): \(response.text)")
                let listed = try synctable(["list", file, "--path", "/items", "--format", "json"] + query.listFlags)
                let rows = try JSONDocument(parsing: listed.output).root.json.arrayValue ?? []
                // The same children, in the same order, with the same values (priorities included).
                let answer = response.json?.objectValue
                #expect(answer?.keys == rows.map { $0["key"]!.stringValue! }, "seed \(seed): \(query.urlQuery)")
                #expect(answer.map(JSON.object) == JSON.object(JSONObject(rows.map { ($0["key"]!.stringValue!, $0["value"]!) })),
                        "seed \(seed): \(query.urlQuery)")
                if !rows.isEmpty { selectedSome += 1 }
            }
            #expect(selectedSome >= 12, "seed \(seed)")
            try await server.stop()
        }
    }
}

extension RandomTree {
    /// The tree with a `.priority` (a number or a string) on about half of its object children.
    static func withPriorities(_ tree: JSON, _ random: inout SplitMix64) -> JSON {
        let items = tree["items"]!.objectValue!.members.map { member -> (key: String, value: JSON) in
            guard case .object(let fields) = member.value, random.chance(0.5) else { return member }
            let priority: JSON = random.chance(0.5) ? .number(JSONNumber(random.int(0...5))) : .string(random.pick(["a", "b", "c"]))
            return (member.key, .object(JSONObject(fields.members + [(".priority", priority)])))
        }
        return .object(JSONObject([("items", .object(JSONObject(items)))]))
    }
}

/// A query in both spellings: a REST URL query and `synctable list` flags.
struct RawQuery {
    var urlQuery: String
    var listFlags: [String]

    static func make(_ random: inout SplitMix64, tree: JSON) -> RawQuery {
        let children = tree["items"]!.objectValue!.members
        var parameters = [(String, String)]()
        var flags = [String]()
        let order = random.pick(["score", "nested/v", "$key", "$value", "$priority"])
        parameters.append(("orderBy", JSON.string(order).serializedString()))
        switch order {
        case "$key": flags.append("--order-by-key")
        case "$value": flags.append("--order-by-value")
        case "$priority": flags.append("--order-by-priority")
        default: flags += ["--order-by-child", order]
        }
        func bound() -> JSON {
            let child = random.pick(children)
            switch order {
            case "$key": return .string(child.key)
            case "$priority": return child.value[".priority"] ?? .number(JSONNumber(random.int(0...5)))
            case "$value": return child.value.isScalar ? child.value : RandomTree.scalar(&random)
            default:
                let value = child.value[path: try! Path(order)] ?? RandomTree.scalar(&random)
                return value.isScalar && !value.isNull ? value : RandomTree.scalar(&random)
            }
        }
        func add(_ name: String, _ flag: String, _ value: JSON) {
            parameters.append((name, value.serializedString()))
            flags.append("--\(flag)=\(value.serializedString())")
        }
        if random.chance(0.2) {
            add("equalTo", "equal-to", bound())
        } else {
            if random.chance(0.5) {
                random.chance(0.5) ? add("startAt", "start-at", bound()) : add("startAfter", "start-after", bound())
            }
            if random.chance(0.5) {
                random.chance(0.5) ? add("endAt", "end-at", bound()) : add("endBefore", "end-before", bound())
            }
        }
        if random.chance(0.6) {
            let n = random.int(1...10)
            let first = random.chance(0.5)
            parameters.append((first ? "limitToFirst" : "limitToLast", String(n)))
            flags.append("--limit-to-\(first ? "first" : "last")=\(n)")
        }
        let urlQuery = parameters.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        return RawQuery(urlQuery: urlQuery, listFlags: flags)
    }
}

/// `text` with every byte but the URL's unreserved characters percent-encoded.
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
        }
    }
    return out
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
