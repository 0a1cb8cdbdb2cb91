// The pushes the WebSocket sessions share (WireCache, in WebSocketSession.swift): serialized once
// per revision, each brings a listener's value from the old revision to the new one.
import FileStore
import JSONTree
@testable import Serve
import Testing
import TestSupport

@Suite struct WireCacheTests {
    @Test func aPushBringsTheListenersValueToTheNewRevision() throws {
        var random = SplitMix64(seed: 42)
        var pushes = 0
        for round in 0..<300 {
            let old = Self.tree(&random, depth: 3)
            let new = Self.edited(old, &random, depth: 3)
            let (first, second) = (try Self.revision(1, old), try Self.revision(2, new))
            let path = Path(keys: (0..<random.int(0...2)).map { _ in Self.keys[random.int(0..<Self.keys.count)] })
            let before = ServedValue.value(at: path, in: first.document, export: true)
            let after = ServedValue.value(at: path, in: second.document, export: true)
            let cache = WireCache()
            guard let push = cache.push(path: path, from: first, to: second) else {
                #expect(before == after, "round \(round): no push, yet \(path) changed")
                continue
            }
            pushes += 1
            #expect(cache.push(path: path, from: first, to: second)?.text == push.text, "round \(round): the same text for every listener")
            let message = try JSONDocument(parsing: Array(push.text.utf8)).root.json
            let body = try #require(message["d"]?["b"])
            let at = try #require(body["p"]?.stringValue).split(separator: "/").map(String.init)
            try #require(at.starts(with: path.keys), "round \(round): \(push) is outside \(path)")
            let relative = at.dropFirst(path.keys.count)
            let data = body["d"] ?? .null
            var applied = before
            switch message["d"]?["a"]?.stringValue {
            case "d": applied = Self.setting(applied, at: relative, to: data)
            case "m":
                for (key, value) in data.objectValue?.members ?? [] {
                    applied = Self.setting(applied, at: relative + key.split(separator: "/").map(String.init), to: value)
                }
            default: Issue.record("round \(round): not a data push: \(push)")
            }
            #expect(applied == after, "round \(round): \(push) on \(before.serializedString()) at \(path) gives \(applied.serializedString())")
        }
        #expect(pushes > 100, "most edits change the listened location")
    }

    /// A query listen is brought to a new revision only where its location changed, with the
    /// window it last sent made again from its revision: the merge sent, applied to that window,
    /// gives the window computed from scratch on the new revision.
    @Test func aQueryListenChangesOnlyWhereItsLocationChanged() throws {
        var random = SplitMix64(seed: 7)
        let queries = [#"{"i": ".key", "l": 2, "vf": "l"}"#, #"{"i": ".value", "l": 2, "vf": "r"}"#, #"{"i": "a"}"#,
                       #"{"i": "b", "sp": 1, "l": 1, "vf": "l"}"#, #"{"i": ".key", "sp": "b"}"#]
        var unchanged = 0
        for round in 0..<300 {
            let old = Self.tree(&random, depth: 3)
            let new = random.chance(0.3) ? old : Self.edited(old, &random, depth: 3)
            let (first, second) = (try Self.revision(1, old), try Self.revision(2, new))
            let path = Path(keys: (0..<random.int(0...2)).map { _ in Self.keys[random.int(0..<Self.keys.count)] })
            let query = try #require(try WireQuery.query(json(queries[random.int(0..<queries.count)]).objectValue))
            let cache = WireCache(windowByteLimit: random.chance(0.5) ? 0 : 1 << 20)
            let sent = cache.window(path: path, query: query, in: first)
            let now = cache.window(path: path, query: query, in: second)
            let fromScratch = WebSocketSession.data(at: path, query: query, in: second)
            #expect(WebSocketSession.object(now) == fromScratch, "round \(round)")
            if cache.isUnchanged(path: path, from: first, to: second) {
                unchanged += 1
                #expect(WebSocketSession.object(sent) == fromScratch, "round \(round): unchanged, yet the window differs")
                continue
            }
            var applied = sent.reduce(into: [String: JSON]()) { $0[$1.key] = $1.value }
            for (key, value) in WebSocketSession.merge(from: sent, to: now)?.objectValue?.members ?? [] {
                applied[key] = value.isNull ? JSON?.none : value
            }
            #expect(applied == now.reduce(into: [String: JSON]()) { $0[$1.key] = $1.value }, "round \(round)")
        }
        #expect(unchanged > 50 && unchanged < 250, "both kinds of revision are tried")
    }

    // MARK: - Trees and edits

    static let keys = ["a", "b", "c"]

    /// A value: a leaf, or an object of one to three children (never empty: the database has no
    /// empty objects).
    static func tree(_ random: inout SplitMix64, depth: Int) -> JSON {
        if depth == 0 || random.chance(0.3) {
            return random.chance(0.5) ? .number(JSONNumber(random.int(0..<4))) : .string("s\(random.int(0..<3))")
        }
        var members: [(key: String, value: JSON)] = []
        for key in keys where random.chance(0.6) { members.append((key, tree(&random, depth: depth - 1))) }
        if members.isEmpty { members.append(("a", tree(&random, depth: depth - 1))) }
        return .object(JSONObject(members))
    }

    /// `value` with some children replaced, added, removed or edited in turn.
    static func edited(_ value: JSON, _ random: inout SplitMix64, depth: Int) -> JSON {
        if random.chance(0.15) { return tree(&random, depth: depth) }
        guard case .object(var object) = value, depth > 0 else { return value }
        for key in keys {
            if random.chance(0.3) {
                // (`JSON` takes `nil` as null: a removal is spelled out.)
                if object[key] != nil && object.count > 1 {
                    object[key] = JSON?.none
                } else {
                    object[key] = tree(&random, depth: depth - 1)
                }
            } else if let child = object[key] {
                object[key] = edited(child, &random, depth: depth - 1)
            }
        }
        return .object(object)
    }

    /// `value` with the location `keys` below it set to `new` (null: removed, and an object left
    /// empty with it).
    static func setting(_ value: JSON, at keys: ArraySlice<String>, to new: JSON) -> JSON {
        guard let key = keys.first else { return new }
        var object = value.objectValue ?? JSONObject()
        let child = setting(object[key] ?? .null, at: keys.dropFirst(), to: new)
        object[key] = child.isNull ? JSON?.none : child
        return object.count == 0 ? .null : .object(object)
    }

    static func revision(_ number: Int, _ value: JSON) throws -> Revision {
        Revision(
            number: number, document: try JSONDocument(parsing: value.serialized(.compact)),
            identity: FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0), publishedAt: 0)
    }
}
