// The writer behind `synctable demo`: edits a copy of the demo leaderboard continuously,
// saving the way real programs do, so the viewer has something live to show.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
import Synchronization

/// How a save reaches the file.
public enum SaveStyle: CaseIterable {
    /// Truncate and write the same file (`>`, `json.dump`, most editors).
    case inPlace
    /// Write a temporary file and rename it over the original (`sed -i`, atomic writers).
    case rename
}

/// Edits `path` on a background thread until stopped: score changes that reorder rows,
/// new players, departures, renames; alternating save styles.
public final class DemoWriter: Sendable {
    public let path: String
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    public init(path: String) { self.path = path }

    public func start() {
        let thread = Thread { self.run() }
        thread.start()
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Stops, and returns once the writer thread has finished its last save (so its folder
    /// can be removed).
    public func stopAndWait() {
        stop()
        while !finished.load(ordering: .acquiring) { usleep(5_000) }
    }

    private func run() {
        defer { finished.store(true, ordering: .releasing) }
        var random = SystemRandomNumberGenerator()
        var step = 0
        while !stopped.load(ordering: .relaxed) {
            // Quick bursts now and then, otherwise a calm pace a person can follow.
            let pause = step % 17 < 3 ? 120_000 : UInt32.random(in: 400_000...900_000, using: &random)
            var slept: UInt32 = 0
            while slept < pause && !stopped.load(ordering: .relaxed) {
                usleep(min(20_000, pause - slept))
                slept += 20_000
            }
            if stopped.load(ordering: .relaxed) { break }
            step += 1
            guard let bytes = try? readInput(path), let doc = try? JSONDocument(parsing: bytes),
                case .object(var root) = doc.root.json, case .object(var players)? = root["players"]
            else { continue }
            edit(&players, step: step, random: &random)
            root["players"] = .object(players)
            let text = JSON.object(root).serialized(.pretty) + [0x0A]
            save(text, style: step % 3 == 0 ? .rename : .inPlace)
        }
    }

    private func edit(_ players: inout JSONObject, step: Int, random: inout SystemRandomNumberGenerator) {
        let keys = players.keys
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where keys.count < 45, 1 where keys.count < 20:
            players[demoPushID()] = [
                "name": .string(demoNames.randomElement(using: &random)!),
                "score": .number(JSONNumber(Int.random(in: 100...9900, using: &random))),
                "level": .number(JSONNumber(1)),
                "country": .string(demoCountries.randomElement(using: &random)!),
                "online": true,
                "metrics": ["views": 0, "likes": 0],
            ]
        case 2 where keys.count > 12:
            players[keys.randomElement(using: &random)!] = nil
        case 3:
            let key = keys.randomElement(using: &random)!
            if case .object(var p)? = players[key] {
                p["online"] = .bool(!(p["online"]?.boolValue ?? false))
                p["level"] = .number(JSONNumber(Int(p["level"]?.doubleValue ?? 1) + 1))
                players[key] = .object(p)
            }
        default:
            // A score change: the row moves to its new place in the score order.
            let key = keys.randomElement(using: &random)!
            if case .object(var p)? = players[key] {
                let score = Int(p["score"]?.doubleValue ?? 0) + Int.random(in: -1500...2500, using: &random)
                p["score"] = .number(JSONNumber(max(0, score)))
                if case .object(var m)? = p["metrics"] {
                    m["views"] = .number(JSONNumber(Int(m["views"]?.doubleValue ?? 0) + Int.random(in: 1...500, using: &random)))
                    p["metrics"] = .object(m)
                }
                players[key] = .object(p)
            }
        }
    }

    private func save(_ bytes: [UInt8], style: SaveStyle) {
        switch style {
        case .inPlace:
            let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else { return }
            _ = writeAll(bytes, to: fd)
            close(fd)
        case .rename:
            let temp = path + ".demo-tmp"
            let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return }
            _ = writeAll(bytes, to: fd)
            close(fd)
            rename(temp, path)
        }
    }
}

private let demoNames = ["Hedy Lamarr", "Alan Kay", "Ivan Sutherland", "Adele Goldberg", "Fran Allen", "山田 花子",
                         "Ingrid Daubechies", "Éva Tardos", "Ole-Johan Dahl", "Kristen Nygaard", "Sophie Wilson 🚀"]
private let demoCountries = ["🇳🇴 Norge", "🇭🇺 Magyarország", "🇯🇵 日本", "🇺🇸 US", "🇧🇪 België", "🇬🇧 UK"]

/// A push id (8 timestamp characters + 12 random, sortable); the demo only needs uniqueness and order.
private func demoPushID() -> String {
    let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    var ms = Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
    var id = [Character](repeating: "-", count: 20)
    for k in stride(from: 7, through: 0, by: -1) {
        id[k] = alphabet[ms % 64]
        ms /= 64
    }
    for k in 8..<20 { id[k] = alphabet.randomElement()! }
    return String(id)
}
