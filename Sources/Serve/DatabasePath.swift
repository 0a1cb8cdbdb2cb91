// A request's URL path as a database location, never as a file-system path.
import JSONTree

/// The rules a key in a request path must meet: the Realtime Database's, so that a path names
/// one location and nothing else.
enum DatabasePath {
    /// The database's limit on a path's depth (its limit on a key's length is JSONTree's).
    static let maxDepth = 32

    /// The location a URL path such as `/players/alice.json` names.
    /// - Throws: `RequestError` (400) for anything but a well-formed database path ending in `.json`.
    static func location(fromURLPath urlPath: String) throws(RequestError) -> Path {
        guard urlPath.hasSuffix(".json") else {
            throw RequestError(.badRequest, "the path must end in .json (e.g. /players.json), not '\(urlPath)'")
        }
        let body = urlPath.dropLast(5)
        guard body.first == "/" || body.isEmpty else {
            throw RequestError(.badRequest, "the path must start with '/'")
        }
        var keys = [String]()
        for raw in body.split(separator: "/", omittingEmptySubsequences: true) {
            guard let key = percentDecoded(raw) else {
                throw RequestError(.badRequest, "the path has a malformed percent escape in '\(raw)'")
            }
            try check(key)
            keys.append(key)
        }
        guard keys.count <= maxDepth else {
            throw RequestError(.badRequest, "the path is \(keys.count) levels deep; the limit is \(maxDepth)")
        }
        return Path(keys: keys)
    }

    /// Checks one key of a location: a request path's, or a relative path's of an update.
    static func check(_ key: String) throws(RequestError) {
        if key == ".." || key == "." {
            throw RequestError(.badRequest, "the path has a '\(key)' segment; paths are database paths, not file paths")
        }
        if let why = keyProblem(key) { throw RequestError(.badRequest, "the key '\(key)' \(why)") }
    }

    /// Why `key` cannot name a location: the database's key rule (JSONTree's, which every
    /// writer shares), and a metadata key (`.priority`, `.value`) names none either.
    static func keyProblem(_ key: String) -> String? {
        forbiddenKeyReason(key) ?? (key.hasPrefix(".") ? "holds '.' (keys cannot hold . $ # [ ] /)" : nil)
    }

    /// A relative path of a multi-path update (`"scores/alice"`), checked key by key; its last
    /// key may be `.priority` (an update that sets a location's priority).
    static func relative(_ text: String) throws(RequestError) -> Path {
        // Split at characters; in ASCII text (most paths) they are its bytes, split faster.
        let keys = text.utf8.allSatisfy { $0 < 0x80 }
            ? text.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
            : text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !keys.isEmpty else { throw RequestError(.badRequest, "an update has an empty path ('\(text)')") }
        for (i, key) in keys.enumerated() where !(i == keys.count - 1 && key == ".priority") { try check(key) }
        return Path(keys: keys)
    }
}

/// `text` with `%XX` escapes decoded; nil for a malformed escape or bytes that are not UTF-8.
func percentDecoded(_ text: Substring) -> String? {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
    var bytes = [UInt8]()
    var i = text.utf8.startIndex
    let utf8 = text.utf8
    while i != utf8.endIndex {
        let byte = utf8[i]
        if byte == UInt8(ascii: "%") {
            let h = utf8.index(after: i)
            guard h != utf8.endIndex, utf8.index(after: h) != utf8.endIndex,
                let high = hexValue(utf8[h]), let low = hexValue(utf8[utf8.index(after: h)])
            else { return nil }
            bytes.append(high << 4 | low)
            i = utf8.index(h, offsetBy: 2)
        } else {
            bytes.append(byte)
            i = utf8.index(after: i)
        }
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
