// Errors from creating or driving a store (not problems with the file's content: see StoreProblem).
#if canImport(Glibc)
import Glibc
#endif

/// Why a store could not be created or could not wait.
public enum FileStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed (out of descriptors, …): the call's name and `errno`.
    case system(String, Int32)
    /// The path is empty.
    case emptyPath
    /// A blocking wait ended before its condition held.
    case timedOut(milliseconds: Int)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .emptyPath: "the file path is empty"
        case .timedOut(let ms): "timed out after \(ms) ms"
        }
    }
}
