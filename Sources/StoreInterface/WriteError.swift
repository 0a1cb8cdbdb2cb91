// Why a write to the file did not happen. In every case the file is left as it was.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// Why a write failed. The file is untouched.
public enum WriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The writes cannot be applied to the file's content (a path through a number, …).
    case edit(JSONEditError)
    /// The file is not valid JSON.
    case invalidJSON(JSONParseError)
    /// No file at the path.
    case missing(path: String)
    /// The file cannot be read: why.
    case unreadable(path: String, reason: String)
    /// The file cannot be replaced: what failed, on which path, and why.
    case system(String, path: String, errno: Int32)
    /// The file (or the path) is not a regular file.
    case notAFile(path: String)
    /// The file's permission bits do not let this user write it.
    case readOnly(path: String)
    /// Another process changed the file before every one of our attempts.
    case conflict(path: String, attempts: Int)
    /// Another writer of this library held the file's lock for too long.
    case lockTimeout(path: String, milliseconds: Int)
    /// The write would rewrite a JSON Lines file (or a pipe), whose records are only appended.
    case appendOnly(path: String, what: String)
    /// A database over the network (`url`, never with a token) refused or did not take the write.
    case remote(url: String, reason: String)
    /// Another program's last line of a JSON Lines file did not end within `milliseconds`: an
    /// append now would split its record.
    case unfinishedLine(path: String, milliseconds: Int)

    /// The file the write was for; nil for errors in the writes themselves.
    public var path: String? {
        switch self {
        case .edit: nil
        case .invalidJSON: nil
        case .missing(let path), .unreadable(let path, _), .system(_, let path, _), .notAFile(let path),
            .readOnly(let path), .conflict(let path, _), .lockTimeout(let path, _), .appendOnly(let path, _),
            .remote(let path, _), .unfinishedLine(let path, _):
            path
        }
    }

    /// What went wrong, without the file's path.
    public var message: String {
        switch self {
        case .edit(let e): e.description
        case .invalidJSON(let e): "the file is not valid JSON: \(e)"
        case .missing: "no such file"
        case .unreadable(_, let reason): "cannot read: \(reason)"
        case .system(let what, _, let code): "cannot \(what): \(String(cString: strerror(code)))"
        case .notAFile: "not a regular file"
        case .readOnly: "the file is read-only"
        case .conflict(_, let attempts): "the file changed under every one of \(attempts) attempts to write it; gave up"
        case .lockTimeout(_, let ms): "another writer held the file's lock for more than \(ms) ms"
        case .appendOnly(_, let what): what
        case .remote(_, let reason): reason
        case .unfinishedLine(_, let ms):
            "another program's last line has not ended after \(ms) ms; appending now would split its record, so nothing was written (a line left unfinished for 10 s is taken as abandoned, and ended)"
        }
    }

    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
