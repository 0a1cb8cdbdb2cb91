// Helpers for the editing tests: writes from path strings.
import JSONTree
import TestSupport

/// The path `text` (a test's literal, known to be valid).
func path(_ text: String) -> Path {
    do { return try Path(text) } catch { fatalError("invalid test path \(text): \(error)") }
}

func set(_ p: String, _ value: JSON) -> [JSONWrite] { JSONWrite.set(path(p), value) }
func set(_ p: Path, _ value: JSON) -> [JSONWrite] { JSONWrite.set(p, value) }
func remove(_ p: String) -> [JSONWrite] { JSONWrite.remove(path(p)) }
func update(_ base: String, _ values: [(String, JSON)]) -> [JSONWrite] {
    JSONWrite.update(path(base), values.map { (path: path($0.0), value: $0.1) })
}

extension SplitMix64 {
    /// Uniform in 0..<bound (0 when bound is 0).
    mutating func next(_ bound: UInt64) -> UInt64 { bound == 0 ? 0 : next() % bound }
}
