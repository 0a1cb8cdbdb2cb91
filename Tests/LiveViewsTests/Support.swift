// Random children and edits for the derived views' property tests.
import JSONTree
import LiveQuery
import TestSupport

/// Values a column holds: every kind, repeats (so counts grow and shrink), equal numbers spelled
/// differently, canonically equivalent strings (distinct by code units).
let cellPool: [JSON] = [
    .null, false, true, 0, 1, 2, 2.5, -7, .number(JSONNumber(text: "1.0")!), 1000, 12.75,
    "a", "b", "c", "", "é", "e\u{301}", "😀", "long text", ["x": 1], [1, 2],
]

/// A child: an object whose members may be missing, or (rarely) a scalar.
func randomChild(_ rng: inout SplitMix64) -> JSON {
    if rng.chance(0.08) { return rng.pick(cellPool.filter { !$0.isNull }) }
    var members: [(key: String, value: JSON)] = []
    if !rng.chance(0.1) { members.append(("team", .string(["red", "blue", "green", "gold"][rng.int(0..<4)]))) }
    if !rng.chance(0.15) { members.append(("score", rng.chance(0.8) ? .number(JSONNumber(Double(rng.int(0..<40)))) : rng.pick(cellPool))) }
    if rng.chance(0.5) { members.append(("tag", rng.pick(cellPool))) }
    if rng.chance(0.3) { members.append(("m", ["v": rng.pick(cellPool)])) }
    return .object(JSONObject(members))
}

/// The document `{"players": {key: child, …}}`.
func document(_ children: [(key: String, value: JSON)]) throws -> JSONDocument {
    let players = JSON.object(JSONObject(children.map { ($0.key, $0.value) }))
    return try JSONDocument(parsing: JSON.object(JSONObject([("players", players)])).serialized())
}

/// A random edit of the children: a few values changed (whole children or one member), added,
/// removed; sometimes many at once.
func randomEdit(_ children: [(key: String, value: JSON)], _ rng: inout SplitMix64, nextKey: inout Int) -> [(key: String, value: JSON)] {
    var c = children
    let edits = rng.chance(0.1) ? rng.int(5..<30) : rng.int(1..<4)
    for _ in 0..<edits {
        switch rng.int(0..<6) {
        case 0:
            c.append((String(format: "k%03d", nextKey), randomChild(&rng)))
            nextKey += 1
        case 1 where !c.isEmpty: c.remove(at: rng.int(0..<c.count))
        case 2 where !c.isEmpty: c[rng.int(0..<c.count)].value = randomChild(&rng)
        case _ where !c.isEmpty:
            let i = rng.int(0..<c.count)
            if case .object(var o) = c[i].value {
                o[rng.pick(["team", "score", "tag"])] = rng.chance(0.15) ? nil : rng.pick(cellPool + [.string("red"), .string("blue")])
                c[i].value = .object(o)
            }
        default: break
        }
    }
    return c
}

/// Queries over the children: all, ordered by a column, ranged, limited.
func randomQuery(_ rng: inout SplitMix64) throws -> Query {
    switch rng.int(0..<4) {
    case 0: return Query()
    case 1: return try Query().orderByChild(Path("score"))
    case 2: return try Query().orderByChild(Path("score")).startAt(.number(JSONNumber(10.0))).endAt(.number(JSONNumber(30.0)))
    default: return try Query().orderByChild(Path("team")).limitToFirst(rng.int(1..<12))
    }
}

/// Random children under a random query, then `steps` random edits: `start` gets the first
/// window, `step` each edit's change of it (in order), and returns false to stop (a problem found).
func followRandomEdits(_ rng: inout SplitMix64, steps: Int, start: (Window) -> Void,
                       step: (_ step: Int, _ change: WindowChange) -> Bool) throws {
    var children = (0..<rng.int(0..<25)).map { (String(format: "k%03d", $0), randomChild(&rng)) }
    var nextKey = children.count
    var window = Window(query: try randomQuery(&rng), path: Path(keys: ["players"]), document: try document(children))
    start(window)
    for n in 0..<steps {
        children = randomEdit(children, &rng, nextKey: &nextKey)
        let change = window.advanced(to: try document(children))
        window = change.new
        guard step(n, change) else { return }
    }
}
