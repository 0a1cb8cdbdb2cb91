// The `--rules` file: read at the start, and written back when the admin replaces the rules.
import FileStore
import Rules

enum RulesFile {
    /// The rules of the file at `path`.
    /// - Throws: `ServeError` naming the file, and the line and column of a mistake.
    static func read(_ path: String) throws(ServeError) -> SecurityRules {
        let bytes: [UInt8]
        do { bytes = Array(try AtomicFile.read(path).bytes) } catch {
            throw ServeError("\(path): cannot read the rules: \(error)")
        }
        do { return try SecurityRules(parsing: bytes) } catch {
            throw ServeError(error.diagnostic(file: path))
        }
    }

    /// Replaces the file's content with `rules`' text, atomically (mode kept).
    static func write(_ rules: SecurityRules, to path: String) throws(ServeError) {
        do { _ = try AtomicFile.modify(path) { _ throws(WriteError) in rules.source } } catch {
            throw ServeError("\(path): cannot write the rules: \(error)")
        }
    }
}

/// Whether `host` is a loopback address, reachable from this machine only.
public func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
}
