// Writes queued together are applied as one write of the store (one save, one fsync): each
// must still be judged, and answered, as if it had been applied alone, one after another.
import JSONTree
@testable import Serve
import StoreInterface
import Testing
import TestSupport

@Suite struct WriteBatchTests {
    @Test("random writes applied together give each write the outcome, and the store the value, they get one at a time")
    func togetherIsOneAtATime() throws {
        try forEachSeed(60) { seed, random in
            let start = Self.value(&random, depth: 2)
            let plans = try (0..<random.int(2...12)).map { _ in try Self.plan(&random) }
            let alone = try MemoryStore(start), together = try MemoryStore(start)
            let oneByOne = plans.map { WritePlan.apply([$0], to: alone) }.map { $0[0] }
            let batched = WritePlan.apply(plans, to: together)
            #expect(batched.count == plans.count, "seed \(seed)")
            for (i, (a, b)) in zip(oneByOne, batched).enumerated() {
                #expect(Self.heard(a, plans[i]) == Self.heard(b, plans[i]), "seed \(seed), write \(i)")
            }
            // (`JSON`'s equality takes an object's members in any order, as the database does.)
            #expect(alone.currentRevision?.document.root.json == together.currentRevision?.document.root.json, "seed \(seed)")
        }
    }

    /// A PUT, DELETE or PATCH of a few locations, sometimes an increment or a priority,
    /// sometimes with a transaction's hash (right or wrong); under /locked the rules deny it.
    static func plan(_ random: inout SplitMix64) throws -> WritePlan {
        let paths = ["a", "a/x", "a/y", "b", "c", "locked/z"]
        let path = try Path("/" + paths[random.int(0..<paths.count)])
        let hash = random.chance(0.25) ? NodeHash.of(random.chance(0.5) ? .null : .number(JSONNumber(random.int(0...2)))) : nil
        var plan: WritePlan
        if random.chance(0.25) {
            let data = JSON.object(JSONObject([("x", value(&random, depth: 1)), ("y/z", value(&random, depth: 0))]))
            plan = try WebSocketSession.plan(.merge, path: path, data: data, hash: hash)
        } else {
            plan = try WebSocketSession.plan(.put, path: path, data: random.chance(0.15) ? .null : value(&random, depth: 1), hash: hash)
        }
        plan.permitted = { _, writes in writes.contains { $0.path.keys.first == "locked" } ? nil : writes }
        return plan
    }

    static func value(_ random: inout SplitMix64, depth: Int) -> JSON {
        switch random.int(0...(depth > 0 ? 5 : 3)) {
        case 0: return .number(JSONNumber(random.int(0...2)))
        case 1: return .object(JSONObject([(".sv", .object(JSONObject([("increment", .number(JSONNumber(random.int(1...3))))])))]))
        case 2: return .string("s\(random.int(0...2))")
        case 3: return .object(JSONObject([(".value", .number(JSONNumber(random.int(0...2)))), (".priority", .number(JSONNumber(random.int(1...3))))]))
        case 4: return .object(JSONObject([("x", value(&random, depth: depth - 1)), (".priority", .string("p"))]))
        default:
            let keys = ["x", "y", "z"].filter { _ in random.chance(0.6) }
            return .object(JSONObject(keys.map { ($0, value(&random, depth: depth - 1)) }))
        }
    }

    /// An outcome as the client hears it: what happened, and the value it is told.
    struct Heard: Equatable {
        var what: String
        var value: JSON?
    }

    static func heard(_ outcome: WritePlan.Outcome, _ plan: WritePlan) -> Heard {
        switch outcome {
        case .written(let document, let pushKey): Heard(what: "written", value: plan.answer(in: document, pushKey: pushKey))
        case .appended(let key): Heard(what: "appended \(key)", value: nil)
        case .preconditionFailed(let current): Heard(what: current == nil ? "mismatch, not readable" : "mismatch", value: current)
        case .failed(let error): Heard(what: "failed \(error.status.code)", value: nil)
        }
    }
}
