// The first-page cache: a query's first page kept in a small file between runs.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import JSONTree

/// Where a `SyncedArray` keeps the first page of its query between runs, so that the next run
/// shows it at once while a large file is still being parsed.
///
/// One file per (data file, location, query, paging), named by a hash of them, in
/// `$XDG_CACHE_HOME/synctable/` (else `~/.cache/synctable/`). A cache file is used only when the
/// data file is the same state it was written from (device, inode, size and modification time);
/// otherwise it is stale and ignored with a warning, as is a missing or corrupt one. It is
/// written atomically (a temporary file, then a rename) without `fsync`: a torn file after a crash
/// is found corrupt and ignored.
///
/// The file is JSON: `{"synctable":"first-page cache","version":1,"key":…,"identity":…,
/// "hasMore":…,"rows":[[key,value],…]}`, each value as written in the data file.
public struct FirstPageCache: Sendable {
    /// The cache folder; nil when none could be found (every use then warns `.unavailable`).
    public let directory: String?
    /// The rows kept for an array without paging (a paged array keeps one page).
    public let rowLimit: Int

    /// A cache in `directory` (created when first written).
    public init(directory: String, rowLimit: Int = 100) {
        self.directory = directory
        self.rowLimit = max(1, rowLimit)
    }

    /// The cache in the standard folder for `environment` (the process's by default).
    public static func standard(environment: [String: String]? = nil, rowLimit: Int = 100) -> FirstPageCache {
        FirstPageCache(directory: standardDirectory(environment: environment ?? processEnvironment()), rowLimit: rowLimit)
    }

    /// `$XDG_CACHE_HOME/synctable` when that is an absolute path (the XDG rule), else
    /// `$HOME/.cache/synctable`; nil when neither is usable.
    public static func standardDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return trimmed(xdg) + "/synctable" }
        if let home = environment["HOME"], home.hasPrefix("/") { return trimmed(home) + "/.cache/synctable" }
        return nil
    }

    private init(directory: String?, rowLimit: Int) {
        self.directory = directory
        self.rowLimit = max(1, rowLimit)
    }

    private static func trimmed(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return p == "/" ? "" : String(p)
    }

    static let format = "first-page cache"
    static let version = 1
    /// Larger files are not read (a page is small).
    static let maximumBytes = 64 << 20

    /// The cache file for `key`.
    public func filePath(for key: CacheKey) -> String? {
        directory.map { $0 + "/" + key.fileName }
    }

    // MARK: Reading

    /// The page cached for `key`, if it was written from the file state `identity`.
    func load(_ key: CacheKey, identity: FileIdentity?) -> Result<CachedPage, CacheWarning> {
        guard let path = filePath(for: key) else { return .failure(.unavailable(FirstPageCache.noFolder)) }
        let bytes: [UInt8]
        switch readFile(path, limit: FirstPageCache.maximumBytes) {
        case .success(let b): bytes = b
        case .failure(.missing): return .failure(.missing(path: path))
        case .failure(.tooLarge): return .failure(.corrupt(path: path, reason: "larger than \(FirstPageCache.maximumBytes >> 20) MB"))
        case .failure(.system(let why)): return .failure(.unreadable(path: path, reason: why))
        }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            return .failure(.corrupt(path: path, reason: "invalid JSON at line \(error.line), column \(error.column): \(error.message)"))
        }
        let root = document.root
        guard root.kind == .object, root[key: "synctable"]?.stringEquals(FirstPageCache.format) == true else {
            return .failure(.corrupt(path: path, reason: "not a SyncTable first-page cache"))
        }
        guard root[key: "version"]?.doubleValue == Double(FirstPageCache.version) else {
            return .failure(.stale(path: path, reason: "written by another version of SyncTable"))
        }
        guard root[key: "key"]?.stringEquals(key.text) == true else {
            return .failure(.stale(path: path, reason: "written for another file or query"))
        }
        guard let identity else { return .failure(.stale(path: path, reason: "the data file is missing")) }
        guard root[key: "identity"]?.stringEquals(FirstPageCache.describe(identity)) == true else {
            return .failure(.stale(path: path, reason: "the data file changed since it was written"))
        }
        guard let hasMore = root[key: "hasMore"]?.boolValue, let list = root[key: "rows"], list.kind == .array else {
            return .failure(.corrupt(path: path, reason: "no rows"))
        }
        var rows = [SyncedRow]()
        var seen = Set<JSONKey>()
        for (i, entry) in list.elements.enumerated() {
            let pair = Array(entry.elements)
            guard entry.kind == .array, pair.count == 2, let key = pair[0].stringValue, !pair[1].isNull else {
                return .failure(.corrupt(path: path, reason: "row \(i) is not a [key, value] pair"))
            }
            guard seen.insert(JSONKey(key)).inserted else {
                return .failure(.corrupt(path: path, reason: "row \(i) repeats a key"))
            }
            rows.append(SyncedRow(key: key, value: pair[1]))
        }
        return .success(CachedPage(rows: rows, hasMore: hasMore))
    }

    // MARK: Writing

    /// Writes `rows` as the page cached for `key`, from the file state `identity`.
    /// - Returns: a warning when it could not be written.
    func save(_ key: CacheKey, identity: FileIdentity, rows: ArraySlice<SyncedRow>, hasMore: Bool) -> CacheWarning? {
        guard let directory, let path = filePath(for: key) else { return .unavailable(FirstPageCache.noFolder) }
        var out = [UInt8]()
        out.reserveCapacity(256 + rows.reduce(0) { $0 + $1.key.utf8.count + $1.value.byteRange.count + 8 })
        out += #"{"synctable":"first-page cache","version":1,"key":"#.utf8
        writeJSONString(key.text, to: &out)
        out += #","identity":"#.utf8
        writeJSONString(FirstPageCache.describe(identity), to: &out)
        out += (hasMore ? #","hasMore":true,"rows":["# : #","hasMore":false,"rows":["#).utf8
        for (i, row) in rows.enumerated() {
            out += (i == 0 ? "\n[" : ",\n[").utf8
            writeJSONString(row.key, to: &out)
            out.append(UInt8(ascii: ","))
            out += row.value.rawBytes
            out.append(UInt8(ascii: "]"))
        }
        out += "\n]}\n".utf8
        if let why = makeDirectories(directory) { return .unwritable(path: path, reason: why) }
        if let why = writeAtomically(out, to: path) { return .unwritable(path: path, reason: why) }
        return nil
    }

    static let noFolder = "neither XDG_CACHE_HOME (an absolute path) nor HOME is set"

    /// The parts of a file's identity that tell one saved state from another.
    static func describe(_ id: FileIdentity) -> String { "\(id.device) \(id.inode) \(id.size) \(id.modified)" }
}

/// What a cache file is for: the data file's real path, the location, the query and the paging.
public struct CacheKey: Sendable, Equatable {
    public let text: String

    public init(file: String, location: Path, query: String, paging: Paging?) {
        text = "file \(file)\nlocation \(location)\nquery \(query)\npaging \(paging?.description ?? "none")"
    }

    /// The cache file's name: a 64-bit FNV-1a hash of the key (collisions are caught by
    /// comparing the key stored in the file).
    public var fileName: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }
}

/// A page read from the cache.
struct CachedPage {
    let rows: [SyncedRow]
    let hasMore: Bool
}
