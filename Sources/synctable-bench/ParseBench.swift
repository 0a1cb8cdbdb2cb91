// Parse throughput: SyncTable's parser against Foundation's JSONSerialization.
import Foundation
import JSONTree

func runParseBenchmarks(_ report: Report, _ options: BenchOptions) {
    for name in ["twitter", "citm_catalog", "canada"] {
        let path = options.root + "/Fixtures/bench/\(name).json"
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("missing \(path)")
            continue
        }
        let bytes = [UInt8](data)
        let runs = options.quick ? 3 : 25
        let mb = Double(bytes.count) / 1e6
        let ours = timeRuns(runs) { _ = try! JSONDocument(parsing: bytes) }
        let foundation = timeRuns(options.quick ? 2 : 7) { _ = try! JSONSerialization.jsonObject(with: data) }
        let oursMBs = Stats([mb / ours.max, mb / ours.median, mb / ours.min])
        let theirsMBs = Stats([mb / foundation.max, mb / foundation.median, mb / foundation.min])
        let ratio = oursMBs.median / theirsMBs.median
        report.add(Figure(
            name: "parse \(name).json", unit: "MB/s", synctable: oursMBs,
            peers: [(name: "Foundation", stats: theirsMBs, note: nil)],
            target: name == "canada" ? "≥ 20× Foundation" : "≥ 300 MB/s and ≥ 20× Foundation",
            met: (name == "canada" || oursMBs.median >= 300) && ratio >= 20, ratio: ratio))
    }
}
